//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package check

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// claimFolder takes the report folder root opened for this run alone: an
// exclusive lock on the folder itself, held until the returned file is
// closed (Result.Close, or the end of the process however it ends, so a
// claim never outlives its run). A folder another run holds is refused
// with ErrReportDir: two runs never share a folder, where each would read
// the other's reports and one run's files would replace the other's. A file
// system that does not lock (some network file systems) leaves the folder
// unclaimed (nil, nil).
func claimFolder(root *os.Root, dir string) (*os.File, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		_ = f.Close() // refused: the folder's holder is the error to report
		return nil, fmt.Errorf("%w: %s is the report folder of another run that has not ended; give this run its own (--out)", ErrReportDir, dir)
	default:
		_ = f.Close() // the file system cannot lock: the folder stays unclaimed
		return nil, nil
	}
}
