package testrun

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ReadTail returns the last max bytes of the regular file at path: a
// check's kept output, of which only the tail is compared (WithOutput reads
// at most MaxOutputBytes). A folder, device or pipe is refused.
func ReadTail(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	if off := fi.Size() - max; off > 0 {
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return nil, err
		}
	}
	return io.ReadAll(io.LimitReader(f, max))
}

// ReadOutputs reads the tails of a comparison's kept outputs (ReadTail,
// MaxOutputBytes each) as the WithOutput option. With no after output there
// is nothing to compare and there is no option; a base output alone is
// ErrBaseOutputAlone. The error of a read names which of the two it was
// (OutputReadError).
func ReadOutputs(basePath, afterPath string) ([]CompareOption, error) {
	if afterPath == "" {
		if basePath != "" {
			return nil, ErrBaseOutputAlone
		}
		return nil, nil
	}
	after, err := ReadTail(afterPath, MaxOutputBytes)
	if err != nil {
		return nil, &OutputReadError{After: true, Err: err}
	}
	var base []byte
	if basePath != "" {
		if base, err = ReadTail(basePath, MaxOutputBytes); err != nil {
			return nil, &OutputReadError{Err: err}
		}
	}
	return []CompareOption{WithOutput(base, after)}, nil
}

// ErrBaseOutputAlone is a base output given without the after one: the
// comparison reads output only beside the after check's.
var ErrBaseOutputAlone = errors.New("testrun: a base output needs an after output")

// OutputReadError is a kept output ReadOutputs could not read: the after
// one when After is set, else the base one.
type OutputReadError struct {
	After bool
	Err   error
}

func (e *OutputReadError) Error() string {
	if e.After {
		return "after output: " + e.Err.Error()
	}
	return "base output: " + e.Err.Error()
}

func (e *OutputReadError) Unwrap() error { return e.Err }
