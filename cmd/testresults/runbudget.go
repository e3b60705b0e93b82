package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// maxRerunBudget bounds --rerun-budget.
const maxRerunBudget = 10

// rerunBudget reruns a failed check up to --rerun-budget times on the same
// tree (check.RerunBudget: only its failing tests where the runner allows),
// each rerun, kind rerun, in the report folder's sibling FOLDER-rerun-N
// with its TEST-RESULTS.json naming the first run. The verdict informs: the
// exit code stays the first run's, since nothing the job's own runs show
// excuses its failure. With the flaky list open (--repo), the first run and
// the reruns are recorded on it, so the same-tree flips they show count
// for later jobs; a mass failure records none (store.MassFailure), and run
// says so. It returns the reruns' runs.
func (j *runJob) rerunBudget(ctx context.Context, argv []string, first *check.Result) []*testrun.Run {
	if first.ExitCode == 0 || first.Run.Status != testrun.StatusFailure {
		return nil
	}
	rerunID := func(n int) string {
		id := j.o.runID + "-rerun-" + strconv.Itoa(n)
		if j.o.runID == "" || !testrun.ValidID(id) {
			return ""
		}
		return id
	}
	b := check.RerunBudget{Budget: j.o.rerunBudget, Dir: ".", Options: func(n int) []check.Option {
		return append(j.checkOptions(), check.WithRunID(rerunID(n)), check.WithReportDir(first.Dir+"-rerun-"+strconv.Itoa(n)))
	}}
	signal.Notify(j.sigs, os.Interrupt, syscall.SIGTERM)
	got := b.Run(context.WithoutCancel(ctx), argv, first)
	signal.Stop(j.sigs)
	var runs []*testrun.Run
	link := &testrun.RerunLink{ID: first.Run.ID, Dir: first.Dir, Status: first.Run.Status, ExitCode: first.Run.ExitCode}
	for _, r := range got.Reruns {
		if _, err := j.write(r, testrun.TestResults{RerunOf: link}); err != nil {
			j.say("rerun: %v", err)
		}
		runs = append(runs, r.Run)
		_ = r.Close() // its TEST-RESULTS.json is written above
	}
	j.budgetSummary(got)
	j.recordFlips(ctx, append([]*testrun.Run{first.Run}, runs...))
	return runs
}

// budgetSummary prints what the rerun budget concluded, unless --quiet.
func (j *runJob) budgetSummary(got *check.BudgetResult) {
	if j.o.quiet {
		return
	}
	what := "the whole check"
	if got.Selected {
		what = "the failing tests: " + testrun.ShellQuote(got.Argv)
	}
	w := term.NewWriter(j.env.Stderr)
	fmt.Fprintf(w, "rerun budget %d (%s): %s after %d attempts on the same tree\n", j.o.rerunBudget, what, got.Verdict, got.Attempts)
	if len(got.Flipped) > 0 {
		fmt.Fprintf(w, "  failed, then passed on the same tree: %s\n", strings.Join(got.Flipped, ", "))
		fmt.Fprintf(w, "  the check still fails: a rerun that passed excuses nothing in this job\n")
	}
	if got.Stopped != "" {
		fmt.Fprintf(w, "  reruns stopped: %s\n", got.Stopped)
	}
}

// recordFlips records runs on the flaky list when it is open (--repo):
// the same-tree flips among them become entries that count for later
// jobs. A run the guard takes for a broken environment adds no flip, and
// run says so.
func (j *runJob) recordFlips(ctx context.Context, runs []*testrun.Run) {
	if j.st == nil {
		return
	}
	ctx = context.WithoutCancel(ctx)
	for _, r := range runs {
		if store.MassFailure(r) && !j.o.quiet {
			c := r.Counts
			fmt.Fprintf(j.env.Stderr, "  run %s: %d of %d tests failed (more than %.0f%%): the environment broke, not the tests; it records no flip\n",
				term.EscapeLine(r.ID), c.Failed+c.Errors, c.Passed+c.Failed+c.Errors, testrun.MassFailureShare*100)
		}
		got, err := j.st.Record(ctx, j.o.repo, j.o.envName, r)
		switch {
		case errors.Is(err, testrun.ErrNotRecordable):
			j.say("flaky list: %v", err)
		case err != nil:
			j.say("flaky list: %v", err)
			return
		case len(got.Flaky) > 0 && !j.o.quiet:
			ids := slices.Sorted(maps.Keys(got.Flaky))
			fmt.Fprintf(term.NewWriter(j.env.Stderr), "  on the flaky list from run %s: %s\n", r.ID, strings.Join(ids, ", "))
		}
	}
}
