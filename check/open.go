package check

import (
	"fmt"
	"os"
)

// openRegularNoFollow opens path as openNoFollow does and refuses what is
// not a regular file (a folder, device or pipe), so a small file the
// check reads is a file.
func openRegularNoFollow(path string) (*os.File, error) {
	f, err := openNoFollow(path)
	if err != nil {
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("check: %s is not a regular file", path)
	}
	return f, nil
}
