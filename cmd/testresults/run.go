package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "run", synopsis: "run a check, collect its reports and write TEST-RESULTS.json", run: runRun, takesCommand: true})
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

var runUsage = clidoc.Help("run")

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
	store      *storeFlag
	repo       string
	envName    string
	rerunFlaky bool
	quarantine bool
	// rerunBudget is --rerun-budget K (0: none).
	rerunBudget int
	expect      string
	record      *storeOptions
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
	o.store = addStoreFlag(fs, "store", "the flaky list, read with --repo", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository on the flaky list: mark the flaky ids on_list, and allow --rerun-flaky")
	fs.StringVar(&o.envName, "env", "default", "the environment on the flaky list")
	fs.BoolVar(&o.rerunFlaky, "rerun-flaky", false, "when every failure (with --base-run: every new failure) was on the flaky list before this job started, run the check once more, kind rerun; the rerun decides (needs --repo)")
	fs.BoolVar(&o.quarantine, "quarantine", false, "a check that failed only by tests quarantined before this job started (testresults flaky quarantine) exits 0; needs --repo")
	fs.IntVar(&o.rerunBudget, "rerun-budget", 0, "rerun a failed check up to K times on the same tree (only its failing tests where the runner allows), stop at the first pass, record the flips on the flaky list with --repo; the exit code stays the first run's")
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
	argv, err := o.check(cf)
	if err != nil {
		return err
	}
	j := &runJob{o: o, env: env, sigs: make(chan os.Signal, 2)}
	if err := j.prepare(cf); err != nil {
		return err
	}
	// Signals go to the check's process group; the run ends as aborted and
	// is still written.
	signal.Notify(j.sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(j.sigs)
	// The check ends on the signals it is sent, not on this context: a
	// cancelled context would end it a second way.
	res, err := check.Run(context.WithoutCancel(ctx), argv, j.checkOptions()...)
	signal.Stop(j.sigs)
	if res == nil {
		if errors.Is(err, check.ErrMode) || errors.Is(err, check.ErrReportDir) {
			return &exitCode{code: exitUsage, msg: fmt.Sprint(err)}
		}
		return &exitCode{code: exitInternal, msg: fmt.Sprint(err)}
	}
	defer func() { _ = res.Close() }() // closes the report folder's handle; what was written is written
	if err != nil {
		j.say("%v", err)
	}
	code := j.ended(res)
	j.start = res.Run.StartedAt
	if st := j.openStore(ctx); st != nil {
		defer st.Close()
	}
	first := j.compare(ctx, res)
	path, werr := j.write(res, testrun.TestResults{Comparison: first})
	if werr != nil {
		j.say("%v", werr)
		code = exitInternal
	}
	j.summary(res, first, path, "")
	runs, decides := []*testrun.Run{res.Run}, res.Run
	if o.rerunFlaky && werr == nil {
		if rcode, rres := j.rerunFlaky(ctx, argv, res, first); rres != nil {
			code, runs, decides = rcode, append(runs, rres.Run), rres.Run
		} else if code == exitOK {
			code = rcode
		}
	}
	if o.rerunBudget > 0 && werr == nil {
		runs = append(runs, j.rerunBudget(ctx, argv, res)...)
	}
	if o.quarantine {
		code = j.quarantined(ctx, decides, code)
	}
	return withCode(j.finish(ctx, runs, code))
}

// check checks the flags and returns the check's command line.
func (o *runOptions) check(cf *cmdFlags) ([]string, error) {
	fs, usageErr := cf.fs, cf.usageErr
	argv := fs.Args()
	switch {
	case len(argv) == 0:
		return nil, usageErr("no command given (testresults run [flags] -- CMD [ARGS...])")
	case fs.ArgsLenAtDash() != 0:
		return nil, usageErr("put the command after --: testresults run [flags] -- %s", strings.Join(argv, " "))
	}
	if err := checkKindFlags(cf, o.kind, o.grade); err != nil {
		return nil, err
	}
	switch {
	case o.runID != "" && !testrun.ValidID(o.runID):
		return nil, usageErr("--run-id %q cannot name a folder (letters, digits, '.', '_', '-'; at most %d)", o.runID, testrun.MaxIDLength)
	case o.timeout < 0:
		return nil, usageErr("--timeout %s is negative", o.timeout)
	case o.killAfter <= 0:
		return nil, usageErr("--kill-after %s: want a positive duration", o.killAfter)
	case o.rerunFlaky && o.repo == "":
		return nil, usageErr("--rerun-flaky needs --repo (and --store, HANGAR_STORE or the default store)")
	case o.quarantine && o.repo == "":
		return nil, usageErr("--quarantine needs --repo (and --store, HANGAR_STORE or the default store)")
	case o.rerunBudget < 0 || o.rerunBudget > check.MaxRerunBudget:
		return nil, usageErr("--rerun-budget %d: want 0 to %d", o.rerunBudget, check.MaxRerunBudget)
	case o.rerunBudget > 0 && o.rerunFlaky:
		return nil, usageErr("--rerun-budget and --rerun-flaky: give one (each reruns a failed check its own way)")
	case o.baseOutput != "" && o.exp.baseRun == "":
		return nil, usageErr("--base-output needs --base-run")
	}
	return argv, nil
}

// runJob is what one `testresults run` compares its runs with: the base run
// and its output, and the flaky list as it stood when the job started.
type runJob struct {
	o       *runOptions
	env     Env
	plan    *exportPlan
	base    *testrun.Run
	baseOut []byte
	st      store.Store
	start   time.Time
	sigs    chan os.Signal
	// expected are the tests each run is expected to run (--expect-ids),
	// nil without the flag.
	expected []string
}

func (j *runJob) say(format string, a ...any) {
	fmt.Fprintf(j.env.Stderr, "testresults run: "+format+"\n", a...)
}

// prepare reads what the job needs before the check starts: the expected
// ids, the export plan or the base run, and the base's output.
func (j *runJob) prepare(cf *cmdFlags) error {
	o, fs := j.o, cf.fs
	var err error
	if j.expected, err = readExpectedIDs(fs, o.expect); err != nil {
		return &exitCode{code: exitUsage, msg: err.Error()}
	}
	if o.export {
		if j.plan, err = o.exp.planRun(fs, j.env); err != nil {
			var uerr *usageError
			if errors.As(err, &uerr) {
				return cf.usageErr("%s", uerr.msg)
			}
			return &exitCode{code: exitUsage, msg: err.Error()}
		}
		j.base = j.plan.opts.Base
	} else {
		names := slices.DeleteFunc(slices.Clone(exportFlagNames()), func(n string) bool { return n == "base-run" })
		if err := needExport(fs, names); err != nil {
			return cf.usageErr("%v", err)
		}
		if o.exp.baseRun != "" {
			if j.base, err = readRunFile(o.exp.baseRun, j.env.Stdin); err != nil {
				return &exitCode{code: exitUsage, msg: "--base-run: " + err.Error()}
			}
		}
	}
	if j.base == nil {
		return nil
	}
	if j.baseOut, err = check.ReadBaseOutput(o.exp.baseRun, o.baseOutput); err != nil {
		return &exitCode{code: exitUsage, msg: "--base-output: " + err.Error()}
	}
	return nil
}

// checkOptions are the options of the check's first run.
func (j *runJob) checkOptions() []check.Option {
	o, env := j.o, j.env
	opts := []check.Option{
		check.WithEnv(env.Environ()),
		check.WithStdio(env.Stdin, env.Stdout, env.Stderr),
		check.WithSignals(j.sigs),
		check.WithKind(testrun.Kind(o.kind), o.grade),
		check.WithAgentRunID(o.agentRun),
		check.WithRunID(o.runID),
		check.WithReportDir(o.out),
		check.WithTimeout(o.timeout),
		check.WithKillAfter(o.killAfter),
	}
	if o.cacheClear {
		opts = append(opts, check.WithCacheClear())
	}
	if j.expected != nil {
		// The builder decides by every id the reports mention, before it
		// caps the cases it keeps.
		opts = append(opts, check.WithReportOptions(report.WithRunOptions(testrun.WithExpectedIDs(j.expected))))
	}
	return opts
}

// ended checks the run of res against the expected tests and returns its
// exit code: the check's own, 124 when --timeout ended it.
func (j *runJob) ended(res *check.Result) int {
	expectIDs(res.Run, j.expected)
	if res.Run.Status == testrun.StatusTimedOut {
		return exitTimedOut
	}
	return res.ExitCode
}

// openStore opens the flaky list with --repo; nil without it or when it
// cannot be opened (the run is still written; its flaky ids are then
// unmarked).
func (j *runJob) openStore(ctx context.Context) store.Store {
	if j.o.repo == "" {
		return nil
	}
	loc, err := j.o.store.location(j.env)
	if err == nil {
		j.st, err = j.o.store.open(ctx, loc)
	}
	if err != nil {
		j.say("store: %v", err)
		j.st = nil
	}
	return j.st
}

// summary prints the run of res for people on stderr, unless --quiet;
// prefix goes before its first line.
func (j *runJob) summary(res *check.Result, cmp *testrun.Comparison, path, prefix string) {
	if j.o.quiet {
		return
	}
	fmt.Fprint(j.env.Stderr, prefix)
	s := textout.Summary{W: j.env.Stderr, Color: useColor(j.env)}
	s.Run(textout.RunResult{Run: res.Run, Comparison: cmp, Notes: res.Notes, Results: path, ResultsSHA256: res.ResultsSHA256, Where: check.ResultsFile})
}

// finish records the runs and exports the last one, and returns the exit
// code: code, or 1 for a record or an export that failed after a check
// that passed. Recording, like the export, outlives the signal that aborted
// the check: the aborted run is evidence too.
func (j *runJob) finish(ctx context.Context, runs []*testrun.Run, code int) int {
	if err := j.o.record.record(context.WithoutCancel(ctx), j.env, runs...); err != nil {
		j.say("record: %v", err)
		if code == exitOK {
			code = exitFailed
		}
	}
	if j.plan == nil {
		return code
	}
	run := runs[len(runs)-1]
	j.plan.put(run)
	ectx := ctx
	if run.Status == testrun.StatusAborted {
		// The signal that aborted the check also cancelled ctx; the
		// aborted run is still evidence worth exporting (the export's own
		// timeout bounds it).
		ectx = context.WithoutCancel(ctx)
	}
	if err := j.plan.export(ectx, j.env.Stdout); err != nil {
		j.say("export: %v", err)
		if code == exitOK {
			code = exitFailed
		}
	}
	return code
}

// compare compares the run of res with the base, nil without a base. The
// flaky ids are marked on_list from the store when one is open.
func (j *runJob) compare(ctx context.Context, res *check.Result) *testrun.Comparison {
	if j.base == nil {
		return nil
	}
	opts := []testrun.CompareOption{testrun.WithOutput(j.baseOut, res.KeptOutput())}
	if j.st != nil {
		ids, err := onFlakyList(ctx, j.st, j.o.repo, j.o.envName, res.Run.Flaky, j.start)
		if err != nil {
			j.say("store: %v", err)
		} else {
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

// rerunFlaky reruns the check when it failed and the flaky list, as it
// stood before the job started, excuses every failure (testrun.Excuse:
// with a base, every new failure). It returns the rerun's exit code and
// result; no result when there was no rerun or it could not run.
func (j *runJob) rerunFlaky(ctx context.Context, argv []string, res *check.Result, cmp *testrun.Comparison) (int, *check.Result) {
	if res.ExitCode == 0 || res.Run.Status != testrun.StatusFailure {
		return exitOK, nil
	}
	why := "the flaky list could not be read"
	if j.st != nil {
		e, err := testrun.Excuse(res.Run, cmp, func(ids []string) (map[string]bool, error) {
			return store.Excused(ctx, j.st, j.o.repo, j.o.envName, ids, j.start)
		})
		switch {
		case err != nil:
			why = "store: " + err.Error()
		case e.Transient:
			return j.rerun(ctx, argv, res, cmp, e.Excused())
		default:
			why = e.Reason()
		}
	}
	if !j.o.quiet {
		fmt.Fprintf(j.env.Stderr, "  no rerun: %s\n", term.EscapeLine(why))
	}
	return exitOK, nil
}

// rerun runs the check once more, kind rerun, in a sibling report folder
// (the first one's path with -rerun appended); the rerun decides. It
// returns the rerun's exit code and result (nil when it could not run), and
// rewrites the first run's TEST-RESULTS.json to name the rerun and say
// whether the first run was transient (the rerun passed).
func (j *runJob) rerun(ctx context.Context, argv []string, first *check.Result, firstCmp *testrun.Comparison, excused []string) (int, *check.Result) {
	// With --run-id the rerun is RUN-ID-rerun, when that is still an id;
	// otherwise it gets a fresh one.
	id := check.RerunID(j.o.runID, "-rerun")
	opts := append(j.checkOptions(),
		check.WithKind(testrun.KindRerun, ""),
		check.WithRunID(id),
		check.WithReportDir(first.Dir+"-rerun"),
	)
	if !j.o.quiet {
		fmt.Fprintf(j.env.Stderr, "testresults: every failure is on the flaky list (%s): running the check once more\n", term.EscapeLine(strings.Join(excused, ", ")))
	}
	signal.Notify(j.sigs, os.Interrupt, syscall.SIGTERM)
	res, err := check.Run(context.WithoutCancel(ctx), argv, opts...)
	signal.Stop(j.sigs)
	if res == nil {
		j.say("rerun: %v", err)
		return exitInternal, nil
	}
	defer func() { _ = res.Close() }() // closes the report folder's handle; what was written is written
	if err != nil {
		j.say("rerun: %v", err)
	}
	code := j.ended(res)
	transient := code == exitOK
	cmp := j.compare(ctx, res)
	path, werr := j.write(res, testrun.TestResults{Comparison: cmp, RerunOf: first.Link(excused)})
	if werr != nil {
		j.say("rerun: %v", werr)
		code = exitInternal
	}
	if _, err := j.write(first, testrun.TestResults{Comparison: firstCmp, Rerun: res.Link(excused), Transient: &transient}); err != nil {
		j.say("%v", err)
		code = exitInternal
	}
	j.summary(res, cmp, path, "rerun ")
	if transient && !j.o.quiet {
		fmt.Fprintf(j.env.Stderr, "  the first run (%s) was transient: the rerun passed\n", term.EscapeLine(first.Run.ID))
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
