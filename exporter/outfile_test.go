package exporter_test

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/exporter"
)

func writeString(s string) func(io.Writer) error {
	return func(w io.Writer) error {
		_, err := io.WriteString(w, s)
		return err
	}
}

// names lists a folder.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestWriteFileRegular(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "spans.json")
	t.Run("new file", func(t *testing.T) {
		require.NoError(t, exporter.WriteFile(path, writeString("one\n")))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "one\n", string(b))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o644), fi.Mode().Perm())
	})
	t.Run("replaced, mode kept", func(t *testing.T) {
		require.NoError(t, os.Chmod(path, 0o600))
		require.NoError(t, exporter.WriteFile(path, writeString("two\n")))
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "two\n", string(b))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())
	})
	t.Run("a write that fails midway leaves the previous file and no temporary file", func(t *testing.T) {
		err := exporter.WriteFile(path, func(w io.Writer) error {
			_, err := io.WriteString(w, `{"resourceSpans":[{"half`)
			require.NoError(t, err)
			return assert.AnError
		})
		require.ErrorIs(t, err, assert.AnError)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		assert.Equal(t, "two\n", string(b))
		assert.Equal(t, []string{"spans.json"}, names(t, dir))
	})
	t.Run("a missing folder", func(t *testing.T) {
		err := exporter.WriteFile(filepath.Join(dir, "absent", "x.json"), writeString("x"))
		require.ErrorIs(t, err, fs.ErrNotExist)
	})
	t.Run("a folder", func(t *testing.T) {
		err := exporter.WriteFile(dir, writeString("x"))
		require.Error(t, err)
		assert.Contains(t, err.Error(), "is a directory")
	})
}

// TestWriteFileFollowsLinks: a symbolic link is followed, not replaced.
func TestWriteFileFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink("target.json", link))
	chain := filepath.Join(dir, "chain.json")
	require.NoError(t, os.Symlink(link, chain))

	require.NoError(t, exporter.WriteFile(chain, writeString("new\n")))
	for _, l := range []string{link, chain} {
		fi, err := os.Lstat(l)
		require.NoError(t, err)
		assert.Equal(t, fs.ModeSymlink, fi.Mode().Type(), "%s is still a link", l)
	}
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "new\n", string(b))

	// A dangling link creates its target.
	dangling := filepath.Join(dir, "dangling.json")
	require.NoError(t, os.Symlink("created.json", dangling))
	require.NoError(t, exporter.WriteFile(dangling, writeString("made\n")))
	b, err = os.ReadFile(filepath.Join(dir, "created.json"))
	require.NoError(t, err)
	assert.Equal(t, "made\n", string(b))

	// A loop is an error, not a hang.
	loop := filepath.Join(dir, "loop")
	require.NoError(t, os.Symlink("loop", loop))
	require.Error(t, exporter.WriteFile(loop, writeString("x")))
}

// TestWriteFileFIFO: a FIFO is written in place (its reader gets the data)
// and stays a FIFO, directly or through a link.
func TestWriteFileFIFO(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(dir, "to-pipe")
	require.NoError(t, os.Symlink(fifo, link))
	for _, name := range []string{fifo, link} {
		t.Run(filepath.Base(name), func(t *testing.T) {
			got := make(chan string, 1)
			go func() {
				// O_RDWR would never see EOF; the reader opens read-only
				// and so waits for the writer.
				f, err := os.Open(fifo)
				if err != nil {
					got <- "open: " + err.Error()
					return
				}
				// Closed before the answer is sent: a reader still open
				// when the next subtest's writer opens would take its
				// data and leave that subtest's reader waiting.
				b, err := io.ReadAll(f)
				f.Close()
				if err != nil {
					got <- "read: " + err.Error()
					return
				}
				got <- string(b)
			}()
			written := make(chan error, 1)
			go func() { written <- exporter.WriteFile(name, writeString("through the pipe\n")) }()
			select {
			case err := <-written:
				require.NoError(t, err)
			case <-time.After(10 * time.Second):
				t.Fatal("the write did not end")
			}
			select {
			case s := <-got:
				assert.Equal(t, "through the pipe\n", s)
			case <-time.After(10 * time.Second):
				t.Fatal("the reader got nothing")
			}
			fi, err := os.Lstat(fifo)
			require.NoError(t, err)
			assert.Equal(t, fs.ModeNamedPipe, fi.Mode().Type(), "still a FIFO")
			assert.ElementsMatch(t, []string{"pipe", "to-pipe"}, names(t, dir), "no temporary file")
		})
	}
}

// TestWriteFileDevNull: /dev/null is written in place and stays a device.
func TestWriteFileDevNull(t *testing.T) {
	fi, err := os.Stat(os.DevNull)
	if err != nil || fi.Mode().Type() != fs.ModeDevice|fs.ModeCharDevice {
		t.Skip("no character device at", os.DevNull)
	}
	require.NoError(t, exporter.WriteFile(os.DevNull, writeString("discarded\n")))
	fi, err = os.Lstat(os.DevNull)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeDevice|fs.ModeCharDevice, fi.Mode().Type())
}

// TestWriteFileProcFD: /proc/self/fd/N (what /dev/stdout is) naming a pipe
// is written in place, through the kernel's link, not resolved by name.
func TestWriteFileProcFD(t *testing.T) {
	if _, err := os.Stat("/proc/self/fd"); err != nil {
		t.Skip("no /proc/self/fd")
	}
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { r.Close() })
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(r)
		got <- string(b)
	}()
	name := "/proc/self/fd/" + strconv.Itoa(int(w.Fd()))
	require.NoError(t, exporter.WriteFile(name, writeString("to the pipe\n")))
	require.NoError(t, w.Close())
	select {
	case s := <-got:
		assert.Equal(t, "to the pipe\n", s)
	case <-time.After(10 * time.Second):
		t.Fatal("the reader got nothing")
	}
}
