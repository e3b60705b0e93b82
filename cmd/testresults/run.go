package main

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "run", synopsis: "run a check, collect its reports and write TEST-RESULTS.json", run: runRun})
}

// Exit codes of run besides the check's own.
const (
	// exitTimedOut is the exit code of a check ended by --timeout, as
	// timeout(1) gives it.
	exitTimedOut = 124
	// exitInternal is the exit code when testresults itself failed around
	// the check (the report folder or TEST-RESULTS.json could not be
	// written), as timeout(1) gives it.
	exitInternal = 125
)

// summaryFailures is how many failing ids the summary on stderr lists.
const summaryFailures = 10

const runUsage = `Usage: testresults run [flags] -- CMD [ARGS...]

Runs the check CMD unchanged (its stdin, stdout, stderr and exit code are its
own), in a fresh report folder, and collects the reports it wrote:

  - the report folder ($HOME/.hangar/tests/RUN-ID, or --out) is exported to
    the check as HANGAR_TESTS_DIR;
  - unless the environment already sets them, runner variables point the
    common runners there: PYTEST_ADDOPTS gets --junitxml=$HANGAR_TESTS_DIR/
    pytest.xml (not when PYTEST_ADDOPTS, the command line or the repository's
    pytest configuration already names a JUnit file: that file is read
    instead), GOTESTSUM_JUNITFILE=$HANGAR_TESTS_DIR/gotestsum.xml, and
    JEST_JUNIT_OUTPUT_DIR=$HANGAR_TESTS_DIR when the repository uses
    jest-junit;
  - then it reads the reports written since the start (regular files, no
    symbolic link in the path) from the report folder, the globs the
    repository lists under verify_reports in .hangar/environment.yaml, and
    the usual places (Maven, Gradle, cargo-nextest, *junit*.xml,
    test-results/, test-reports/, coverage.xml, cobertura*.xml, lcov.info,
    *.lcov).

HANGAR_TEST_REPORTS=collect reads reports without setting any variable; off
does neither. The commit and working-tree digest are read before the check
runs; the last 1 MiB of its output is kept, redacted, in output.log.

TEST-RESULTS.json (the run; with --base-run also the comparison: base_id,
available, unavailable_reason, new_failures, base_failures, fixed,
flaky_on_list (each flaky id with on_list), coverage_delta and
output_failures, and then run.json beside
it, the run alone, for 'testresults export') is written into
the report folder whatever happens, also after a timeout or a signal. stdout belongs to the
check: the run goes to that file, and a short summary to stderr (--quiet
silences it; colour only on a terminal, NO_COLOR honoured).

The comparison also reads the check's output (output.log) and the base's
(output.log beside the --base-run file, or --base-output): a failing test
the output names and the reports miss makes new failures unknown. With
--repo, the flaky ids are marked on_list from the flaky list (--store, else
HANGAR_STORE, else ~/.hangar/store.db) as it stood when the check started.

--rerun-flaky: when the check failed and the flaky list, as it stood before
this job started, holds every failure (with --base-run: every new failure),
the check runs once more, kind rerun, in the report folder's sibling
FOLDER-rerun. The rerun decides: its exit code is run's. The first run's
TEST-RESULTS.json then names it under rerun, with transient true when the
rerun passed; the rerun's names the first under rerun_of. With --export,
the rerun is exported.

--expect-ids FILE checks the run against the tests it was expected to run,
as 'testresults parse --expect-ids' does: an expected test that no report
mentions is listed in not_run and makes the run incomplete (not counted);
the check's exit code is unchanged. FILE is read before the check starts.

--timeout sends SIGTERM to the check's whole process group, then SIGKILL
after --kill-after; SIGINT and SIGTERM sent to testresults are passed on to
the group (a second one kills it).

Exit codes: the check's own exit code; 128+N when a signal N ended it; 124
when --timeout ended it; 126 or 127 when it could not be started (not
executable, not found); 125 when testresults failed around it (the report
folder or TEST-RESULTS.json); 2 usage error; with --export, 1 when the
export failed after a check that passed.

Flags:
`

type runOptions struct {
	kind       string
	grade      string
	runID      string
	timeout    time.Duration
	killAfter  time.Duration
	out        string
	cacheClear bool
	agentRun   string
	quiet      bool
	export     bool
	exp        *exportOptions
	baseOutput string
	store      string
	repo       string
	envName    string
	rerunFlaky bool
	expect     string
	record     *storeOptions
}

