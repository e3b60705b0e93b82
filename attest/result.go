package attest

import (
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
)

// Result is the test-result predicate's result.
type Result string

// The predicate's results.
const (
	ResultPassed Result = "PASSED"
	ResultWarned Result = "WARNED"
	ResultFailed Result = "FAILED"
)

// Valid reports whether r is one of the predicate's three results.
func (r Result) Valid() bool {
	return r == ResultPassed || r == ResultWarned || r == ResultFailed
}

// Facts are what the result is decided from: the run's counted flag, its
// counts and how the check ended. They are the run's (FactsOf) when a
// statement is made, and the extension's when one is verified, so both
// sides apply the same rule.
type Facts struct {
	Counted bool
	// NotCounted says why the run is not counted (empty when it is).
	NotCounted []string
	Counts     *testrun.Counts
	Status     testrun.Status
	ExitCode   *int
}

// FactsOf returns the facts of run. Counted is recomputed by the run's own
// rule (testrun.Run.Counted), never read from a file.
func FactsOf(run *testrun.Run) Facts {
	f := Facts{Counted: run.Counted(), Counts: run.Counts, Status: run.Status, ExitCode: run.ExitCode}
	if f.Counted {
		return f
	}
	if !run.Trusted() {
		f.NotCounted = append(f.NotCounted, fmt.Sprintf("not trusted (kind %s%s)", orNull(string(run.Kind)), gradeNote(run.Kind, run.Grade)))
	}
	switch {
	case run.Counts == nil:
		f.NotCounted = append(f.NotCounted, "no counts: no report was read whole")
	case run.Counts.Total == 0:
		f.NotCounted = append(f.NotCounted, "no test ran (total 0)")
	}
	if !run.Complete {
		why := "incomplete"
		if len(run.IncompleteReasons) > 0 {
			why += ": " + strings.Join(run.IncompleteReasons, "; ")
		}
		f.NotCounted = append(f.NotCounted, why)
	}
	return f
}

// gradeNote names the grade of a run of kind grader ("" for other kinds).
func gradeNote(kind testrun.Kind, grade string) string {
	if kind == testrun.KindGrader {
		return ", grade " + orNull(grade)
	}
	return ""
}

func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}

// Decide is the one rule of the predicate's result. It is PASSED only when
// the run is counted, no test failed or errored, and the check did not end
// in failure (a non-zero exit code), a timeout or a signal; WARNED when all
// of that holds but some tests are flaky (they passed after failing);
// FAILED otherwise. A run that is not counted is never PASSED nor WARNED:
// absence of evidence is not a pass. The reasons say why the result is not
// PASSED (none when it is).
func Decide(f Facts) (Result, []string) {
	var reasons []string
	if !f.Counted || f.Counts == nil {
		why := "the run is not counted"
		if f.Counted {
			why += ": it has no counts"
		} else if len(f.NotCounted) > 0 {
			why += ": " + strings.Join(f.NotCounted, "; ")
		}
		reasons = append(reasons, why)
	}
	c := f.Counts
	if c != nil && c.Failed+c.Errors > 0 {
		reasons = append(reasons, fmt.Sprintf("%d failed and %d errored tests", c.Failed, c.Errors))
	}
	switch f.Status {
	case testrun.StatusFailure, testrun.StatusTimedOut, testrun.StatusAborted:
		why := "the check ended with status " + string(f.Status)
		if f.ExitCode != nil {
			why += fmt.Sprintf(" (exit code %d)", *f.ExitCode)
		}
		reasons = append(reasons, why)
	default:
		// A non-zero exit code is a check that ended in failure, whatever
		// status (or none) the run gives beside it.
		if f.ExitCode != nil && *f.ExitCode != 0 {
			reasons = append(reasons, fmt.Sprintf("the check exited with code %d", *f.ExitCode))
		}
	}
	if len(reasons) > 0 {
		return ResultFailed, reasons
	}
	if c != nil && c.Flaky > 0 {
		return ResultWarned, []string{fmt.Sprintf("%d flaky tests (passed after failing)", c.Flaky)}
	}
	return ResultPassed, nil
}
