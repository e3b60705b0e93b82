package check

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangar-dev/testresults/testrun"
)

// Check checks what p and newRuns (the new-test runs NewTestRuns is to
// make) ask before any of it runs, and makes the diff and pins files
// absolute (AbsPairFiles). Its errors are worded in the pair command's
// flags (--runs, --patch, --patch-ref, --timeout, --new-test-runs, --pins).
func (p *Pair) Check(newRuns int) error {
	switch {
	case p.Runs < testrun.MinPairedRuns:
		return fmt.Errorf("--runs %d: want at least %d", p.Runs, testrun.MinPairedRuns)
	case p.Patch != "" && p.PatchRef != "":
		return errors.New("give --patch or --patch-ref, not both")
	case p.Timeout < 0:
		return fmt.Errorf("--timeout %s is negative", p.Timeout)
	case newRuns < 0 || newRuns > MaxNewTestRuns:
		return fmt.Errorf("--new-test-runs %d: want 0 to %d", newRuns, MaxNewTestRuns)
	}
	if which, err := AbsPairFiles(&p.Patch, &p.Pins); err != nil {
		return fmt.Errorf("--%s: %v", which, err)
	}
	return nil
}

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
