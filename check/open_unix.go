//go:build unix

package check

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
)

// openNoFollow opens a file for reading, failing if its last component is
// a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}

// shellScript reports whether the file at path, which the system refused
// to execute with err, is a shell script without an interpreter line: the
// system cannot execute it (ENOEXEC) and its start holds no NUL byte, as
// the shells decide. A binary of another architecture is not one: it is
// never handed to the shell.
func shellScript(path string, err error) bool {
	if !errors.Is(err, syscall.ENOEXEC) {
		return false
	}
	f, err := os.Open(path) // as the system opened it to execute it
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 80)
	n, err := io.ReadFull(f, head)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return false
	}
	return bytes.IndexByte(head[:n], 0) < 0
}
