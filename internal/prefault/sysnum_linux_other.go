//go:build linux && !amd64 && !arm64

package prefault

// sysPreadv2 is 0 where the package does not know preadv2's number or
// passes a 64-bit offset in two registers: nothing is populated there.
const sysPreadv2 = 0
