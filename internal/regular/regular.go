// Package regular refuses a file that is not a regular file once it is
// open: the open comes first and then a look at what it opened, never a
// look at the path and then an open, between which the file could be
// swapped. Opened without waiting (O_NONBLOCK), a named pipe is refused
// rather than waited on.
package regular

import (
	"errors"
	"fmt"
	"os"
)

// ErrNotRegular is wrapped by File's refusal.
var ErrNotRegular = errors.New("not a regular file")

// File returns f, opened by the call that gave f and err, when it is a
// regular file. Otherwise f is closed and the error, naming f's path and
// what it is (a folder, a device, a pipe), wraps ErrNotRegular; an error
// of the open, or of looking at f, is returned as it is.
func File(f *os.File, err error) (*os.File, error) {
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // an error path: the stat's error is the one to report
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		_ = f.Close() // opened read-only: nothing to flush
		return nil, fmt.Errorf("%s: %w (%s)", f.Name(), ErrNotRegular, fi.Mode().Type())
	}
	return f, nil
}
