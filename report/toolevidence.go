package report

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/testrun"
)

// ToolEvidence reads what testrun.CheckToolResult needs of the JUnit file
// at path that a test tool's result names: its size, the sha256 of the
// bytes parsed, and its test cases counted as a run counts them (by test
// id: all, passed, failures + errors, skipped). dir is the directory a
// relative junit_path is relative to. A missing, unreadable or refused
// file, a coverage report or a go test -json stream, is described in Err
// and leaves every count nil; an empty file has Bytes 0. A file that
// parses but holds no test case (<testsuites/>, or suites whose attributes
// count passing tests that are not there) has Total 0, which the gate
// rejects: a tool that ran nothing is not "0 failures". Suites whose
// attributes count failures no test case shows read as one suite-level
// error each, as a run reads them. opts are the limits and run options
// ReadRun takes.
func ToolEvidence(path, dir string, opts ...Option) testrun.JUnitEvidence {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = filepath.Clean(path)
	}
	ev := testrun.JUnitEvidence{Path: abs, Dir: dir}
	fi, err := os.Lstat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ev.Err = "does not exist"
		return ev
	case err != nil:
		ev.Err = err.Error()
		return ev
	case fi.Mode().IsRegular() && fi.Size() == 0:
		return ev // empty: Bytes 0
	}
	cfg := newConfig(opts)
	res, err := parseFile(abs, &cfg)
	ev.Bytes = res.Info.Bytes
	if err != nil {
		ev.Err = Describe(err)
		return ev
	}
	switch {
	case res.Coverage != nil || res.Info.Dialect == DialectCobertura || res.Info.Dialect == DialectLcov:
		ev.Err = "is a coverage report, not a JUnit report"
		return ev
	case res.Info.Dialect == gotestjson.Dialect:
		// The gate's contract names a JUnit file: a report of another
		// format is not the evidence the result points at.
		ev.Err = "is a go test -json stream, not a JUnit report"
		return ev
	}
	ev.SHA256 = res.Info.SHA256
	b := testrun.NewBuilder(cfg.runOpts...)
	b.AddReport(res.Info, res.Executions, nil)
	run := b.Build()
	if !run.Complete {
		ev.Err = "is not read whole: " + strings.Join(run.IncompleteReasons, "; ")
		return ev
	}
	if c := run.Counts; c != nil {
		total, passed, failing, skipped := c.Total, c.Passed, c.Failed+c.Errors, c.Skipped
		ev.Total, ev.Passed, ev.Failing, ev.Skipped = &total, &passed, &failing, &skipped
	}
	return ev
}
