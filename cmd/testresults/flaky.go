package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "flaky", synopsis: "the per-repository flaky list: record, list, prune, check, summary", run: runFlaky, words: flakySubcommands})
}

var flakyUsage = clidoc.Help("flaky")

type flakyOptions struct {
	store                     *storeFlag
	rec                       *storeOptions
	repo, env, jobStart, base string
	limit                     int
	json                      bool
}

func newFlakyFlags() (*pflag.FlagSet, *flakyOptions) {
	fs := newFlagSet("flaky")
	o := &flakyOptions{}
	o.store = addStoreFlag(fs, "store", "the store", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository (record, check; a filter for list)")
	fs.StringVar(&o.env, "env", "default", "the environment (record, check; a filter for list when set)")
	fs.StringVar(&o.jobStart, "job-start", "", "check: when the job started (RFC 3339)")
	fs.StringVar(&o.base, "base", "", "check: the base run; only the failures new against it need an excuse")
	fs.IntVar(&o.limit, "limit", 10, "summary: how many repositories")
	fs.BoolVar(&o.json, "json", false, "print JSON on stdout")
	o.rec = addStoreFlags(fs)
	return fs, o
}

// flakyCall is one subcommand of flaky with what it works on.
type flakyCall struct {
	o        *flakyOptions
	env      Env
	st       store.Store
	runs     []*testrun.Run
	base     *testrun.Run
	jobStart time.Time
	// fail is a store's error, exit 3, named for the subcommand.
	fail func(error) error
}

// flakySubcommands are the words runFlaky takes after its flags.
var flakySubcommands = []string{"record", "list", "prune", "check", "summary", "quarantine"}

var flakyRun = map[string]func(context.Context, flakyCall) error{
	"record":  flakyRecord,
	"list":    flakyList,
	"prune":   flakyPrune,
	"summary": flakySummary,
	"check":   flakyCheck,
}

func runFlaky(ctx context.Context, args []string, env Env) error {
	if len(args) > 0 && args[0] == "quarantine" {
		return runQuarantine(ctx, args[1:], env)
	}
	fs, o := newFlakyFlags()
	cf := flagsFor("flaky", flakyUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cf.usageErr("no subcommand (record, list, prune, check or summary)")
	}
	sub, rest := fs.Arg(0), fs.Args()[1:]
	c := flakyCall{o: o, env: env}
	if err := c.checkArgs(cf, sub, rest); err != nil {
		return err
	}
	loc, err := o.store.location(env)
	if err != nil {
		return cf.usageErr("%v", err)
	}
	// Runs are read before the store opens: a bad file changes nothing.
	if c.runs, err = testrun.ReadRunFiles(rest, env.Stdin); err != nil {
		return rejected(err)
	}
	if o.base != "" {
		if c.base, err = readRunFile(o.base, env.Stdin); err != nil {
			return rejectedf("--base: %v", err)
		}
	}
	if c.st, err = o.store.open(ctx, loc); err != nil {
		return rejected(err)
	}
	defer c.st.Close()
	c.fail = func(err error) error { return &subError{sub: sub, err: rejected(err)} }
	return flakyRun[sub](ctx, c)
}

// checkArgs checks the arguments and flags of sub.
func (c *flakyCall) checkArgs(cf *cmdFlags, sub string, rest []string) error {
	o := c.o
	if _, ok := flakyRun[sub]; !ok {
		return cf.usageErr("unknown subcommand %q", sub)
	}
	if o.base != "" && sub != "check" {
		return cf.usageErr("--base is for check")
	}
	switch sub {
	case "record":
		if o.repo == "" || len(rest) == 0 {
			return cf.usageErr("record needs --repo and at least one RUN.json")
		}
	case "check":
		if o.repo == "" || len(rest) != 1 || o.jobStart == "" {
			return cf.usageErr("check needs --repo, --job-start and one RUN.json")
		}
		if o.base == "-" && rest[0] == "-" {
			return cf.usageErr("only one run can come from stdin")
		}
		var err error
		c.jobStart, err = timeFlag(cf, "job-start", o.jobStart)
		return err
	default:
		if len(rest) > 0 {
			return cf.usageErr("%s takes no arguments", sub)
		}
	}
	return nil
}

func (c flakyCall) out(v any, human func(io.Writer)) error {
	return printOut(c.env, c.o.json, v, human)
}

func flakyList(ctx context.Context, c flakyCall) error {
	f := store.Filter{Repository: c.o.repo}
	if c.o.rec.fs.Changed("env") {
		f.Environment = c.o.env
	}
	entries, scores, err := store.ListScored(ctx, c.st, f)
	if err != nil {
		return c.fail(err)
	}
	scored := textout.FlakyListEntries(entries, scores)
	return c.out(scored, func(w io.Writer) { textout.FlakyList(w, scored) })
}

func flakyPrune(ctx context.Context, c flakyCall) error {
	n, err := c.st.Prune(ctx)
	if err != nil {
		return c.fail(err)
	}
	return c.out(map[string]int64{"pruned": n}, func(w io.Writer) { fmt.Fprintf(w, "pruned %d entries\n", n) })
}

func flakySummary(ctx context.Context, c flakyCall) error {
	sum, err := c.st.Summary(ctx, c.o.limit)
	if err != nil {
		return c.fail(err)
	}
	return c.out(sum, func(w io.Writer) { textout.FlakySummary(w, sum) })
}

func flakyRecord(ctx context.Context, c flakyCall) error {
	if err := c.o.rec.record(ctx, c.env, c.runs...); err != nil {
		return c.fail(err)
	}
	lines, err := store.RecordFlaky(ctx, c.st, c.o.repo, c.o.env, c.runs...)
	if err != nil {
		return c.fail(err)
	}
	return c.out(lines, func(w io.Writer) { textout.FlakyRecords(w, lines) })
}

// flakyCheck answers which failures of the run the list excuses
// (store.CheckFlaky), each with its entry; exit 1 unless none failed or the
// run is transient.
func flakyCheck(ctx context.Context, c flakyCall) error {
	r := c.runs[0]
	e, entries, err := store.CheckFlaky(ctx, c.st, c.o.repo, c.o.env, r, c.base, c.jobStart)
	if err != nil {
		return c.fail(err)
	}
	res := textout.NewFlakyCheck(r.ID, c.jobStart, e, entries)
	if err := c.out(res, res.Write); err != nil {
		return err
	}
	return failedIf(res.Failed())
}
