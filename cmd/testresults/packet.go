package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/packet"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
	"github.com/hangar-dev/testresults/translate"
)

func init() {
	register(command{name: "packet", synopsis: "the review packet of a run: Markdown for a pull request or CI summary, or HTML", run: runPacket})
}

type packetOptions struct {
	base, format, repo, env, jobStart string
	store                             *storeFlag
}

func newPacketFlags() (*pflag.FlagSet, *packetOptions) {
	fs := newFlagSet("packet")
	o := &packetOptions{}
	fs.StringVar(&o.base, "base", "", "the base run to compare with (JSON, as parse and run print)")
	fs.StringVar(&o.format, "format", "markdown", "markdown or html")
	o.store = addStoreFlag(fs, "flaky-store", "the flaky list's store, read only with --repo", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository whose flaky list marks the flaky tests and whose history scores the failing ones")
	fs.StringVar(&o.env, "env", "default", "the environment of the flaky list and of the history that scores the failing tests")
	fs.StringVar(&o.jobStart, "job-start", "", "mark the flaky tests from the list as it stood when the job started (RFC 3339; default now)")
	return fs, o
}

func runPacket(ctx context.Context, args []string, env Env) error {
	fs, o := newPacketFlags()
	cf := flagsFor("packet", clidoc.Help("packet"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	fail := cf.usageErr
	format, ferr := packet.ParseFormat(o.format)
	jobStart, terr := timeFlag(cf, "job-start", o.jobStart)
	if o.jobStart == "" {
		jobStart = time.Now()
	}
	switch {
	case fs.NArg() != 1:
		return fail("want one AFTER.json, got %d arguments", fs.NArg())
	case ferr != nil:
		return fail("--format %q: want markdown or html", o.format)
	case o.repo == "" && (fs.Changed("flaky-store") || fs.Changed("env") || fs.Changed("store-max-conns") || fs.Changed("job-start")):
		return fail("--flaky-store, --store-max-conns, --env and --job-start need --repo")
	case o.base == "-" && fs.Arg(0) == "-":
		return fail("only one run can come from stdin")
	case terr != nil:
		return terr
	}
	var base, after *testrun.Run
	var err error
	if o.base != "" {
		if base, err = readRunFile(o.base, env.Stdin); err != nil {
			return rejectedf("base: %v", err)
		}
	}
	if after, err = readRunFile(fs.Arg(0), env.Stdin); err != nil {
		return rejectedf("after: %v", err)
	}
	// A packet is made in the repository's CI job: rerun commands are relative to here.
	in := packet.Input{After: after, Base: base, Repository: "."}
	var cmp []testrun.CompareOption
	var opts []packet.Option
	if o.repo != "" {
		st, err := o.store.openAt(ctx, env)
		if err != nil {
			return cf.withUsage(err)
		}
		defer st.Close()
		l, err := store.ListRun(ctx, st, o.repo, o.env, after, translate.CaseIDs(after), jobStart)
		if err != nil {
			return rejected(err)
		}
		cmp = append(cmp, testrun.WithFlakyList(l.Marks))
		opts = append(opts, packet.WithScores(l.Scores))
		in.FlakyList = fmt.Sprintf("repository %s, environment %s, %s on it", o.repo, o.env, textout.Quantity(l.Listed, "test"))
	}
	in.Comparison = testrun.Compare(base, after, cmp...)
	// The packet escapes report text for its format, not through the terminal escaper.
	return packet.Write(env.Stdout, format, in, opts...)
}
