//go:build unix

package regular

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestFile: a regular file is returned open; a folder and a named pipe
// (opened without waiting) are refused, named, and closed; an open that
// failed is its own error.
func TestFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "r.xml")
	require.NoError(t, os.WriteFile(file, []byte("<r/>"), 0o600))
	f, err := File(os.Open(file))
	require.NoError(t, err)
	b := make([]byte, 4)
	_, err = f.Read(b)
	require.NoError(t, err)
	assert.Equal(t, "<r/>", string(b))
	require.NoError(t, f.Close())

	_, err = File(os.Open(dir))
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), dir)

	fifo := filepath.Join(dir, "pipe")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	_, err = File(os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0))
	require.ErrorIs(t, err, ErrNotRegular)
	assert.Contains(t, err.Error(), "pipe")

	_, err = File(os.Open(filepath.Join(dir, "nope")))
	assert.True(t, errors.Is(err, os.ErrNotExist))
	assert.NotErrorIs(t, err, ErrNotRegular)
}
