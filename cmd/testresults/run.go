package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "run", synopsis: "run a check, collect its reports and write TEST-RESULTS.json", run: runRun, takesCommand: true})
}

// runOptions are run's flags (the job's own go straight into job), and
// what the job holds: the export plan, and the store of --repo's flaky
// list once the job opened it.
type runOptions struct {
	kind, grade, runID, out, agentRun string
	baseOutput, repo, envName, expect string
	timeout, killAfter                time.Duration
	cacheClear, export                bool
	exp                               *exportOptions
	store                             *storeFlag
	record                            *storeOptions
	job                               check.Job
	env                               Env
	plan                              *exportPlan
	st                                store.Store
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
	fs.BoolVarP(&o.job.Quiet, "quiet", "q", false, "no summary on stderr")
	fs.StringVar(&o.baseOutput, "base-output", "", "the base check's kept output (default: output.log beside the --base-run file)")
	o.store = addStoreFlag(fs, "store", "the flaky list, read with --repo", shortStoreConns, false)
	fs.StringVar(&o.repo, "repo", "", "the repository on the flaky list: mark the flaky ids on_list, and allow --rerun-flaky")
	fs.StringVar(&o.envName, "env", "default", "the environment on the flaky list")
	fs.BoolVar(&o.job.RerunFlaky, "rerun-flaky", false, "when every failure (with --base-run: every new failure) was on the flaky list before this job started, run the check once more, kind rerun; the rerun decides (needs --repo)")
	fs.BoolVar(&o.job.Quarantine, "quarantine", false, "a check that failed only by tests quarantined before this job started (testresults flaky quarantine) exits 0; needs --repo")
	fs.IntVar(&o.job.RerunBudget, "rerun-budget", 0, "rerun a failed check up to K times on the same tree (only its failing tests where the runner allows), stop at the first pass, record the flips on the flaky list with --repo; the exit code stays the first run's")
	fs.StringVar(&o.expect, "expect-ids", "", "check the run against the tests it was expected to run: a file of test ids, one a line, or a run's JSON form (its cases)")
	o.record = addStoreFlags(fs)
	fs.BoolVar(&o.export, "export", false, "also export the run as spans; the flags below are export's (--base-run is also the base of TEST-RESULTS.json)")
	o.exp = addExportFlags(fs)
	return fs, o
}