func newRunFlags() (*pflag.FlagSet, *runOptions) {
	o := &runOptions{}
	fs := newFlagSet("run")
	addKindFlags(fs, &o.kind, &o.grade)
	fs.StringVar(&o.runID, "run-id", "", "the run id, also the report folder's name (default: start time and random digits)")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the check after this long (status timed_out, exit 124); 0 means never")
	fs.DurationVar(&o.killAfter, "kill-after", check.DefaultKillAfter, "after SIGTERM (timeout or signal), SIGKILL the check's process group this much later")
	fs.StringVar(&o.out, "out", "", "the report folder (default $HOME/.hangar/tests/RUN-ID); made fresh and empty")
	fs.BoolVar(&o.cacheClear, "cache-clear", false, "remove .pytest_cache and add --cache-clear to PYTEST_ADDOPTS before the check")
	fs.StringVar(&o.agentRun, "agent-run-id", "", "the agent run the check checked")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no summary on stderr")
	fs.StringVar(&o.baseOutput, "base-output", "", "the base check's kept output (default: output.log beside the --base-run file)")
	fs.StringVar(&o.store, "store", "", "the flaky list: a SQLite file or a postgres:// URL (default: $HANGAR_STORE, else ~/.hangar/store.db); read with --repo")
	fs.StringVar(&o.repo, "repo", "", "the repository on the flaky list: mark the flaky ids on_list, and allow --rerun-flaky")
	fs.StringVar(&o.envName, "env", "default", "the environment on the flaky list")
	fs.BoolVar(&o.rerunFlaky, "rerun-flaky", false, "when every failure (with --base-run: every new failure) was on the flaky list before this job started, run the check once more, kind rerun; the rerun decides (needs --repo)")
	fs.StringVar(&o.expect, "expect-ids", "", "check the run against the tests it was expected to run: a file of test ids, one a line, or a run's JSON form (its cases)")
	o.record = addStoreFlags(fs)
	fs.BoolVar(&o.export, "export", false, "also export the run as spans; the flags below are export's (--base-run is also the base of TEST-RESULTS.json)")
	o.exp = addExportFlags(fs)
	return fs, o
}

