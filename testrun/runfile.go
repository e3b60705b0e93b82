package testrun

import (
	"fmt"
	"io"
	"os"
)

// ReadRunFile reads the run of the file at path ("-": stdin) as every
// command that takes a run reads it: a run's JSON form or a
// TEST-RESULTS.json (ReadTestResults, whose comparison with a base run is
// checked and set aside), and a run without an id is refused. A file that
// cannot be opened gives the os error; other errors name the path.
func ReadRunFile(path string, stdin io.Reader) (*Run, error) {
	r := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer func() { _ = f.Close() }() // read only: a failed read is reported
		r = f
	}
	results, err := ReadTestResults(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if results.Run.ID == "" {
		return nil, fmt.Errorf("%s: %w: the run has no id", path, ErrInvalidRun)
	}
	return results.Run, nil
}

// ReadRunFiles reads the runs at paths in order (ReadRunFile), stopping at
// the first that cannot be read.
func ReadRunFiles(paths []string, stdin io.Reader) ([]*Run, error) {
	runs := make([]*Run, 0, len(paths))
	for _, p := range paths {
		r, err := ReadRunFile(p, stdin)
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}
