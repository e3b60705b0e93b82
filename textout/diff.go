package textout

import (
	"fmt"
	"io"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// Comparison writes the comparison for people: each new failure with the
// headline of its message and, where its runner takes one, the command
// that reruns it (from the current folder), then the base's failures, the
// fixed and flaky tests, the coverage delta and what the output named.
// Names and messages from reports are escaped by w, a terminal writer, or
// here.
func Comparison(w io.Writer, c testrun.Comparison, after *testrun.Run) {
	fmt.Fprintf(w, "base %s → after %s\n", c.BaseID, c.AfterID)
	switch {
	case !c.Available:
		fmt.Fprintf(w, "comparison unavailable: %s\n", c.Unavailable)
	case len(c.NewFailures) == 0:
		fmt.Fprintln(w, "new failures: none")
	default:
		fmt.Fprintf(w, "new failures (%d):\n", len(c.NewFailures))
		for _, f := range c.NewFailures {
			fmt.Fprintf(w, "  %-7s %s%s\n", f.Outcome, term.EscapeLine(f.ID), headline(f))
			if argv := testrun.RerunCommand(after, f.ID, testrun.WithRepository(".")); argv != nil {
				fmt.Fprintf(w, "          rerun: %s\n", term.EscapeLine(testrun.ShellQuote(argv)))
			}
		}
	}
	if c.BaseFailures != nil {
		fmt.Fprintf(w, "base failures: %d\n", len(c.BaseFailures))
	}
	switch {
	case c.Fixed != nil:
		fmt.Fprintf(w, "fixed (%d)%s\n", len(c.Fixed), ListTail(c.Fixed))
	case c.Available:
		fmt.Fprintln(w, "fixed: unknown (the after run does not list every case)")
	}
	if len(c.Flaky) > 0 {
		ids := make([]string, len(c.Flaky))
		for i, f := range c.Flaky {
			ids[i] = f.ID
		}
		fmt.Fprintf(w, "flaky (%d)%s\n", len(ids), ListTail(ids))
	}
	if c.CoverageDelta != nil {
		fmt.Fprintf(w, "coverage delta: %+.2f points\n", *c.CoverageDelta*100)
	} else {
		fmt.Fprintln(w, "coverage delta: unknown")
	}
	for _, f := range c.OutputFailures {
		fmt.Fprintf(w, "output names %s (%s): %s\n", f.ID, f.Runner, f.Line)
	}
}

// headline is " — " and the line of f's message that says what failed, ""
// when none does.
func headline(f testrun.Failure) string {
	h := testrun.Headline(f.ID, f.Message)
	if h == "" {
		return ""
	}
	return " — " + term.EscapeLine(testrun.Clip(h, 120))
}