// runRun ends with the check's own exit code (or 124, 125, 1 as its usage
// says); what went wrong after the check started is printed where it
// happens, among the summary, and the code carries no message.
func runRun(ctx context.Context, args []string, env Env) error {
	fs, o := newRunFlags()
	cf := flagsFor("run", runUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	usageErr := cf.usageErr
	argv := fs.Args()
	switch {
	case len(argv) == 0:
		return usageErr("no command given (testresults run [flags] -- CMD [ARGS...])")
	case fs.ArgsLenAtDash() != 0:
		return usageErr("put the command after --: testresults run [flags] -- %s", strings.Join(argv, " "))
	}
	kind := testrun.Kind(o.kind)
	if o.kind != "" && !kind.Valid() {
		return usageErr("unknown --kind %q", o.kind)
	}
	if fs.Changed("grade") {
		if err := checkGradeFlag(kind, o.grade); err != nil {
			return usageErr("%s", err.msg)
		}
	}
	if o.runID != "" && !testrun.ValidID(o.runID) {
		return usageErr("--run-id %q cannot name a folder (letters, digits, '.', '_', '-'; at most %d)", o.runID, testrun.MaxIDLength)
	}
	if o.timeout < 0 {
		return usageErr("--timeout %s is negative", o.timeout)
	}
	if o.killAfter <= 0 {
		return usageErr("--kill-after %s: want a positive duration", o.killAfter)
	}

	if o.rerunFlaky && o.repo == "" {
		return usageErr("--rerun-flaky needs --repo (and --store, HANGAR_STORE or the default store)")
	}
	if o.baseOutput != "" && o.exp.baseRun == "" {
		return usageErr("--base-output needs --base-run")
	}
	expected, eerr := readExpectedIDs(fs, o.expect)
	if eerr != nil {
		return &exitCode{code: exitUsage, msg: eerr.Error()}
	}

	var plan *exportPlan
	var base *testrun.Run
	if o.export {
		var err error
		if plan, err = o.exp.planRun(fs, env); err != nil {
			var uerr *usageError
			if errors.As(err, &uerr) {
				return usageErr("%s", uerr.msg)
			}
			return &exitCode{code: exitUsage, msg: err.Error()}
		}
		base = plan.opts.Base
	} else {
		for _, name := range exportFlagNames() {
			if name != "base-run" && fs.Changed(name) {
				return usageErr("--%s is an export flag: add --export", name)
			}
		}
		if o.exp.baseRun != "" {
			var err error
			if base, err = readRunFile(o.exp.baseRun, env.Stdin); err != nil {
				return &exitCode{code: exitUsage, msg: "--base-run: " + err.Error()}
			}
		}
	}

	var baseOut []byte
	if base != nil {
		p := o.baseOutput
		if p == "" && o.exp.baseRun != "-" {
			p = filepath.Join(filepath.Dir(o.exp.baseRun), check.OutputFile)
		}
		if p != "" {
			b, err := readTail(p, testrun.MaxOutputBytes)
			switch {
			case err == nil:
				baseOut = b
			case o.baseOutput != "" || !errors.Is(err, iofs.ErrNotExist):
				return &exitCode{code: exitUsage, msg: "--base-output: " + err.Error()}
			}
		}
	}

	// Signals go to the check's process group; the run ends as aborted and
	// is still written.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	opts := []check.Option{
		check.WithEnv(env.Environ()),
		check.WithStdio(env.Stdin, env.Stdout, env.Stderr),
		check.WithSignals(sigs),
		check.WithKind(kind, o.grade),
		check.WithAgentRunID(o.agentRun),
		check.WithRunID(o.runID),
		check.WithReportDir(o.out),
		check.WithTimeout(o.timeout),
		check.WithKillAfter(o.killAfter),
	}
	if o.cacheClear {
		opts = append(opts, check.WithCacheClear())
	}
	if expected != nil {
		// The builder decides by every id the reports mention, before it
		// caps the cases it keeps.
		opts = append(opts, check.WithReportOptions(report.WithRunOptions(testrun.WithExpectedIDs(expected))))
	}
	// The check ends on the signals it is sent, not on this context: a
	// cancelled context would end it a second way.
	res, err := check.Run(context.WithoutCancel(ctx), argv, opts...)
	signal.Stop(sigs)
	if res != nil {
		defer res.Close()
	}
	if res == nil {
		if errors.Is(err, check.ErrMode) || errors.Is(err, check.ErrReportDir) {
			return &exitCode{code: exitUsage, msg: fmt.Sprint(err)}
		}
		return &exitCode{code: exitInternal, msg: fmt.Sprint(err)}
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "testresults run: %v\n", err)
	}
	expectIDs(res.Run, expected)
	run := res.Run
	code := res.ExitCode
	if run.Status == testrun.StatusTimedOut {
		code = exitTimedOut
	}

	var st store.Store
	if o.repo != "" {
		loc, lerr := storeLocation(o.store, env)
		if lerr == nil {
			st, lerr = store.Open(ctx, loc)
		}
		if lerr != nil {
			// The run is still written; its flaky ids are then unmarked.
			fmt.Fprintf(env.Stderr, "testresults run: store: %v\n", lerr)
			st = nil
		} else {
			defer st.Close()
		}
	}
	j := &runJob{o: o, env: env, base: base, baseOut: baseOut, st: st, start: run.StartedAt, sigs: sigs, expected: expected}
	first := j.compare(ctx, res)
	path, werr := j.write(res, testrun.TestResults{Comparison: first})
	if werr != nil {
		fmt.Fprintf(env.Stderr, "testresults run: %v\n", werr)
		code = exitInternal
	}
	if !o.quiet {
		s := summary{w: env.Stderr, color: useColor(env)}
		s.print(res, first, path)
	}
	recorded := []*testrun.Run{res.Run}
	if o.rerunFlaky && werr == nil {
		if excused, why := j.rerunWanted(ctx, res, first); excused == nil {
			if !o.quiet && why != "" {
				fmt.Fprintf(env.Stderr, "  no rerun: %s\n", term.EscapeLine(why))
			}
		} else {
			rcode, rres := j.rerun(ctx, argv, opts, res, first, excused)
			if rres != nil {
				code = rcode
				run = rres.Run
				recorded = append(recorded, rres.Run)
			} else if code == exitOK {
				code = rcode
			}
		}
	}
	// Recording, like the export, outlives the signal that aborted the
	// check: the aborted run is evidence too.
	if rerr := o.record.record(context.WithoutCancel(ctx), env, recorded...); rerr != nil {
		fmt.Fprintf(env.Stderr, "testresults run: record: %v\n", rerr)
		if code == exitOK {
			code = exitFailed
		}
	}
	if plan != nil {
		plan.put(run)
		ectx := ctx
		if run.Status == testrun.StatusAborted {
			// The signal that aborted the check also cancelled ctx; the
			// aborted run is still evidence worth exporting (the export's
			// own timeout bounds it).
			ectx = context.WithoutCancel(ctx)
		}
		if perr := plan.export(ectx, env.Stdout); perr != nil {
			fmt.Fprintf(env.Stderr, "testresults run: export: %v\n", perr)
			if code == exitOK {
				code = exitFailed
			}
		}
	}
	return withCode(code)
}

