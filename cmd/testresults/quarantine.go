package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

var quarantineUsage = clidoc.Help("flaky-quarantine")

type quarantineOptions struct {
	store                                   *storeFlag
	repo, env, test, owner, reason, expires string
	json                                    bool
}

func newQuarantineFlags() (*pflag.FlagSet, *quarantineOptions) {
	fs := newFlagSet("flaky quarantine")
	o := &quarantineOptions{}
	o.store = addStoreFlag(fs, "store", "the store", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository (a filter for list)")
	fs.StringVar(&o.env, "env", "", "the one environment the entry applies to (default: every environment)")
	fs.StringVar(&o.test, "test", "", "the test id")
	fs.StringVar(&o.owner, "owner", "", "add: who answers for the entry")
	fs.StringVar(&o.reason, "reason", "", "add: why the test is quarantined")
	fs.StringVar(&o.expires, "expires", "", "add: when it stops counting: a date, an RFC 3339 time or a duration (72h, 14d)")
	fs.BoolVar(&o.json, "json", false, "list: print JSON on stdout")
	return fs, o
}

// runQuarantine is 'testresults flaky quarantine'.
func runQuarantine(ctx context.Context, args []string, env Env) error {
	fs, o := newQuarantineFlags()
	cf := flagsFor("flaky quarantine", quarantineUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return cf.usageErr("want one subcommand: add, remove or list")
	}
	sub := fs.Arg(0)
	entry, err := o.entry(cf, sub, time.Now())
	if err != nil {
		return err
	}
	st, err := o.store.openAt(ctx, env)
	if err != nil {
		return cf.withUsage(err)
	}
	defer st.Close()
	q, err := store.QuarantineOf(st)
	if err != nil {
		return rejected(err)
	}
	fail := func(err error) error { return &subError{sub: "quarantine " + sub, err: rejected(err)} }
	w := term.NewWriter(env.Stdout)
	switch sub {
	case "add":
		got, replaced, err := q.AddQuarantine(ctx, entry)
		if err != nil {
			return fail(err)
		}
		textout.QuarantineAdded(w, got, replaced)
	case "remove":
		removed, err := q.RemoveQuarantine(ctx, o.repo, o.env, o.test)
		if err != nil {
			return fail(err)
		}
		line := textout.QuarantineRemoved(o.repo, o.env, o.test, removed)
		if !removed {
			return &subError{sub: "quarantine remove", err: &exitCode{code: exitFailed, msg: line}}
		}
		fmt.Fprint(w, line)
	case "list":
		entries, err := q.QuarantineList(ctx, o.repo)
		if err != nil {
			return fail(err)
		}
		now := time.Now()
		return printOut(env, o.json, testrun.QuarantineListing(entries, now), func(w io.Writer) { textout.QuarantineList(w, entries, now) })
	}
	return nil
}

// entry checks the flags of sub and returns the entry they name (add,
// remove), judged by testrun's rule: the one the store and the query API
// apply.
func (o *quarantineOptions) entry(cf *cmdFlags, sub string, now time.Time) (testrun.QuarantineEntry, error) {
	e := testrun.QuarantineEntry{Repository: o.repo, Environment: o.env, TestID: o.test, Owner: o.owner, Reason: o.reason}
	switch sub {
	case "list":
		return e, nil
	case "remove":
		if err := testrun.CheckQuarantineKey(o.repo, o.env, o.test); err != nil {
			return e, cf.usageErr("remove: %v (--repo, --test, --env)", err)
		}
		return e, nil
	case "add":
	default:
		return e, cf.usageErr("unknown subcommand %q (add, remove or list)", sub)
	}
	if o.expires != "" {
		t, err := testrun.ParseExpiry(o.expires, now)
		if err != nil {
			return e, cf.usageErr("--expires: %v", err)
		}
		e.Expires = t
	}
	if err := testrun.CheckQuarantine(e, now); err != nil {
		return e, cf.usageErr("add: %v (add needs --repo, --test, --owner, --reason and --expires)", err)
	}
	return e, nil
}
