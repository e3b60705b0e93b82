//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package check

import (
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"
)

// claimTries and claimWait bound how long claimFolder waits out a claim
// held for a moment.
const (
	claimTries = 5
	claimWait  = 10 * time.Millisecond
)

// claimFolder takes the report folder root opened for this run alone: an
// exclusive lock on the folder itself, held until the returned claim is
// closed (Result.Close, or the end of the process however it ends, so a
// claim never outlives its run). A folder another run holds is refused
// with ErrReportDir: two runs never share a folder, where each would read
// the other's reports and one run's files would replace the other's. A file
// system that does not lock (some network file systems) leaves the folder
// unclaimed (nil, nil).
func claimFolder(root *os.Root, dir string) (*folderClaim, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	fi, err := f.Stat()
	if err != nil {
		_ = f.Close() // an error path: the stat is the error to report
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	// Another run's walk looks at a claim for a moment (claimedElsewhere):
	// a claim held that briefly is waited for; a run holds its claim for
	// as long as it runs.
	for i := 0; ; i++ {
		err = flock(f, syscall.LOCK_EX)
		if !errors.Is(err, syscall.EWOULDBLOCK) || i == claimTries {
			break
		}
		time.Sleep(claimWait)
	}
	switch {
	case err == nil:
		c := &folderClaim{f: f, fi: fi}
		hold(c)
		return c, nil
	case errors.Is(err, syscall.EWOULDBLOCK):
		_ = f.Close() // refused: the folder's holder is the error to report
		return nil, fmt.Errorf("%w: %w: %s is the report folder of another run that has not ended (or is being pruned); give this run its own (--out)", ErrReportDir, errHeld, dir)
	default:
		_ = f.Close() // the file system cannot lock: the folder stays unclaimed
		return nil, nil
	}
}

// claimedElsewhere reports whether a run in progress claims the folder
// dir: it cannot be shared for a moment.
func claimedElsewhere(dir string) bool {
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	return errors.Is(flock(f, syscall.LOCK_SH), syscall.EWOULDBLOCK)
}

// flock takes the lock how on f without waiting; the lock is given up
// when f is closed.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how|syscall.LOCK_NB)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
