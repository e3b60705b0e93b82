package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
)

func init() {
	register(command{name: "prune", synopsis: "apply the retention of run folders and per-case maps", run: runPrune})
}

var pruneUsage = fmt.Sprintf(clidoc.Help("prune"), int(check.RunRetention.Hours()/24), int(check.CasesRetention.Hours()/24), int(check.BaseCasesRetention.Hours()/24))

type pruneOptions struct {
	dir   string
	now   string
	store *storeFlag
	quiet bool
}

func newPruneFlags() (*pflag.FlagSet, *pruneOptions) {
	o := &pruneOptions{}
	fs := newFlagSet("prune")
	fs.StringVar(&o.dir, "dir", "", "the folder of run folders (default $HOME/.hangar/tests)")
	fs.StringVar(&o.now, "now", "", "the time to prune as of (RFC 3339; default now)")
	o.store = addStoreFlag(fs, "store", "also prune the runs recorded in this store", shortStoreConns, true)
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "nothing on stderr")
	return fs, o
}

func runPrune(ctx context.Context, args []string, env Env) error {
	fs, o := newPruneFlags()
	cf := flagsFor("prune", pruneUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	usageErr := cf.usageErr
	if fs.NArg() > 0 {
		return usageErr("unexpected arguments %q", fs.Args())
	}
	now, err := timeFlag(cf, "now", o.now)
	if err != nil {
		return err
	}
	if now.IsZero() {
		now = time.Now()
	}
	dir, err := check.RunsDirOr(o.dir, env.Getenv)
	if err != nil {
		return usageErr("%v", err)
	}
	loc, err := o.store.location(env)
	if err != nil {
		return usageErr("%v", err)
	}
	p, err := check.Prune(dir, now)
	if err != nil {
		return err
	}
	out := struct {
		*check.Pruned
		Store *store.PrunedRuns `json:"store,omitempty"`
	}{Pruned: p}
	var serr error // the folders pruned are said whatever the store does
	if loc != "" {
		var pr store.PrunedRuns
		if pr, serr = store.PruneAt(ctx, loc, now, store.WithMaxConns(o.store.maxConns)); serr == nil {
			out.Store = &pr
		}
	}
	if err := writeJSON(env.Stdout, out); err != nil {
		return err
	}
	if !o.quiet {
		for _, l := range p.Lines() {
			fmt.Fprintln(env.Stderr, term.EscapeLine(l))
		}
		if out.Store != nil {
			fmt.Fprintf(env.Stderr, "testresults prune: store: %d runs removed, %d per-case maps dropped\n", out.Store.Runs, out.Store.Cases)
		}
	}
	return serr
}
