//go:build unix

package testresultsreceiver

import (
	"os"
	"syscall"
)

// openFlags open a watched file without following a symbolic link in its
// last component and without blocking on a FIFO put in a file's place.
const openFlags = os.O_RDONLY | syscall.O_NOFOLLOW | syscall.O_NONBLOCK
