package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "flaky", synopsis: "the per-repository flaky list: record, list, prune, check, summary", run: runFlaky})
}

const flakyUsage = `Usage: testresults flaky SUBCOMMAND [flags] [RUN.json...]

The flaky list of each repository and environment. A test is flaky when its
runner retried it and it passed, or when it passed in one recorded run and
failed in another on the same tree (same repository, environment and tree
digest). Entries expire 30 days after they were last seen flaky.

  record --repo R RUN.json...   add what the runs show; gate runs and
                                graders below isolated never add
  list [--repo R] [--env E]     the live entries
  prune                         delete entries (and tree history) last seen
                                more than 30 days ago
  check --repo R --job-start T RUN.json
                                which failures of the run the list excuses:
                                only entries on it before the job started
                                (T, RFC 3339) count. A failed run whose every
                                failure is excused is transient.
  summary [--limit N]           the repositories with the most flaky tests,
                                each with its worst test

The store is --store, else $HANGAR_STORE, else ~/.hangar/store.db (SQLite);
a postgres:// URL names a shared PostgreSQL store.

Exit codes: 0 ok (check: no failure, or transient); 1 check: a failure the
list does not excuse, or failures not known whole; 2 usage error; 3 a run
could not be read, or the store failed.

Flags:
`

type flakyOptions struct {
	store    string
	repo     string
	env      string
	jobStart string
	limit    int
	json     bool
}

func newFlakyFlags() (*pflag.FlagSet, *flakyOptions) {
	fs := newFlagSet("flaky")
	o := &flakyOptions{}
	fs.StringVar(&o.store, "store", "", "the store: a SQLite file or a postgres:// URL (default: $HANGAR_STORE, else ~/.hangar/store.db)")
	fs.StringVar(&o.repo, "repo", "", "the repository (record, check; a filter for list)")
	fs.StringVar(&o.env, "env", "default", "the environment (record, check; a filter for list when set)")
	fs.StringVar(&o.jobStart, "job-start", "", "check: when the job started (RFC 3339)")
	fs.IntVar(&o.limit, "limit", 10, "summary: how many repositories")
	fs.BoolVar(&o.json, "json", false, "print JSON on stdout")
	return fs, o
}

// storeLocation is --store, else HANGAR_STORE, else the default file under
// HOME.
func storeLocation(flag string, env Env) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v := env.Getenv("HANGAR_STORE"); v != "" {
		return v, nil
	}
	home := env.Getenv("HOME")
	if home == "" {
		return "", usagef("no store: set --store, HANGAR_STORE or HOME")
	}
	return store.DefaultPath(home), nil
}

func runFlaky(ctx context.Context, args []string, env Env) error {
	fs, o := newFlakyFlags()
	so := addStoreFlags(fs)
	cf := flagsFor("flaky", flakyUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return cf.usageErr("no subcommand (record, list, prune, check or summary)")
	}
	sub, rest := fs.Arg(0), fs.Args()[1:]
	fail := cf.usageErr
	listEnv := o.env
	if !fs.Changed("env") {
		listEnv = ""
	}
	var jobStart time.Time
	switch sub {
	case "record":
		if o.repo == "" || len(rest) == 0 {
			return fail("record needs --repo and at least one RUN.json")
		}
	case "check":
		if o.repo == "" || len(rest) != 1 || o.jobStart == "" {
			return fail("check needs --repo, --job-start and one RUN.json")
		}
		t, err := time.Parse(time.RFC3339Nano, o.jobStart)
		if err != nil {
			return fail("--job-start %q is not an RFC 3339 time", o.jobStart)
		}
		jobStart = t
	case "list", "prune", "summary":
		if len(rest) > 0 {
			return fail("%s takes no arguments", sub)
		}
	default:
		return fail("unknown subcommand %q", sub)
	}
	loc, err := storeLocation(o.store, env)
	if err != nil {
		return fail("%v", err)
	}
	// Runs are read before the store opens: a bad file changes nothing.
	var runs []*testrun.Run
	for _, p := range rest {
		r, err := readRunFile(p, env.Stdin)
		if err != nil {
			return rejected(err)
		}
		runs = append(runs, r)
	}
	st, err := store.Open(ctx, loc)
	if err != nil {
		return rejected(err)
	}
	defer st.Close()
	storeFail := func(err error) error {
		return &subError{sub: sub, err: rejected(err)}
	}
	// Test ids come from reports: what people read is escaped for the
	// terminal.
	human := term.NewWriter(env.Stdout)
	switch sub {
	case "record":
		if err := so.record(ctx, env, runs...); err != nil {
			return storeFail(err)
		}
		return flakyRecord(ctx, st, o, runs, env, storeFail)
	case "list":
		entries, err := st.List(ctx, store.Filter{Repository: o.repo, Environment: listEnv})
		if err != nil {
			return storeFail(err)
		}
		if o.json {
			return jsonOut(env, entries)
		}
		printEntries(human, entries)
	case "prune":
		n, err := st.Prune(ctx)
		if err != nil {
			return storeFail(err)
		}
		if o.json {
			return jsonOut(env, map[string]int64{"pruned": n})
		}
		fmt.Fprintf(human, "pruned %d entries\n", n)
	case "summary":
		sum, err := st.Summary(ctx, o.limit)
		if err != nil {
			return storeFail(err)
		}
		if o.json {
			return jsonOut(env, sum)
		}
		if len(sum) == 0 {
			fmt.Fprintln(human, "no flaky tests")
		}
		for _, s := range sum {
			fmt.Fprintf(human, "%-40s %5d flaky  worst: %s (%s, seen %d times, last %s)\n", s.Repository, s.Tests,
				s.Worst.TestID, s.Worst.Environment, s.Worst.Sightings, s.Worst.LastSeen.Format(time.RFC3339))
		}
	case "check":
		return flakyCheck(ctx, st, o, runs[0], jobStart, env, storeFail)
	}
	return nil
}

