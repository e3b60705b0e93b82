package check

import (
	"os"
	"path/filepath"
)

// AbsPairFiles makes a pair's diff file and pins file absolute, since its
// runs happen in worktrees elsewhere, and checks that the diff exists.
// Empty paths stay empty. On an error it names the file that failed:
// "patch" or "pins".
func AbsPairFiles(patch, pins *string) (which string, err error) {
	for _, f := range []struct {
		name string
		path *string
	}{{"patch", patch}, {"pins", pins}} {
		if *f.path == "" {
			continue
		}
		abs, err := filepath.Abs(*f.path)
		if err == nil && f.name == "patch" {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return f.name, err
		}
		*f.path = abs
	}
	return "", nil
}