// print prints the run of res for people: how the check ended, what
// describe says of the run, the comparison, notes and where the results are.
// Colour is painted through the terminal writer (s.printf, s.style).
func (s summary) print(res *check.Result, cmp *testrun.Comparison, path string) {
	run := res.Run
	style := term.StyleYellow
	switch run.Status {
	case testrun.StatusSuccess:
		style = term.StyleGreen
	case testrun.StatusFailure:
		style = term.StyleRed
	}
	exit := "exit ?"
	if run.ExitCode != nil {
		exit = fmt.Sprintf("exit %d", *run.ExitCode)
	}
	s.printf("testresults: %s (%s, %s)\n", s.style(style, string(run.Status)), exit, run.EndedAt.Sub(run.StartedAt).Round(time.Millisecond))
	s.describe(run, check.ResultsFile)
	if cmp != nil {
		switch {
		case !cmp.Available:
			s.printf("  new failures: unknown (%s)\n", term.EscapeLine(cmp.Unavailable))
		case len(cmp.NewFailures) == 0:
			s.printf("  new failures against %s: none\n", term.EscapeLine(cmp.BaseID))
		default:
			ids := make([]string, len(cmp.NewFailures))
			for i, f := range cmp.NewFailures {
				ids[i] = term.EscapeLine(f.ID)
			}
			s.printf("  new failures against %s: %s\n", term.EscapeLine(cmp.BaseID), s.style(term.StyleRed, strings.Join(ids, ", ")))
		}
	}
	for _, n := range res.Notes {
		s.printf("  note: %s\n", term.EscapeLine(n))
	}
	if path != "" {
		// The digest as run wrote it, once nothing the check started
		// ran: a file that no longer has it was changed since.
		s.printf("  results: %s (sha256 %s)\n", term.EscapeLine(path), res.ResultsSHA256)
	}
}

// runJob is what one `testresults run` compares its runs with: the base run
// and its output, and the flaky list as it stood when the job started.
type runJob struct {
	o       *runOptions
	env     Env
	base    *testrun.Run
	baseOut []byte
	st      store.Store
	start   time.Time
	sigs    chan os.Signal
	// expected are the tests each run is expected to run (--expect-ids),
	// nil without the flag.
	expected []string
}

// compare compares the run of res with the base, nil without a base. The
// flaky ids are marked on_list from the store when one is open.
func (j *runJob) compare(ctx context.Context, res *check.Result) *testrun.Comparison {
	if j.base == nil {
		return nil
	}
	var afterOut []byte
	if res.OutputFile != "" {
		afterOut, _ = readTail(res.OutputFile, testrun.MaxOutputBytes)
	}
	if afterOut == nil {
		afterOut = []byte{}
	}
	opts := []testrun.CompareOption{testrun.WithOutput(j.baseOut, afterOut)}
	if j.st != nil {
		on, err := store.Excused(ctx, j.st, j.o.repo, j.o.envName, res.Run.Flaky, j.start)
		if err != nil {
			fmt.Fprintf(j.env.Stderr, "testresults run: store: %v\n", err)
		} else {
			var ids []string
			for id, ok := range on {
				if ok {
					ids = append(ids, id)
				}
			}
			opts = append(opts, testrun.WithFlakyList(ids))
		}
	}
	c := testrun.Compare(j.base, res.Run, opts...)
	return &c
}

// write writes TEST-RESULTS.json of res: its run, with what tr adds (the
// comparison when there is one, how a rerun and the run it reran name each
// other).
func (j *runJob) write(res *check.Result, tr testrun.TestResults) (string, error) {
	tr.Run = res.Run
	return res.WriteTestResults(tr)
}

