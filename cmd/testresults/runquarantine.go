package main

import (
	"context"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// quarantined returns run's exit code with --quarantine: exitOK when the
// check failed only by tests quarantined before the job started
// (testrun.Quarantine), else code. It prints which failures were
// quarantined, each entry that no longer counts, and why the run still
// fails.
func (j *runJob) quarantined(ctx context.Context, r *testrun.Run, code int) int {
	if code == exitOK || r.Status != testrun.StatusFailure {
		return code
	}
	q, err := store.QuarantineOf(j.st)
	if err != nil || j.st == nil {
		j.say("quarantine: the store could not be read")
		return code
	}
	failing, err := testrun.ExcusableFailures(r, nil)
	var entries []testrun.QuarantineEntry
	if err == nil {
		if entries, err = q.QuarantineLookup(ctx, j.o.repo, j.o.envName, failing); err != nil {
			j.say("quarantine: %v", err)
			return code
		}
	}
	got := testrun.Quarantine(r, entries, j.o.envName, j.start)
	got.WriteText(term.NewWriter(j.env.Stderr), code, j.o.quiet)
	if !got.Passes {
		return code
	}
	return exitOK
}
