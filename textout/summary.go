package textout

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// SummaryFailures is how many failing ids (and expected tests that never
// ran) a summary lists; the rest are counted.
const SummaryFailures = 10

// Summary prints runs for people: colour only when Color is set and W is
// the terminal writer (which paints it), every name from a report escaped.
type Summary struct {
	W     io.Writer
	Color bool
	// Repository is the folder the check ran in, for the commands that
	// rerun a failing test; "" is the current folder.
	Repository string
}

// SummaryTo is the Summary that prints to w, in colour when w paints it
// (term.Paints) in the environment getenv reads.
func SummaryTo(w io.Writer, getenv func(string) string) Summary {
	return Summary{W: w, Color: term.Paints(w, getenv)}
}

// RunResult is what `testresults run` says of one run of the check.
type RunResult struct {
	Run *testrun.Run
	// Comparison is the run's against its base, nil without one.
	Comparison *testrun.Comparison
	// Notes are what the check noted about how it was run.
	Notes []string
	// Results is the path of TEST-RESULTS.json ("" when it was not
	// written) and ResultsSHA256 its digest as written.
	Results, ResultsSHA256 string
	// Where names the file that lists what the summary leaves out.
	Where string
}

func (s Summary) style(st term.Style, text string) term.Painted { return term.Paint(st, text) }

// printf prints through the terminal writer, which escapes the format and
// every argument and paints the term.Painted ones when colour is on;
// elsewhere Painted values print as their escaped text.
func (s Summary) printf(format string, args ...any) {
	if tw, ok := s.W.(*term.Writer); ok && s.Color {
		_, _ = tw.Printf(format, args...)
		return
	}
	fmt.Fprintf(s.W, format, args...)
}

// Run prints one run of the check: how it ended, what Describe says of it,
// its comparison, notes and where the results are.
func (s Summary) Run(r RunResult) {
	run := r.Run
	style := term.StyleYellow
	switch run.Status {
	case testrun.StatusSuccess:
		style = term.StyleGreen
	case testrun.StatusFailure:
		style = term.StyleRed
	}
	exit := "exit ?"
	if run.ExitCode != nil {
		exit = fmt.Sprintf("exit %d", *run.ExitCode)
	}
	s.printf("testresults: %s (%s, %s)\n", s.style(style, string(run.Status)), exit, run.EndedAt.Sub(run.StartedAt).Round(time.Millisecond))
	s.Describe(run, r.Where)
	if cmp := r.Comparison; cmp != nil {
		switch {
		case !cmp.Available:
			s.printf("  new failures: unknown (%s)\n", term.EscapeLine(cmp.Unavailable))
		case len(cmp.NewFailures) == 0:
			s.printf("  new failures against %s: none\n", term.EscapeLine(cmp.BaseID))
		default:
			ids := make([]string, len(cmp.NewFailures))
			for i, f := range cmp.NewFailures {
				ids[i] = term.EscapeLine(f.ID)
			}
			s.printf("  new failures against %s: %s\n", term.EscapeLine(cmp.BaseID), s.style(term.StyleRed, strings.Join(ids, ", ")))
		}
	}
	for _, n := range r.Notes {
		s.printf("  note: %s\n", term.EscapeLine(n))
	}
	if r.Results != "" {
		// The digest as run wrote it, once nothing the check started
		// ran: a file that no longer has it was changed since.
		s.printf("  results: %s (sha256 %s)\n", term.EscapeLine(r.Results), r.ResultsSHA256)
	}
}

// Parsed prints the summary of a run that parse read: whether it is
// complete and what Describe says of it.
func (s Summary) Parsed(run *testrun.Run) {
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
		term.EscapeLine(run.ID), state, len(run.Reports), Plural(len(run.Reports), "report"), failed)
	s.Describe(run, "the run on stdout")
}

// Describe prints what run holds, one indented line each: its counts, its
// coverage, its first SummaryFailures failures (the rest are counted, to
// be read in where), its flaky tests, its first expected tests that never
// ran and why it is incomplete.
func (s Summary) Describe(run *testrun.Run, where string) {
	s.counts(run)
	for i, f := range run.Failures {
		if i == SummaryFailures {
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
			if i == SummaryFailures {
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

// counts prints the run's counts and coverage.
func (s Summary) counts(run *testrun.Run) {
	if c := run.Counts; c != nil {
		line := fmt.Sprintf("  %s: %d passed, %d failed, %s, %d skipped", Quantity(c.Total, "test"), c.Passed, c.Failed, Quantity(c.Errors, "error"), c.Skipped)
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
}

// failure prints one failing test: its outcome, its id and the headline of
// its message on one line, then the command that reruns it when the
// runner takes one.
func (s Summary) failure(run *testrun.Run, f testrun.Failure) {
	line := term.EscapeLine(f.ID)
	if h := testrun.Headline(f.ID, f.Message); h != "" {
		line += " — " + term.EscapeLine(h)
	}
	s.printf("  %-6s %s\n", s.style(term.StyleRed, string(f.Outcome)), line)
	if argv := testrun.RerunCommand(run, f.ID, testrun.WithRepository(s.repository())); argv != nil {
		s.printf("         rerun: %s\n", term.EscapeLine(testrun.ShellQuote(argv)))
	}
}

func (s Summary) repository() string {
	if s.Repository == "" {
		return "."
	}
	return s.Repository
}

// RunLine says in one line how a run of a check went: its status, exit
// code, duration, counts and report folder.
func RunLine(r *testrun.Run, exitCode int, dir string) string {
	line := fmt.Sprintf("%s (exit %d, %s)", r.Status, exitCode, r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond))
	if c := r.Counts; c != nil {
		line += fmt.Sprintf(", %s, %d failed, %s", Quantity(c.Total, "test"), c.Failed, Quantity(c.Errors, "error"))
	} else {
		line += ", nothing counted"
	}
	return line + ", " + dir
}
