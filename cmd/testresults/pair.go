package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "pair", synopsis: "run a check N times on the parent and on the patch, in git worktrees, and judge them; exit 1 on broken", run: runPair, takesCommand: true})
}

// exitInterrupted is pair's exit code when a signal stopped it.
const exitInterrupted = 130

var pairUsage = clidoc.Help("pair")

type pairOptions struct {
	// pair is what the flags say of the pair; Env and Progress are set
	// by runPair.
	pair    check.Pair
	json    bool
	verbose bool
	newRuns int
	ve      *verdictExport
}

func newPairFlags() (*pflag.FlagSet, *pairOptions) {
	fs := newFlagSet("pair")
	o := &pairOptions{}
	p := &o.pair
	fs.IntVar(&p.Runs, "runs", testrun.MinPairedRuns, "how many runs on each side (at least 2)")
	fs.StringVar(&p.Patch, "patch", "", "a diff to apply on HEAD (git apply): the patch")
	fs.StringVar(&p.PatchRef, "patch-ref", "", "a commit: the patch; its first parent is the parent")
	fs.StringVar(&p.Pins, "pins", "", "fixture pins file (JSON object: path -> sha256), hashed again in each tree")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	fs.StringVarP(&p.Dir, "repo-dir", "C", ".", "the git repository")
	fs.StringVar(&p.Out, "out", "", "the folder of the runs' report folders (default: a fresh temporary folder)")
	fs.DurationVar(&p.Timeout, "timeout", 0, "end each run after this long; 0 means never")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "copy the check's output to stderr")
	fs.IntVar(&o.newRuns, "new-test-runs", 0, "run the tests new in the patch (absent from every parent run) up to N more times and report those that pass and fail as flaky on arrival")
	o.ve = addVerdictExportFlags(fs)
	return fs, o
}

// runPair ends with the verdict's code; 130 when interrupted.
func runPair(ctx context.Context, args []string, env Env) error {
	fs, o := newPairFlags()
	cf := flagsFor("pair", pairUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	argv, err := o.check(cf)
	if err != nil {
		return err
	}
	plan, err := o.ve.plan(fs, env)
	if err != nil {
		return cf.usageErr("%v", err)
	}
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, "testresults pair: "+format+"\n", a...) }
	pair := o.pair
	pair.Env, pair.Progress = env.Environ(), func(e check.PairEvent) { say("%s", pairRun(e)) }
	if o.verbose {
		pair.Output = env.Stderr
	}
	res, err := pair.Run(ctx, argv)
	switch {
	case check.IsUsage(err):
		return &exitCode{code: exitUsage, msg: err.Error()}
	case err != nil:
		return pairErr(err)
	}
	p := res.Paired
	if err := printOut(env, o.json, p, func(w io.Writer) { textout.PairedRevisions(w, res.Parent, res.Patch, pair.Patch, p) }); err != nil {
		return err
	}
	if o.newRuns > 0 {
		if err := o.newTests(ctx, pair, argv, res, env, say); err != nil {
			return pairErr(err)
		}
	}
	for _, l := range textout.Frozen(p) {
		say("%s", l)
	}
	say("report folders: %s", res.Out)
	return exportVerdictResult(ctx, "pair", env, plan, res.PatchRuns, p, verdictCode(env, "pair", p))
}

// check checks the flags (check.Pair.Check) and returns the check's
// command line.
func (o *pairOptions) check(cf *cmdFlags) ([]string, error) {
	argv, err := cf.commandArgs()
	if err != nil {
		return nil, err
	}
	if err := o.pair.Check(o.newRuns); err != nil {
		return nil, cf.usageErr("%v", err)
	}
	return argv, nil
}

// newTests runs the patch's new tests --new-test-runs more times
// (check.Pair.NewTestRuns), writes check.NewTestsFile into the report
// folders' folder, and prints each new test's class (stdout without
// --json). What it finds informs; the verdict and the exit code are the
// pair's.
func (o *pairOptions) newTests(ctx context.Context, pair check.Pair, argv []string, res *check.PairResult, env Env, say func(string, ...any)) error {
	got, err := pair.NewTestRuns(ctx, argv, res, o.newRuns)
	if err != nil {
		return err
	}
	if err := got.WriteFile(res.Out); err != nil {
		say("new tests: %v", err)
	}
	say("new tests: %s", got.Summary())
	if !o.json && len(got.Tests) > 0 {
		got.WriteText(term.NewWriter(env.Stdout))
	}
	return nil
}

// pairErr ends a pair that stopped: 130 when interrupted, else its input
// was refused (exit 3).
func pairErr(err error) error {
	if errors.Is(err, check.ErrInterrupted) {
		return &exitCode{code: exitInterrupted, msg: "interrupted"}
	}
	return rejected(err)
}

// pairRun is e's progress line.
func pairRun(e check.PairEvent) string {
	r := textout.PairRun{Side: e.Side, N: e.N, Total: e.Total, Err: e.Err}
	if e.Result != nil {
		r.Run, r.ExitCode, r.Dir = e.Result.Run, e.Result.ExitCode, e.Result.Dir
	}
	return r.String()
}
