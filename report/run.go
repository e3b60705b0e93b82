package report

import (
	"errors"
	"fmt"

	"github.com/hangar-dev/testresults/testrun"
)

// feedBytesPerCase is about the fewest bytes a JUnit report takes per
// test case it holds with a time and a little output (a bare
// <testcase classname=... name=... time=.../> line takes about 100): a
// report's size over it (at most the report's case limit) sizes the
// builder's index of ids, which then takes at most an eighth of the
// report's size; a report of bare cases grows it as before.
const feedBytesPerCase = 256

// ReadRun finds the reports in paths (see Find), reads each (see Parse)
// within the per-report and per-run limits, and builds the run they
// describe. Only the result fields of the run are set (counts, cases,
// failures, flaky, coverage, complete, reports); the caller sets its
// identity and metadata.
//
// A report refused (hostile, over a limit, truncated, binary, malformed, a
// symbolic link, an unknown root named or in the run's own report folder,
// stale in that folder) is listed with its reason and makes the run
// incomplete; a file that is not a report (ErrNotReport) or is stale
// (ErrStale) is listed as skipped. The run is always returned. The error is ErrNoReports (with
// the count of refused and skipped files) when not one report could be read,
// so that a caller can reject the input as a whole.
func ReadRun(paths []string, opts ...Option) (*testrun.Run, error) {
	cfg := newConfig(opts)
	found := find(paths, &cfg)
	b := testrun.NewBuilder(cfg.runOpts...)
	var total int64
	read, refused, skipped, reports := 0, 0, 0, 0
	for _, e := range found.Entries {
		if e.Err != nil {
			b.AddReport(testrun.ReportInfo{Path: e.Path, Bytes: e.Size, Error: Describe(e.Err), Skipped: e.Skip}, nil, nil)
			if e.Skip {
				skipped++
			} else {
				refused++
			}
			continue
		}
		// Only reports count against the files and run bytes limits: a file
		// that is not one (a pom.xml beside the surefire reports) is
		// skipped, whatever its size.
		// The report's own limit comes first: a file over it is refused as
		// too big whatever was read before it, so its reason does not
		// depend on the order the files were found in.
		over := cfg.limits.CheckBytes(e.Size)
		switch {
		case over != nil:
		case reports >= cfg.maxFiles:
			over = &LimitError{Limit: LimitFiles, Max: int64(cfg.maxFiles)}
		case total+e.Size > cfg.maxRunBytes:
			over = &LimitError{Limit: LimitRunBytes, Max: cfg.maxRunBytes}
		}
		cfg.lenientRoot = e.found
		if over != nil {
			if err := sniffFile(e.Path, &cfg); errors.Is(err, ErrNotReport) {
				b.AddReport(testrun.ReportInfo{Path: e.Path, Bytes: e.Size, Error: Describe(err), Skipped: true}, nil, nil)
				skipped++
				continue
			}
			b.AddReport(testrun.ReportInfo{Path: e.Path, Bytes: e.Size, Error: Describe(over)}, nil, nil)
			reports++
			refused++
			continue
		}
		// A JUnit report's executions go to the builder as the parser
		// reads them, to be merged on the second core while the parser
		// goes on (see testrun.Feed); none is gathered in a slice.
		cfg.feed = b.FeedSized(int(min(e.Size/feedBytesPerCase, cfg.limits.MaxCases)))
		res, err := parseFile(e.Path, &cfg)
		if !res.Info.Skipped {
			reports++
			total += res.Info.Bytes
		}
		cfg.feed.End(res.Info, res.Coverage)
		cfg.feed = nil
		switch {
		case err == nil:
			read++
		case res.Info.Skipped:
			skipped++
		default:
			refused++
		}
	}
	for _, r := range found.Reasons {
		b.Incomplete(r)
	}
	run := b.Build()
	if read == 0 {
		return run, fmt.Errorf("%w: %d refused, %d skipped", ErrNoReports, refused, skipped)
	}
	return run, nil
}
