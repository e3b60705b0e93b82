//go:build unix

package attest

import "syscall"

// openNonBlock opens a named pipe without waiting for a writer.
const openNonBlock = syscall.O_NONBLOCK