func jsonOut(env Env, v any) error {
	return writeJSON(env.Stdout, v)
}

type recordLine struct {
	Run      string                        `json:"run"`
	Recorded bool                          `json:"recorded"`
	Reason   string                        `json:"reason,omitempty"`
	Observed int                           `json:"observed"`
	Flaky    map[string][]testrun.FlakyHow `json:"flaky"`
}

func flakyRecord(ctx context.Context, st store.Store, o *flakyOptions, runs []*testrun.Run, env Env, storeFail func(error) error) error {
	lines := []recordLine{}
	for _, r := range runs {
		got, err := st.Record(ctx, o.repo, o.env, r)
		switch {
		case errors.Is(err, testrun.ErrNotRecordable):
			lines = append(lines, recordLine{Run: r.ID, Reason: err.Error(), Flaky: map[string][]testrun.FlakyHow{}})
			continue
		case err != nil:
			return storeFail(err)
		}
		lines = append(lines, recordLine{Run: r.ID, Recorded: true, Observed: got.Observed, Flaky: got.Flaky})
	}
	if o.json {
		return jsonOut(env, lines)
	}
	human := term.NewWriter(env.Stdout)
	for _, l := range lines {
		if !l.Recorded {
			fmt.Fprintf(human, "%s: not recorded: %s\n", l.Run, l.Reason)
			continue
		}
		ids := make([]string, 0, len(l.Flaky))
		for id := range l.Flaky {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		fmt.Fprintf(human, "%s: %d outcomes observed, %d flaky%s\n", l.Run, l.Observed, len(ids), listTail(ids))
	}
	return nil
}

type checkFailure struct {
	ID      string              `json:"id"`
	Excused bool                `json:"excused"`
	Entry   *testrun.FlakyEntry `json:"entry"`
}

type checkResult struct {
	Run       string         `json:"run"`
	JobStart  time.Time      `json:"job_start"`
	Transient bool           `json:"transient"`
	Unknown   string         `json:"unknown_reason,omitempty"`
	Failures  []checkFailure `json:"failures"`
}

func flakyCheck(ctx context.Context, st store.Store, o *flakyOptions, r *testrun.Run, jobStart time.Time, env Env, storeFail func(error) error) error {
	res := checkResult{Run: r.ID, JobStart: jobStart, Failures: []checkFailure{}}
	failing, err := testrun.FailingIDs(r)
	var entries map[string]testrun.FlakyEntry
	if err != nil {
		res.Unknown = err.Error()
	} else {
		ids := make([]string, 0, len(failing))
		for id := range failing {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		if entries, err = st.Lookup(ctx, o.repo, o.env, ids); err != nil {
			return storeFail(err)
		}
		for _, id := range ids {
			f := checkFailure{ID: id}
			if e, ok := entries[id]; ok {
				f.Entry = &e
				f.Excused = e.Excused(jobStart)
			}
			res.Failures = append(res.Failures, f)
		}
		res.Transient = testrun.Transient(r, func(id string) bool {
			e, ok := entries[id]
			return ok && e.Excused(jobStart)
		})
	}
	code := exitOK
	if res.Unknown != "" || (len(res.Failures) > 0 && !res.Transient) {
		code = exitFailed
	}
	if o.json {
		if err := jsonOut(env, res); err != nil {
			return err
		}
		return withCode(code)
	}
	printCheck(term.NewWriter(env.Stdout), res)
	return withCode(code)
}

func printCheck(w io.Writer, res checkResult) {
	switch {
	case res.Unknown != "":
		fmt.Fprintf(w, "%s: cannot tell: %s\n", res.Run, res.Unknown)
		return
	case len(res.Failures) == 0:
		fmt.Fprintf(w, "%s: no failures\n", res.Run)
		return
	case res.Transient:
		fmt.Fprintf(w, "%s: transient: every failure is on the flaky list\n", res.Run)
	default:
		fmt.Fprintf(w, "%s: failed\n", res.Run)
	}
	for _, f := range res.Failures {
		mark := "not excused"
		if f.Excused {
			mark = "excused (flaky since " + f.Entry.FirstSeen.Format(time.RFC3339) + ")"
		} else if f.Entry != nil {
			mark = "not excused (on the list only since " + f.Entry.FirstSeen.Format(time.RFC3339) + ", or expired)"
		}
		fmt.Fprintf(w, "  %s: %s\n", f.ID, mark)
	}
}

func printEntries(w io.Writer, entries []testrun.FlakyEntry) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no flaky tests")
		return
	}
	for _, e := range entries {
		how := make([]string, len(e.How))
		for i, h := range e.How {
			how[i] = string(h)
		}
		var runs []string
		for _, s := range e.Seen {
			runs = append(runs, s.Runs...)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\tfirst %s\tlast %s\t%s\t%d sightings\truns %s\n", e.Repository, e.Environment, e.TestID,
			e.FirstSeen.Format(time.RFC3339), e.LastSeen.Format(time.RFC3339), strings.Join(how, ","), e.Sightings, strings.Join(dedupe(runs), ","))
	}
}

func dedupe(s []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}
