package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// storeOptions are the flags that record runs in the store, for the query
// API (testresults serve).
type storeOptions struct {
	fs         *pflag.FlagSet
	enabled    bool
	store      string
	repo       string
	jobID      string
	sessionRef string
	turn       int
}

// addStoreFlags registers the recording flags on fs. A --store or --repo
// flag fs already has (flaky's) is shared, not registered twice.
func addStoreFlags(fs *pflag.FlagSet) *storeOptions {
	o := &storeOptions{fs: fs}
	fs.BoolVar(&o.enabled, "record", false, "record the runs in the store, for testresults serve")
	if fs.Lookup("store") == nil {
		fs.StringVar(&o.store, "store", "", "the store: a SQLite file or a postgres:// URL (default: $HANGAR_STORE, else ~/.hangar/store.db)")
	}
	if fs.Lookup("repo") == nil {
		fs.StringVar(&o.repo, "repo", "", "the repository the runs are tagged with")
	}
	fs.StringVar(&o.jobID, "job-id", "", "the job id the recorded runs are tagged with")
	fs.StringVar(&o.sessionRef, "session-ref", "", "the session ref the recorded runs are tagged with")
	fs.IntVar(&o.turn, "turn-number", -1, "the session turn the recorded runs are tagged with (0 or more)")
	return o
}

// value is flag name's value, shared or own.
func (o *storeOptions) value(name, own string) string {
	if own != "" {
		return own
	}
	if f := o.fs.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// record stores runs when --record was given (or any tag flag is set), and
// does nothing otherwise. Errors are *usageError for bad flags.
func (o *storeOptions) record(ctx context.Context, env Env, runs ...*testrun.Run) error {
	if !o.enabled && !o.fs.Changed("job-id") && !o.fs.Changed("session-ref") {
		return nil
	}
	if o.fs.Changed("turn-number") && o.turn < 0 {
		return usagef("--turn-number %d: want 0 or more", o.turn)
	}
	loc, err := storeLocation(o.value("store", o.store), env)
	if err != nil {
		return err
	}
	st, err := store.Open(ctx, loc)
	if err != nil {
		return err
	}
	defer st.Close()
	var turn *int
	if o.turn >= 0 {
		t := o.turn
		turn = &t
	}
	for _, r := range runs {
		if _, err := st.RecordRun(ctx, store.StoredRun{
			Run: r, Repo: o.value("repo", o.repo), JobID: o.jobID, SessionRef: o.sessionRef, Turn: turn,
		}); err != nil {
			return fmt.Errorf("record %s: %w", r.ID, err)
		}
	}
	return nil
}