// runRun ends with the job's exit code (check.JobResult.Code, or 1 as its
// usage says); what went wrong after the check started is printed where it
// happens, and the code carries no message.
func runRun(ctx context.Context, args []string, env Env) error {
	fs, o := newRunFlags()
	cf := flagsFor("run", clidoc.Help("run"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	o.env = env
	argv, err := o.check(cf)
	if err != nil {
		return err
	}
	res, err := o.jobOf().Run(ctx, argv)
	if o.st != nil {
		defer o.st.Close()
	}
	switch {
	case res != nil:
		return withCode(o.finish(ctx, res.Runs, res.Code))
	case check.IsUsage(err):
		return &exitCode{code: exitUsage, msg: fmt.Sprint(err)}
	}
	return &exitCode{code: check.ExitInternal, msg: fmt.Sprint(err)}
}

// check checks the flags, reads what they name (prepare) and returns the
// check's command line.
func (o *runOptions) check(cf *cmdFlags) ([]string, error) {
	usageErr := cf.usageErr
	argv, err := cf.commandArgs()
	if err != nil {
		return nil, err
	}
	if err := checkKindFlags(cf, o.kind, o.grade); err != nil {
		return nil, err
	}
	s := check.JobSettings{RunID: o.runID, Timeout: o.timeout, KillAfter: o.killAfter, Listed: o.repo != ""}
	if err := o.job.Check(s); err != nil {
		return nil, usageErr("%v", err)
	}
	if o.baseOutput != "" && o.exp.baseRun == "" {
		return nil, usageErr("--base-output needs --base-run")
	}
	return argv, o.prepare(cf)
}

// prepare reads what the job needs before the check starts: the expected
// ids, the export plan or the base run, and the base's output.
func (o *runOptions) prepare(cf *cmdFlags) error {
	fs, job := cf.fs, &o.job
	var err error
	if job.Expected, err = readExpectedIDs(fs, o.expect); err != nil {
		return &exitCode{code: exitUsage, msg: err.Error()}
	}
	names := slices.DeleteFunc(slices.Clone(exportFlagNames()), func(n string) bool { return n == "base-run" })
	switch nerr := needExport(fs, names); {
	case o.export:
		var uerr *usageError
		if o.plan, err = o.exp.planRun(fs, o.env); errors.As(err, &uerr) {
			return cf.usageErr("%s", uerr.msg)
		} else if err != nil {
			return &exitCode{code: exitUsage, msg: err.Error()}
		}
		job.Base = o.plan.opts.Base
	case nerr != nil:
		return cf.usageErr("%v", nerr)
	case o.exp.baseRun != "":
		if job.Base, err = readRunFile(o.exp.baseRun, o.env.Stdin); err != nil {
			return &exitCode{code: exitUsage, msg: "--base-run: " + err.Error()}
		}
	}
	if job.Base != nil {
		if job.BaseOutput, err = check.ReadBaseOutput(o.exp.baseRun, o.baseOutput); err != nil {
			return &exitCode{code: exitUsage, msg: "--base-output: " + err.Error()}
		}
	}
	return nil
}

// jobOf is the check's job as the flags ask for it, its summaries and
// lines on stderr. Signals (SIGINT, SIGTERM, SIGHUP) go to the check's
// process group while it runs; the run ends as aborted and is still written.
func (o *runOptions) jobOf() *check.Job {
	env, job, sigs := o.env, &o.job, make(chan os.Signal, 2)
	job.Options = []check.Option{
		check.WithEnv(env.Environ()), check.WithStdio(env.Stdin, env.Stdout, env.Stderr), check.WithSignals(sigs),
		check.WithKind(testrun.Kind(o.kind), o.grade), check.WithAgentRunID(o.agentRun), check.WithRunID(o.runID),
		check.WithReportDir(o.out), check.WithTimeout(o.timeout), check.WithKillAfter(o.killAfter),
	}
	if o.cacheClear {
		job.Options = append(job.Options, check.WithCacheClear())
	}
	job.Notify, job.Stop = func() { signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP) }, func() { signal.Stop(sigs) }
	job.Errors = func(err error) { fmt.Fprintf(env.Stderr, "testresults run: %v\n", err) }
	job.Text, job.EscapeLine = term.NewWriter(env.Stderr), term.EscapeLine
	if o.repo != "" {
		job.OpenList = o.openList
	}
	if !job.Quiet {
		job.Summary = func(r *check.Result, cmp *testrun.Comparison, path, prefix string) {
			fmt.Fprint(env.Stderr, prefix)
			textout.SummaryTo(env.Stderr, env.Getenv).Run(textout.RunResult{Run: r.Run, Comparison: cmp,
				Notes: r.Notes, Results: path, ResultsSHA256: r.ResultsSHA256, Where: check.ResultsFile})
		}
	}
	return job
}

// openList opens the store of --repo's flaky list for the job.
func (o *runOptions) openList(ctx context.Context) (*check.FlakyList, error) {
	var err error
	if o.st, err = o.store.openAt(ctx, o.env); err != nil {
		return nil, err
	}
	l := store.JobListOf(o.st, o.repo, o.envName)
	return &check.FlakyList{Environment: o.envName, OnList: l.OnList, Excused: l.Excused, Record: l.Record, Quarantine: l.Quarantine()}, nil
}

// finish records the runs and exports the last one, and returns code, or
// 1 for a record or an export that failed after a check that passed. Both
// outlive the signal that aborted the check: the aborted run is evidence
// too (the export's own timeout bounds it).
func (o *runOptions) finish(ctx context.Context, runs []*testrun.Run, code int) int {
	fail := func(what string, err error) {
		if err != nil {
			o.job.Errors(fmt.Errorf("%s: %w", what, err))
			code = max(code, exitFailed)
		}
	}
	fail("record", o.record.record(context.WithoutCancel(ctx), o.env, runs...))
	if run := runs[len(runs)-1]; o.plan != nil {
		o.plan.put(run)
		if run.Status == testrun.StatusAborted {
			ctx = context.WithoutCancel(ctx)
		}
		fail("export", o.plan.export(ctx, o.env.Stdout))
	}
	return code
}
