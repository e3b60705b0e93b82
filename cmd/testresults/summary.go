package main

import (
	"fmt"
	"io"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// summary prints runs for people: on stderr, colour only when useColor
// says so and w is the terminal writer (which paints it), every name from
// a report escaped.
type summary struct {
	w     io.Writer
	color bool
	// repo is the folder the check ran in, for the rerun commands; "" is
	// the current folder.
	repo string
}

// style is text to print in st through printf.
func (s summary) style(st term.Style, text string) term.Painted { return term.Paint(st, text) }

// printf prints through the terminal writer, which escapes the format and
// every argument and paints the term.Painted ones when colour is on;
// elsewhere Painted values print as their escaped text.
func (s summary) printf(format string, args ...any) {
	if tw, ok := s.w.(*term.Writer); ok && s.color {
		tw.Printf(format, args...)
		return
	}
	fmt.Fprintf(s.w, format, args...)
}

// failure prints one failing test: its outcome, its id and the headline of
// its message on one line, then the command that reruns it when the
// runner takes one.
func (s summary) failure(run *testrun.Run, f testrun.Failure) {
	line := term.EscapeLine(f.ID)
	if h := testrun.Headline(f.ID, f.Message); h != "" {
		line += " — " + term.EscapeLine(h)
	}
	s.printf("  %-6s %s\n", s.style(term.StyleRed, string(f.Outcome)), line)
	repo := s.repo
	if repo == "" {
		repo = "."
	}
	if argv := testrun.RerunCommand(run, f.ID, testrun.WithRepository(repo)); argv != nil {
		s.printf("         rerun: %s\n", term.EscapeLine(testrun.ShellQuote(argv)))
	}
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
		s.printf("%s\n", line)
	} else {
		s.printf("  no test counts: %s\n", s.style(term.StyleYellow, "nothing was counted"))
	}
	if cov := run.Coverage; cov != nil {
		switch {
		case cov.LineRate != nil && cov.LinesCovered != nil && cov.LinesValid != nil:
			s.printf("  coverage: %.1f%% of lines (%d of %d)\n", *cov.LineRate*100, *cov.LinesCovered, *cov.LinesValid)
		case cov.LineRate != nil:
			s.printf("  coverage: %.1f%% of lines\n", *cov.LineRate*100)
		case cov.Reason != "":
			s.printf("  coverage: unknown (%s)\n", term.EscapeLine(cov.Reason))
		}
	}
	for i, f := range run.Failures {
		if i == summaryFailures {
			s.printf("  ... %d more in %s\n", len(run.Failures)-i, where)
			break
		}
		s.failure(run, f)
	}
	for _, id := range run.Flaky {
		s.printf("  %-6s %s\n", s.style(term.StyleYellow, "flaky"), term.EscapeLine(id))
	}
	if nr := run.NotRun; nr != nil {
		for i, id := range nr.IDs {
			if i == summaryFailures {
				s.printf("  ... %d more expected tests that never ran (not_run in %s)\n", nr.Count-i, where)
				break
			}
			s.printf("  %-6s %s\n", s.style(term.StyleYellow, "not run"), term.EscapeLine(id))
		}
	}
	for _, r := range run.IncompleteReasons {
		s.printf("  %s %s\n", s.style(term.StyleYellow, "incomplete:"), term.EscapeLine(r))
	}
}

// parsed prints the summary of a run that parse read: whether it is
// complete and what describe says of it.
func (s summary) parsed(run *testrun.Run) {
	state := s.style(term.StyleGreen, "complete")
	if !run.Complete {
		state = s.style(term.StyleYellow, "incomplete")
	}
	failed := 0
	for _, r := range run.Reports {
		if r.Error != "" && !r.Skipped {
			failed++
		}
	}
	s.printf("testresults parse: run %s %s (%d %s, %d refused or partly read)\n",
		term.EscapeLine(run.ID), state, len(run.Reports), plural(len(run.Reports), "report"), failed)
	s.describe(run, "the run on stdout")
}

// quantity is "1 test" or "n tests".
func quantity(n int, noun string) string {
	return fmt.Sprintf("%d %s", n, plural(n, noun))
}
