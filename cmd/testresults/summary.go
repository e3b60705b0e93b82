package main

import (
	"fmt"
	"io"

	"github.com/hangar-dev/testresults/testrun"
)

// summary prints runs for people: on stderr, colour only when useColor
// says so, every name from a report escaped (escapeControl).
type summary struct {
	w     io.Writer
	color bool
}

func (s summary) paint(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

// describe prints what run holds, one indented line each: its counts, its
// coverage, its first summaryFailures failures with their ids (the rest
// are counted, to be read in where), its flaky tests, its first
// expected tests that never ran and why it is incomplete.
func (s summary) describe(run *testrun.Run, where string) {
	if c := run.Counts; c != nil {
		line := fmt.Sprintf("  %s: %d passed, %d failed, %s, %d skipped", quantity(c.Total, "test"), c.Passed, c.Failed, quantity(c.Errors, "error"), c.Skipped)
		if c.Flaky > 0 {
			line += fmt.Sprintf(", %d flaky", c.Flaky)
		}
		fmt.Fprintln(s.w, line)
	} else {
		fmt.Fprintln(s.w, "  no test counts: "+s.paint("33", "nothing was counted"))
	}
	if cov := run.Coverage; cov != nil {
		switch {
		case cov.LineRate != nil && cov.LinesCovered != nil && cov.LinesValid != nil:
			fmt.Fprintf(s.w, "  coverage: %.1f%% of lines (%d of %d)\n", *cov.LineRate*100, *cov.LinesCovered, *cov.LinesValid)
		case cov.LineRate != nil:
			fmt.Fprintf(s.w, "  coverage: %.1f%% of lines\n", *cov.LineRate*100)
		case cov.Reason != "":
			fmt.Fprintf(s.w, "  coverage: unknown (%s)\n", escapeControl(cov.Reason))
		}
	}
	for i, f := range run.Failures {
		if i == summaryFailures {
			fmt.Fprintf(s.w, "  ... %d more in %s\n", len(run.Failures)-i, where)
			break
		}
		fmt.Fprintf(s.w, "  %-6s %s\n", s.paint("31", string(f.Outcome)), escapeControl(f.ID))
	}
	for _, id := range run.Flaky {
		fmt.Fprintf(s.w, "  %-6s %s\n", s.paint("33", "flaky"), escapeControl(id))
	}
	if nr := run.NotRun; nr != nil {
		for i, id := range nr.IDs {
			if i == summaryFailures {
				fmt.Fprintf(s.w, "  ... %d more expected tests that never ran (not_run in %s)\n", nr.Count-i, where)
				break
			}
			fmt.Fprintf(s.w, "  %-6s %s\n", s.paint("33", "not run"), escapeControl(id))
		}
	}
	for _, r := range run.IncompleteReasons {
		fmt.Fprintf(s.w, "  %s %s\n", s.paint("33", "incomplete:"), escapeControl(r))
	}
}

// parsed prints the summary of a run that parse read: whether it is
// complete and what describe says of it.
func (s summary) parsed(run *testrun.Run) {
	state := s.paint("32", "complete")
	if !run.Complete {
		state = s.paint("33", "incomplete")
	}
	failed := 0
	for _, r := range run.Reports {
		if r.Error != "" && !r.Skipped {
			failed++
		}
	}
	fmt.Fprintf(s.w, "testresults parse: run %s %s (%d %s, %d refused or partly read)\n",
		escapeControl(run.ID), state, len(run.Reports), plural(len(run.Reports), "report"), failed)
	s.describe(run, "the run on stdout")
}

// quantity is "1 test" or "n tests".
func quantity(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun))
}
