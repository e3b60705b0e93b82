//go:build unix

package check

import (
	"os"
	"syscall"
)

// openNoFollow opens a file for reading, failing if its last component is
// a symbolic link.
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
}
