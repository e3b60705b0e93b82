package check

import (
	"os"

	"github.com/hangar-dev/testresults/internal/regular"
)

// openRegularNoFollow opens path as openNoFollow does and refuses what is
// not a regular file (a folder, device or pipe), so a small file the
// check reads is a file.
func openRegularNoFollow(path string) (*os.File, error) {
	return regular.File(openNoFollow(path))
}
