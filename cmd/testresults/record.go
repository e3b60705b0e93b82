package main

import (
	"context"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// Connections a store opens by default: a short-lived command (run, parse,
// flaky, packet, prune) needs one or two; the server answers many readers.
const (
	shortStoreConns = 2
	serveStoreConns = 16
)

// storeFlag is the one way a command names its store: --store (packet:
// --flaky-store), else $HANGAR_STORE, else ~/.hangar/store.db, and
// --store-max-conns. It is the --store flag's value, so that the recording
// flags find the store flag a command already has.
type storeFlag struct {
	loc      string
	maxConns int
	// optional: no default file; without --store and $HANGAR_STORE there
	// is no store (prune).
	optional bool
}

func (s *storeFlag) String() string     { return s.loc }
func (s *storeFlag) Set(v string) error { s.loc = v; return nil }
func (s *storeFlag) Type() string       { return "string" }

// addStoreFlag registers the store flag name on fs, what the store is for
// first in its help, and --store-max-conns with the default maxConns. An
// optional store has no default file.
func addStoreFlag(fs *pflag.FlagSet, name, what string, maxConns int, optional bool) *storeFlag {
	s := &storeFlag{optional: optional}
	def := "$HANGAR_STORE, else ~/.hangar/store.db"
	if optional {
		def = "$HANGAR_STORE when set"
	}
	fs.Var(s, name, what+": a SQLite file or a postgres:// URL (default: "+def+")")
	fs.IntVar(&s.maxConns, "store-max-conns", maxConns, "the most connections the store opens to its database (0: the store's own bound, 16)")
	return s
}

// location is where the store is (store.Location); "" for an optional
// store that is not named. Errors are *usageError.
func (s *storeFlag) location(env Env) (string, error) {
	if s.maxConns < 0 {
		return "", usagef("--store-max-conns %d: want 0 or more", s.maxConns)
	}
	loc, err := store.Location(s.loc, s.optional, env.Getenv)
	if err != nil {
		return "", usagef("%v", err)
	}
	return loc, nil
}

// open opens the store at loc (from location) within the flag's bound,
// with opts.
func (s *storeFlag) open(ctx context.Context, loc string, opts ...store.Option) (store.Store, error) {
	return store.Open(ctx, loc, append(opts, store.WithMaxConns(s.maxConns))...)
}

// openAt opens the store location names: a store nothing names is a
// *usageError, one that cannot be opened is refused input (exit 3).
func (s *storeFlag) openAt(ctx context.Context, env Env) (store.Store, error) {
	loc, err := s.location(env)
	if err != nil {
		return nil, err
	}
	st, err := s.open(ctx, loc)
	if err != nil {
		return nil, rejected(err)
	}
	return st, nil
}

// storeOptions are the flags that record runs in the store, for the query
// API (testresults serve).
type storeOptions struct {
	fs         *pflag.FlagSet
	store      *storeFlag
	enabled    bool
	repo       string
	jobID      string
	sessionRef string
	turn       int
}

// addStoreFlags registers the recording flags on fs. A --store or --repo
// flag fs already has (flaky's, run's) is shared, not registered twice.
// The runs are recorded for the environment of the --env flag fs has
// (flaky's, run's: the flaky list's), so that their history and scores
// are that environment's; without one (parse), the default environment.
func addStoreFlags(fs *pflag.FlagSet) *storeOptions {
	o := &storeOptions{fs: fs}
	fs.BoolVar(&o.enabled, "record", false, "record the runs in the store, for testresults serve")
	if f := fs.Lookup("store"); f != nil {
		o.store = f.Value.(*storeFlag)
	} else {
		o.store = addStoreFlag(fs, "store", "the store", shortStoreConns, false)
	}
	if fs.Lookup("repo") == nil {
		fs.StringVar(&o.repo, "repo", "", "the repository the runs are tagged with")
	}
	fs.StringVar(&o.jobID, "job-id", "", "the job id the recorded runs are tagged with")
	fs.StringVar(&o.sessionRef, "session-ref", "", "the session ref the recorded runs are tagged with")
	fs.IntVar(&o.turn, "turn-number", -1, "the session turn the recorded runs are tagged with (0 or more)")
	return o
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
	st, err := o.store.openAt(ctx, env)
	if err != nil {
		return err
	}
	defer st.Close()
	var turn *int
	if o.turn >= 0 {
		t := o.turn
		turn = &t
	}
	repo := o.repo
	if f := o.fs.Lookup("repo"); repo == "" && f != nil {
		repo = f.Value.String()
	}
	var envName string
	if f := o.fs.Lookup("env"); f != nil {
		envName = f.Value.String()
	}
	return store.RecordRuns(ctx, st, store.StoredRun{Repo: repo, Environment: envName, JobID: o.jobID, SessionRef: o.sessionRef, Turn: turn}, runs...)
}
