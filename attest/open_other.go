//go:build !unix

package attest

// openNonBlock is 0 where there is no such flag.
const openNonBlock = 0
