//go:build unix

package testresultsreceiver

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWatchFIFOAndLinksDoNotBlock: a FIFO named like a report, and a
// symbolic link to one (as a report or as a run folder's
// TEST-RESULTS.json), never block a poll (nothing opens them for reading),
// and a folder holding only such entries delivers no run; the link is
// refused, naming it.
func TestWatchFIFOAndLinksDoNotBlock(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "trap")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	fifo := filepath.Join(t.TempDir(), "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "pipe.xml"), 0o644))
	require.NoError(t, os.Symlink(fifo, filepath.Join(dir, "junit.xml")))
	runDir := filepath.Join(root, "run-folder")
	require.NoError(t, os.MkdirAll(runDir, 0o755))
	require.NoError(t, os.Symlink(fifo, filepath.Join(runDir, ResultsFile)))

	h := startHarness(t, watchConfig(root), nopHost())
	done := make(chan struct{})
	go func() {
		defer close(done)
		h.settle()
		h.poll(2)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("a poll blocked on a FIFO")
	}
	assert.Empty(t, h.traces.AllTraces())
	refused := h.log.FilterMessage("report refused").All()
	require.Len(t, refused, 1)
	assert.Equal(t, filepath.Join(dir, "junit.xml"), refused[0].ContextMap()["path"])
	notDelivered := h.log.FilterMessage("run not delivered").All()
	require.Len(t, notDelivered, 2, "the folder of the link, and the run folder whose TEST-RESULTS.json is a link")
}
