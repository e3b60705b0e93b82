package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/packet"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
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
list, read from --flaky-store, else $HANGAR_STORE, else ~/.hangar/store.db
(a postgres:// URL names a shared store).

Exit codes: 0 the packet was written (it informs, it does not gate);
1 stdout could not be written; 2 usage error; 3 a run could not be read,
or the store failed.

Flags:
`

type packetOptions struct {
	base   string
	format string
	store  string
	repo   string
	env    string
}

func newPacketFlags() (*pflag.FlagSet, *packetOptions) {
	fs := newFlagSet("packet")
	o := &packetOptions{}
	fs.StringVar(&o.base, "base", "", "the base run to compare with (JSON, as parse and run print)")
	fs.StringVar(&o.format, "format", "markdown", "markdown or html")
	fs.StringVar(&o.store, "flaky-store", "", "the flaky list's store: a SQLite file or a postgres:// URL (default: $HANGAR_STORE, else ~/.hangar/store.db); read only with --repo")
	fs.StringVar(&o.repo, "repo", "", "the repository whose flaky list marks the flaky tests")
	fs.StringVar(&o.env, "env", "default", "the environment of the flaky list")
	return fs, o
}

func runPacket(ctx context.Context, args []string, env Env) error {
	fs, o := newPacketFlags()
	cf := flagsFor("packet", packetUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	fail := cf.usageErr
	if fs.NArg() != 1 {
		return fail("want one AFTER.json, got %d arguments", fs.NArg())
	}
	if o.format != "markdown" && o.format != "html" {
		return fail("--format %q: want markdown or html", o.format)
	}
	if o.repo == "" && (fs.Changed("flaky-store") || fs.Changed("env")) {
		return fail("--flaky-store and --env need --repo")
	}
	if o.base == "-" && fs.Arg(0) == "-" {
		return fail("only one run can come from stdin")
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
		loc, err := storeLocation(o.store, env)
		if err != nil {
			return fail("%v", err)
		}
		ids, err := flakyListIDs(ctx, loc, o.repo, o.env)
		if err != nil {
			return rejected(err)
		}
		opts = append(opts, testrun.WithFlakyList(ids))
		in.FlakyList = fmt.Sprintf("repository %s, environment %s, %s on it", o.repo, o.env, quantity(len(ids), "test"))
	}
	in.Comparison = testrun.Compare(base, after, opts...)

	// The packet escapes what came from reports for its own format; it is
	// not passed through the terminal escaper, which would change it.
	if o.format == "html" {
		err = packet.HTML(env.Stdout, in)
	} else {
		err = packet.Markdown(env.Stdout, in)
	}
	if err != nil {
		return err
	}
	return nil
}

// flakyListIDs returns the test ids on the live flaky list of repo and env.
func flakyListIDs(ctx context.Context, location, repo, env string) ([]string, error) {
	st, err := store.Open(ctx, location)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	entries, err := st.List(ctx, store.Filter{Repository: repo, Environment: env})
	if err != nil {
		return nil, err
	}
	ids := make([]string, len(entries))
	for i, e := range entries {
		ids[i] = e.TestID
	}
	return ids, nil
}
