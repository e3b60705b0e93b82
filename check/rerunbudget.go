package check

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
)

// RerunBudget reruns a failing check on the same tree, up to Budget times,
// and stops at the first pass (testrun.DecideReruns). A rerun runs only the
// first run's failing tests when they are known whole and the runner allows
// selecting them (SelectTests), else the whole check.
//
// What it concludes informs; it never excuses the failure: a pass on a
// rerun is a same-tree flip, evidence for the flaky list that excuses in
// later jobs (testrun.Excuse), not in this one. Recording the first run and
// the reruns in a store records those flips.
type RerunBudget struct {
	// Budget is the most reruns (K >= 0).
	Budget int
	// Dir is the folder the check ran in ("" the current folder), where
	// the selected tests are looked up.
	Dir string
	// Options returns the options of rerun n (from 1): at least its own
	// report folder; kind rerun is added after them.
	Options func(n int) []Option
}

// BudgetResult is what a rerun budget ran and concluded.
type BudgetResult struct {
	Verdict testrun.RerunVerdict `json:"verdict"`
	// Attempts counts the first run and the reruns made.
	Attempts int `json:"attempts"`
	// Argv is the command the reruns ran; Selected is true when it runs
	// the failing tests alone.
	Argv     []string `json:"argv,omitempty"`
	Selected bool     `json:"selected"`
	// Failing are the first run's failing tests (empty when not known
	// whole: a rerun then passes only by its exit code).
	Failing []string `json:"failing"`
	// Flipped are the failing tests that passed in a rerun on the same
	// tree, sorted.
	Flipped []string `json:"flipped"`
	// Stopped says why the reruns stopped before a pass or the budget
	// ("" when they did not): a rerun on another tree, or one that could
	// not run.
	Stopped string `json:"stopped,omitempty"`
	// Reruns are the reruns' results in order; the caller closes them.
	Reruns []*Result `json:"-"`
}

// Run reruns the check argv after its first run first failed, and returns
// what the budget concluded; a first run that passed is RerunPassed with
// nothing rerun. ctx ending stops the reruns.
func (b RerunBudget) Run(ctx context.Context, argv []string, first *Result) *BudgetResult {
	res := &BudgetResult{Argv: argv, Failing: []string{}, Flipped: []string{}}
	if failing, err := testrun.FailingIDs(first.Run); err == nil && len(failing) > 0 {
		for id := range failing {
			res.Failing = append(res.Failing, id)
		}
		sort.Strings(res.Failing)
		if sel := SelectTests(first.Run, res.Failing, b.Dir); sel != nil {
			res.Argv, res.Selected = sel, true
		}
	}
	if first.Run.Tree == "" {
		// Without the first run's tree digest no rerun can be shown to
		// run on the same tree.
		res.Stopped = "the first run has no tree digest (not a git work tree?)"
	}
	flipped := map[string]bool{}
	verdict, n := testrun.DecideReruns(max(b.Budget, 0), func(n int) bool {
		if n == 0 {
			return passed(first, nil)
		}
		if res.Stopped != "" {
			return false
		}
		if ctx.Err() != nil {
			res.Stopped = "interrupted"
			return false
		}
		var opts []Option
		if b.Options != nil {
			opts = b.Options(n)
		}
		r, err := Run(ctx, res.Argv, append(opts, WithKind(testrun.KindRerun, ""))...)
		if r == nil {
			res.Stopped = fmt.Sprintf("rerun %d could not run: %v", n, err)
			return false
		}
		res.Reruns = append(res.Reruns, r)
		if r.Run.Tree == "" || r.Run.Tree != first.Run.Tree {
			res.Stopped = fmt.Sprintf("rerun %d ran on tree %q, not the first run's %q", n, r.Run.Tree, first.Run.Tree)
			return false
		}
		for _, id := range res.Failing {
			if r.Run.Cases[id] == testrun.OutcomePassed {
				flipped[id] = true
			}
		}
		var want []string
		if res.Selected {
			want = res.Failing
		}
		return passed(r, want)
	})
	res.Verdict, res.Attempts = verdict, 1+len(res.Reruns)
	if verdict == testrun.RerunPassed {
		res.Attempts = n
	}
	for id := range flipped {
		res.Flipped = append(res.Flipped, id)
	}
	sort.Strings(res.Flipped)
	return res
}

// passed reports whether the check of r passed: exit code 0 and status
// success; with want, also each of those tests passed in its run (a
// selection that ran none of them is no pass).
func passed(r *Result, want []string) bool {
	if r.ExitCode != 0 || r.Run.Status != testrun.StatusSuccess {
		return false
	}
	for _, id := range want {
		if r.Run.Cases[id] != testrun.OutcomePassed {
			return false
		}
	}
	return true
}

// rerunBudget runs the rerun budget after a failed first run, each rerun's
// TEST-RESULTS.json naming the first run, and records the first run and
// the reruns on the flaky list; nil when the first run did not fail.
func (r *jobRun) rerunBudget(ctx context.Context, argv []string, first *Result) *BudgetResult {
	if !failed(first) {
		return nil
	}
	b := RerunBudget{Budget: r.RerunBudget, Dir: r.dir, Options: func(n int) []Option {
		suffix := "-rerun-" + strconv.Itoa(n)
		return append(r.options(), WithRunID(RerunID(r.runID, suffix)), WithReportDir(first.Dir+suffix))
	}}
	r.listen(true)
	got := b.Run(context.WithoutCancel(ctx), argv, first)
	r.listen(false)
	runs := []*testrun.Run{first.Run}
	for _, rr := range got.Reruns {
		if _, err := rr.WriteTestResults(testrun.TestResults{Run: rr.Run, RerunOf: first.Link(nil)}); err != nil {
			r.fail(fmt.Errorf("rerun: %w", err))
		}
		runs = append(runs, rr.Run)
		_ = rr.Close() // its TEST-RESULTS.json is written above
	}
	if !r.Quiet {
		got.WriteText(r.text(), r.RerunBudget)
	}
	r.recordFlips(context.WithoutCancel(ctx), runs)
	return got
}

// recordFlips records runs on the flaky list: the same-tree flips among
// them become entries that count for later jobs. A run the guard takes
// for a broken environment adds no flip (testrun.MassFailure), and the job
// says so.
func (r *jobRun) recordFlips(ctx context.Context, runs []*testrun.Run) {
	if r.list == nil || r.list.Record == nil {
		return
	}
	for _, run := range runs {
		if n := testrun.MassFailureNote(run); n != "" {
			r.say("  %s\n", r.escape(n))
		}
		ids, err := r.list.Record(ctx, run)
		switch {
		case errors.Is(err, testrun.ErrNotRecordable):
			r.fail(fmt.Errorf("flaky list: %w", err))
		case err != nil:
			r.fail(fmt.Errorf("flaky list: %w", err))
			return
		case len(ids) > 0:
			r.say("  on the flaky list from run %s: %s\n", run.ID, strings.Join(ids, ", "))
		}
	}
}
