//go:build unix

package testresultsreceiver

import (
	"os"
	"path/filepath"
	"strings"
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

// TestWatchLinkedRootSaid: a watched folder that is itself a symbolic
// link is not followed, as no link is, and says so once, naming it, rather
// than watching nothing in silence.
func TestWatchLinkedRootSaid(t *testing.T) {
	target := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(target, "run-1"))
	root := filepath.Join(t.TempDir(), "reports")
	require.NoError(t, os.Symlink(target, root))

	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	h.poll(3)
	assert.Empty(t, h.traces.AllTraces())
	said := h.log.FilterMessage("cannot list a watched path").All()
	require.Len(t, said, 1, "said once, not at every poll")
	assert.Equal(t, root, said[0].ContextMap()["path"])
	assert.Contains(t, said[0].ContextMap()["error"], "symbolic link")
}

// TestWatchSameSizeAndTimeRewriteIsNew: a delivered report rewritten in
// place with other content of the same size, its modification time set
// back to the one the watcher saw (touch -r, a copy that keeps times, a
// filesystem with coarse times), is a new run: the file's inode change
// time, which no writer can set, moved.
func TestWatchSameSizeAndTimeRewriteIsNew(t *testing.T) {
	root := t.TempDir()
	path := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "job"))
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	require.Len(t, h.runIDs(), 1)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	i := strings.Index(string(b), `name="`)
	require.Positive(t, i)
	j := i + len(`name="`)
	b[j] ^= 0x01 // one letter of the first name: same size, other content
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_TRUNC, 0)
	require.NoError(t, err)
	_, err = f.Write(b)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, os.Chtimes(path, fi.ModTime(), fi.ModTime()))
	after, err := os.Stat(path)
	require.NoError(t, err)
	require.Equal(t, fi.Size(), after.Size())
	require.True(t, fi.ModTime().Equal(after.ModTime()))

	h.settle()
	ids := h.runIDs()
	require.Len(t, ids, 2, "the rewritten report is a new run")
	assert.NotEqual(t, ids[0], ids[1])
	h.settle()
	assert.Len(t, h.runIDs(), 2, "and it is delivered once")
}

// TestWatchReplacedByRenameIsNew: a delivered report replaced by another
// file renamed over it, with the same size and modification time, is a new
// run (the name now names another file).
func TestWatchReplacedByRenameIsNew(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "job")
	path := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	require.Len(t, h.runIDs(), 1)

	fi, err := os.Stat(path)
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	i := strings.Index(string(b), `name="`) + len(`name="`)
	b[i] ^= 0x01
	tmp := filepath.Join(t.TempDir(), "new.xml")
	require.NoError(t, os.WriteFile(tmp, b, 0o644))
	require.NoError(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
	require.NoError(t, os.Rename(tmp, path))

	h.settle()
	assert.Len(t, h.runIDs(), 2, "the replaced report is a new run")
}
