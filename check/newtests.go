package check

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"

	"github.com/hangar-dev/testresults/testrun"
)

// Early flake detection: a test new in the patch has no parent runs to be
// judged against (the paired verdict holds it inconclusive, missing from
// the parent), so its own runs are all there is. It is run again a few
// times, and a new test that both passed and failed is flaky on arrival:
// not repaired, not broken, and not excused by that (it informs; the
// verdict is unchanged).

// NewTestClass is what the runs of a new test say of it.
type NewTestClass string

// Classes of a new test.
const (
	// NewTestFlaky: it both passed and failed (or errored) on the patch.
	NewTestFlaky NewTestClass = "flaky_on_arrival"
	// NewTestPassing: it passed in every run that ran it.
	NewTestPassing NewTestClass = "new_passing"
	// NewTestFailing: it failed in every run that ran it.
	NewTestFailing NewTestClass = "new_failing"
	// NewTestUnjudged: it was skipped or missing in every run, or only
	// skipped beside runs of one outcome and missing from others.
	NewTestUnjudged NewTestClass = "unjudged"
)

// MaxNewTestRuns bounds the extra runs of new tests a pair makes.
const MaxNewTestRuns = 20

// NewTest is one test new in the patch and what its runs said.
type NewTest struct {
	ID    string       `json:"id"`
	Class NewTestClass `json:"class"`
	// Outcomes are its outcomes in the patch's runs, then in the extra
	// runs ("" where a run did not list it).
	Outcomes []testrun.Outcome `json:"outcomes"`
}

// NewTests returns, sorted, the tests some patch run lists (a case or a
// failure) that no parent run lists.
func NewTests(parent, patch []*testrun.Run) []string {
	old := map[string]bool{}
	for _, r := range parent {
		for _, id := range listed(r) {
			old[id] = true
		}
	}
	seen := map[string]bool{}
	var ids []string
	for _, r := range patch {
		for _, id := range listed(r) {
			if !old[id] && !seen[id] {
				seen[id] = true
				ids = append(ids, id)
			}
		}
	}
	sort.Strings(ids)
	return ids
}

// listed is every test id r lists.
func listed(r *testrun.Run) []string {
	if r == nil {
		return nil
	}
	ids := make([]string, 0, len(r.Cases)+len(r.Failures))
	for id := range r.Cases {
		ids = append(ids, id)
	}
	for _, f := range r.Failures {
		ids = append(ids, f.ID)
	}
	return ids
}

// ClassifyNewTests says of each id what runs show (see NewTestClass).
func ClassifyNewTests(ids []string, runs []*testrun.Run) []NewTest {
	out := make([]NewTest, 0, len(ids))
	for _, id := range ids {
		nt := NewTest{ID: id, Outcomes: make([]testrun.Outcome, len(runs))}
		var passes, fails int
		for i, r := range runs {
			o := r.OutcomeOf(id)
			nt.Outcomes[i] = o
			switch {
			case o == testrun.OutcomePassed:
				passes++
			case o.Failing():
				fails++
			}
		}
		switch {
		case passes > 0 && fails > 0:
			nt.Class = NewTestFlaky
		case passes > 0:
			nt.Class = NewTestPassing
		case fails > 0:
			nt.Class = NewTestFailing
		default:
			nt.Class = NewTestUnjudged
		}
		out = append(out, nt)
	}
	return out
}

// NewTestsResult is what the extra runs of a pair's new tests showed.
type NewTestsResult struct {
	// Argv is the command the extra runs ran; Selected is true when it
	// runs the new tests alone (SelectTests), false for the whole check.
	Argv     []string `json:"argv"`
	Selected bool     `json:"selected"`
	// Runs are the extra runs made, in order (fewer than asked when every
	// new test had already both passed and failed).
	Runs []*testrun.Run `json:"-"`
	// Tests are the new tests, sorted by id.
	Tests []NewTest `json:"tests"`
}

// Flaky lists the ids of the tests flaky on arrival.
func (r *NewTestsResult) Flaky() []string {
	var ids []string
	for _, t := range r.Tests {
		if t.Class == NewTestFlaky {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// Summary says in a line how many new tests there are and how they were
// run again, or that there are none.
func (r *NewTestsResult) Summary() string {
	if len(r.Tests) == 0 {
		return "none (every patch test is in a parent run)"
	}
	return fmt.Sprintf("%d, run %d more times (%s)", len(r.Tests), len(r.Runs), r.How())
}

// NewTestRuns runs the tests new in the patch of res (NewTests) up to n
// more times on the patch, in a worktree of its own made as Run makes it,
// each run's reports under res.Out as new-N, and classifies them over the
// patch's runs and these. The new tests alone are run where the runner
// allows (SelectTests), else the whole check argv. It stops early once
// every new test both passed and failed. No new test, or n 0: no run.
// Errors wrap ErrPair, ErrInterrupted, or ErrMode or ErrReportDir from a
// run.
func (p Pair) NewTestRuns(ctx context.Context, argv []string, res *PairResult, n int) (*NewTestsResult, error) {
	if n < 0 || n > MaxNewTestRuns {
		return nil, fmt.Errorf("%w: %d new-test runs: want 0 to %d", ErrPair, n, MaxNewTestRuns)
	}
	ids := NewTests(res.ParentRuns, res.PatchRuns)
	out := &NewTestsResult{Argv: argv, Tests: ClassifyNewTests(ids, res.PatchRuns)}
	if len(ids) == 0 || n == 0 || allFlaky(out.Tests) {
		return out, nil
	}
	trees, remove, err := p.worktreesFor(ctx, &PairResult{})
	if err != nil {
		return nil, err
	}
	defer remove()
	tree, err := p.patchTree(ctx, trees, "patch-new", res.Patch)
	if err != nil {
		return nil, err
	}
	if sel := SelectTests(res.PatchRuns[0], ids, tree); sel != nil {
		out.Argv, out.Selected = sel, true
	}
	for i := 1; i <= n && !allFlaky(out.Tests); i++ {
		e := PairEvent{Side: "new", N: i, Total: n}
		r, err := p.run(ctx, out.Argv, e, "new-test run", tree, testrun.KindAfterTurn, filepath.Join(res.Out, "new-"+strconv.Itoa(i)))
		if err != nil {
			return nil, err
		}
		out.Runs = append(out.Runs, r)
		out.Tests = ClassifyNewTests(ids, append(append([]*testrun.Run{}, res.PatchRuns...), out.Runs...))
	}
	return out, nil
}

func allFlaky(tests []NewTest) bool {
	for _, t := range tests {
		if t.Class != NewTestFlaky {
			return false
		}
	}
	return len(tests) > 0
}
