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
	"github.com/hangar-dev/testresults/testrun"
)

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
	b := check.RerunBudget{Budget: j.o.rerunBudget, Dir: ".", Options: func(n int) []check.Option {
		return append(j.checkOptions(), check.WithRunID(check.RerunID(j.o.runID, "-rerun-"+strconv.Itoa(n))), check.WithReportDir(first.Dir+"-rerun-"+strconv.Itoa(n)))
	}}
	signal.Notify(j.sigs, os.Interrupt, syscall.SIGTERM)
	got := b.Run(context.WithoutCancel(ctx), argv, first)
	signal.Stop(j.sigs)
	var runs []*testrun.Run
	link := first.Link(nil)
	for _, r := range got.Reruns {
		if _, err := j.write(r, testrun.TestResults{RerunOf: link}); err != nil {
			j.say("rerun: %v", err)
		}
		runs = append(runs, r.Run)
		_ = r.Close() // its TEST-RESULTS.json is written above
	}
	if !j.o.quiet {
		got.WriteText(term.NewWriter(j.env.Stderr), j.o.rerunBudget)
	}
	j.recordFlips(ctx, append([]*testrun.Run{first.Run}, runs...))
	return runs
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
		if n := testrun.MassFailureNote(r); n != "" && !j.o.quiet {
			fmt.Fprintf(j.env.Stderr, "  %s\n", term.EscapeLine(n))
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
