package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/packet"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "packet", synopsis: "the review packet of a run: Markdown for a pull request or CI summary, or HTML", run: runPacket})
}

const packetUsage = `Usage: testresults packet [flags] [--base BASE.json] AFTER.json

Writes the review packet of the run AFTER.json on stdout: its pass, fail,
error and skip counts, whether it is complete and counted, the new failures
against the base with their messages, the base's own failures, fixed tests,
flaky tests and the coverage change. When the comparison is not exact (a
run is incomplete or does not list its failures whole) it says so and why.
Without --base it shows the run's own failures and says that no base was
given. Lists show 50 entries each and say how many were left out; the
Markdown stays under 60,000 bytes (GitHub comments hold 65,536).

The Markdown fits a pull-request comment or a CI step summary:

  testresults packet --base base.json after.json >> "$GITHUB_STEP_SUMMARY"

With --repo, flaky tests are marked when they are on the repository's flaky
list as it stood when the job started (--job-start, default now), read from
--flaky-store, else $HANGAR_STORE, else ~/.hangar/store.db (a postgres://
URL names a shared store).

Exit codes: 0 the packet was written (it informs, it does not gate);
1 stdout could not be written; 2 usage error; 3 a run could not be read,
or the store failed.

Flags:
`

type packetOptions struct {
	base     string
	format   string
	store    *storeFlag
	repo     string
	env      string
	jobStart string
}

func newPacketFlags() (*pflag.FlagSet, *packetOptions) {
	fs := newFlagSet("packet")
	o := &packetOptions{}
	fs.StringVar(&o.base, "base", "", "the base run to compare with (JSON, as parse and run print)")
	fs.StringVar(&o.format, "format", "markdown", "markdown or html")
	o.store = addStoreFlag(fs, "flaky-store", "the flaky list's store, read only with --repo", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository whose flaky list marks the flaky tests")
	fs.StringVar(&o.env, "env", "default", "the environment of the flaky list")
	fs.StringVar(&o.jobStart, "job-start", "", "mark the flaky tests from the list as it stood when the job started (RFC 3339; default now)")
	return fs, o
}

func runPacket(ctx context.Context, args []string, env Env) error {
	fs, o := newPacketFlags()
	cf := flagsFor("packet", packetUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	fail := cf.usageErr
	switch {
	case fs.NArg() != 1:
		return fail("want one AFTER.json, got %d arguments", fs.NArg())
	case o.format != "markdown" && o.format != "html":
		return fail("--format %q: want markdown or html", o.format)
	case o.repo == "" && (fs.Changed("flaky-store") || fs.Changed("env") || fs.Changed("store-max-conns") || fs.Changed("job-start")):
		return fail("--flaky-store, --store-max-conns, --env and --job-start need --repo")
	case o.base == "-" && fs.Arg(0) == "-":
		return fail("only one run can come from stdin")
	}
	jobStart := time.Now()
	if o.jobStart != "" {
		t, err := time.Parse(time.RFC3339Nano, o.jobStart)
		if err != nil {
			return fail("--job-start %q is not an RFC 3339 time", o.jobStart)
		}
		jobStart = t
	}
	var base *testrun.Run
	if o.base != "" {
		r, err := readRunFile(o.base, env.Stdin)
		if err != nil {
			return rejectedf("base: %v", err)
		}
		base = r
	}
	after, err := readRunFile(fs.Arg(0), env.Stdin)
	if err != nil {
		return rejectedf("after: %v", err)
	}

	// The check ran here (a packet is made in the repository's CI job):
	// a failing test's rerun command is named relative to this folder.
	in := packet.Input{After: after, Base: base, Repository: "."}
	var opts []testrun.CompareOption
	if o.repo != "" {
		loc, err := o.store.location(env)
		if err != nil {
			return fail("%v", err)
		}
		marks, n, err := o.flakyList(ctx, loc, after.Flaky, jobStart)
		if err != nil {
			return rejected(err)
		}
		opts = append(opts, testrun.WithFlakyList(marks))
		in.FlakyList = fmt.Sprintf("repository %s, environment %s, %s on it", o.repo, o.env, textout.Quantity(n, "test"))
	}
	in.Comparison = testrun.Compare(base, after, opts...)

	// The packet escapes what came from reports for its own format; it is
	// not passed through the terminal escaper, which would change it.
	if o.format == "html" {
		return packet.HTML(env.Stdout, in)
	}
	return packet.Markdown(env.Stdout, in)
}

// flakyList returns which of the flaky ids the list held when the job
// started (onFlakyList, as run marks them) and how many tests are on the
// list now.
func (o *packetOptions) flakyList(ctx context.Context, loc string, flaky []string, jobStart time.Time) ([]string, int, error) {
	st, err := o.store.open(ctx, loc)
	if err != nil {
		return nil, 0, err
	}
	defer st.Close()
	entries, err := st.List(ctx, store.Filter{Repository: o.repo, Environment: o.env})
	if err != nil {
		return nil, 0, err
	}
	marks, err := onFlakyList(ctx, st, o.repo, o.env, flaky, jobStart)
	return marks, len(entries), err
}