// rerunWanted returns the failures that the flaky list excused when the
// check failed and the list, as it stood before the job started, excuses
// every one of them (with a base: every new failure). Otherwise it returns
// nil and, when it is worth saying, why.
func (j *runJob) rerunWanted(ctx context.Context, res *check.Result, cmp *testrun.Comparison) ([]string, string) {
	run := res.Run
	if res.ExitCode == 0 || run.Status != testrun.StatusFailure {
		return nil, ""
	}
	if j.st == nil {
		return nil, "the flaky list could not be read"
	}
	var ids []string
	if cmp != nil {
		if !cmp.Available {
			return nil, "new failures unknown: " + cmp.Unavailable
		}
		for _, f := range cmp.NewFailures {
			ids = append(ids, f.ID)
		}
		if len(ids) == 0 {
			return nil, "no new failure (the base failed the same way)"
		}
	} else {
		failing, err := testrun.FailingIDs(run)
		if err != nil {
			return nil, "failures unknown: " + err.Error()
		}
		for id := range failing {
			ids = append(ids, id)
		}
		if len(ids) == 0 {
			return nil, "the check failed without a failing test"
		}
		sort.Strings(ids)
	}
	excused, err := store.Excused(ctx, j.st, j.o.repo, j.o.envName, ids, j.start)
	if err != nil {
		return nil, "store: " + err.Error()
	}
	var not []string
	for _, id := range ids {
		if !excused[id] {
			not = append(not, id)
		}
	}
	if len(not) > 0 {
		return nil, fmt.Sprintf("not on the flaky list before the job started: %s", strings.Join(not, ", "))
	}
	return ids, ""
}

// rerun runs the check once more, kind rerun, in a sibling report folder
// (the first one's path with -rerun appended); the rerun decides. It
// returns the rerun's exit code and result (nil when it could not run), and
// rewrites the first run's TEST-RESULTS.json to name the rerun and say
// whether the first run was transient (the rerun passed).
func (j *runJob) rerun(ctx context.Context, argv []string, opts []check.Option, first *check.Result, firstCmp *testrun.Comparison, excused []string) (int, *check.Result) {
	// With --run-id the rerun is RUN-ID-rerun, when that is still an id;
	// otherwise it gets a fresh one.
	id := ""
	if j.o.runID != "" && testrun.ValidID(j.o.runID+"-rerun") {
		id = j.o.runID + "-rerun"
	}
	ropts := append(append([]check.Option{}, opts...),
		check.WithKind(testrun.KindRerun, ""),
		check.WithRunID(id),
		check.WithReportDir(first.Dir+"-rerun"),
		check.WithSignals(j.sigs),
	)
	if !j.o.quiet {
		fmt.Fprintf(j.env.Stderr, "testresults: every failure is on the flaky list (%s): running the check once more\n", term.EscapeLine(strings.Join(excused, ", ")))
	}
	signal.Notify(j.sigs, os.Interrupt, syscall.SIGTERM)
	res, err := check.Run(context.WithoutCancel(ctx), argv, ropts...)
	signal.Stop(j.sigs)
	if res == nil {
		fmt.Fprintf(j.env.Stderr, "testresults run: rerun: %v\n", err)
		return exitInternal, nil
	}
	defer res.Close()
	if err != nil {
		fmt.Fprintf(j.env.Stderr, "testresults run: rerun: %v\n", err)
	}
	expectIDs(res.Run, j.expected)
	code := res.ExitCode
	if res.Run.Status == testrun.StatusTimedOut {
		code = exitTimedOut
	}
	transient := code == exitOK
	cmp := j.compare(ctx, res)
	firstLink := &testrun.RerunLink{ID: first.Run.ID, Dir: first.Dir, Status: first.Run.Status, ExitCode: first.Run.ExitCode, Excused: excused}
	path, werr := j.write(res, testrun.TestResults{Comparison: cmp, RerunOf: firstLink})
	if werr != nil {
		fmt.Fprintf(j.env.Stderr, "testresults run: rerun: %v\n", werr)
		code = exitInternal
	}
	link := &testrun.RerunLink{ID: res.Run.ID, Dir: res.Dir, Status: res.Run.Status, ExitCode: res.Run.ExitCode, Excused: excused}
	if _, err := j.write(first, testrun.TestResults{Comparison: firstCmp, Rerun: link, Transient: &transient}); err != nil {
		fmt.Fprintf(j.env.Stderr, "testresults run: %v\n", err)
		code = exitInternal
	}
	if !j.o.quiet {
		s := summary{w: j.env.Stderr, color: useColor(j.env)}
		fmt.Fprint(j.env.Stderr, "rerun ")
		s.print(res, cmp, path)
		if transient {
			fmt.Fprintf(j.env.Stderr, "  the first run (%s) was transient: the rerun passed\n", term.EscapeLine(first.Run.ID))
		}
	}
	return code, res
}

// expectIDs checks a run no report builder checked against the expected
// tests (nil: none): one whose check could not start, or whose reports are
// off (HANGAR_TEST_REPORTS=off), ran none of them. A run whose reports
// were read was checked as they were (testrun.WithExpectedIDs), and check
// keeps the reason of its expected tests that never ran.
func expectIDs(run *testrun.Run, expected []string) {
	if expected != nil && run.NotRun == nil {
		run.ExpectIDs(expected)
	}
}
