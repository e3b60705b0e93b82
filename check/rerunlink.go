package check

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
)

// MaxRerunBudget bounds a RerunBudget's Budget.
const MaxRerunBudget = 10

// NewTestsFile is the file, in a pair's folder of report folders, that
// holds what the extra runs of the new tests showed (NewTestsResult).
const NewTestsFile = "new-tests.json"

// RerunID is the id of a rerun of the run named runID: runID with suffix
// appended ("-rerun", "-rerun-2"), or "" (a fresh id) when runID is empty
// or the joined id is no longer a valid one.
func RerunID(runID, suffix string) string {
	if runID == "" || !testrun.ValidID(runID+suffix) {
		return ""
	}
	return runID + suffix
}

// Link is how TEST-RESULTS.json of a rerun names the run of r, or the
// first run names its rerun r; excused are the first run's failures the
// flaky list excused (nil for a rerun budget's).
func (r *Result) Link(excused []string) *testrun.RerunLink {
	return &testrun.RerunLink{ID: r.Run.ID, Dir: r.Dir, Status: r.Run.Status, ExitCode: r.Run.ExitCode, Excused: excused}
}

// WriteFile writes r as indented JSON to NewTestsFile in dir.
func (r *NewTestsResult) WriteFile(dir string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, NewTestsFile), append(b, '\n'), 0o644)
}

// How says what the extra runs ran: the selected tests' command line, or
// "the whole check".
func (r *NewTestsResult) How() string {
	if r.Selected {
		return testrun.ShellQuote(r.Argv)
	}
	return "the whole check"
}

// WriteText writes each new test's class, id and outcomes for people, one
// a line under a heading; w escapes what reaches a terminal.
func (r *NewTestsResult) WriteText(w io.Writer) {
	fmt.Fprintln(w, "\nnew tests (absent from every parent run):")
	for _, t := range r.Tests {
		outs := make([]string, len(t.Outcomes))
		for i, o := range t.Outcomes {
			outs[i] = string(o)
			if o == "" {
				outs[i] = "-"
			}
		}
		fmt.Fprintf(w, "  %-17s %s  [%s]\n", t.Class, t.ID, strings.Join(outs, " "))
	}
}

// WriteText writes what a rerun budget of budget reruns concluded for
// people; w escapes what reaches a terminal.
func (b *BudgetResult) WriteText(w io.Writer, budget int) {
	what := "the whole check"
	if b.Selected {
		what = "the failing tests: " + testrun.ShellQuote(b.Argv)
	}
	fmt.Fprintf(w, "rerun budget %d (%s): %s after %d attempts on the same tree\n", budget, what, b.Verdict, b.Attempts)
	if len(b.Flipped) > 0 {
		fmt.Fprintf(w, "  failed, then passed on the same tree: %s\n", strings.Join(b.Flipped, ", "))
		fmt.Fprintf(w, "  the check still fails: a rerun that passed excuses nothing in this job\n")
	}
	if b.Stopped != "" {
		fmt.Fprintf(w, "  reruns stopped: %s\n", b.Stopped)
	}
}
