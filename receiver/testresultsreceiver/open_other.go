//go:build !unix

package testresultsreceiver

import "os"

// openFlags open a watched file for reading (the regular-file check after
// opening is the guard here).
const openFlags = os.O_RDONLY
