package check

import (
	"errors"
	iofs "io/fs"
	"path/filepath"

	"github.com/hangar-dev/testresults/testrun"
)

// ReadBaseOutput reads the tail of a base check's kept output
// (testrun.ReadTail, MaxOutputBytes): the file given, else OutputFile
// beside the base run's file baseRun (none when the run came on stdin,
// "-"). A default file that does not exist is no output (nil, nil); a
// given one that cannot be read is an error.
func ReadBaseOutput(baseRun, given string) ([]byte, error) {
	p := given
	if p == "" && baseRun != "-" {
		p = filepath.Join(filepath.Dir(baseRun), OutputFile)
	}
	if p == "" {
		return nil, nil
	}
	b, err := testrun.ReadTail(p, testrun.MaxOutputBytes)
	if err != nil && given == "" && errors.Is(err, iofs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// KeptOutput returns the tail of the check's kept output (testrun.ReadTail,
// MaxOutputBytes), empty, not nil, when none was kept or it cannot be
// read, so a comparison reads it as an output with nothing in it.
func (r *Result) KeptOutput() []byte {
	var b []byte
	if r.OutputFile != "" {
		b, _ = testrun.ReadTail(r.OutputFile, testrun.MaxOutputBytes)
	}
	if b == nil {
		b = []byte{}
	}
	return b
}
