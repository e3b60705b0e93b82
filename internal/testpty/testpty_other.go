//go:build !linux

package testpty

import (
	"errors"
	"os"
)

// Open opens a pseudo-terminal; only on Linux. Elsewhere it returns
// errors.ErrUnsupported.
func Open() (master, slave *os.File, err error) {
	return nil, nil, errors.ErrUnsupported
}

// ReadAll reads master to its end; only on Linux.
func ReadAll(master *os.File) (string, error) {
	return "", errors.ErrUnsupported
}
