//go:build !unix

package report

import "os"

// openNoFollow opens a file for reading (checkPath has refused links).
func openNoFollow(path string) (*os.File, error) {
	return os.Open(path)
}
