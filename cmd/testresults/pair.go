package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
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
	runs     int
	patch    string
	patchRef string
	pins     string
	json     bool
	dir      string
	out      string
	timeout  time.Duration
	verbose  bool
	newRuns  int
	ve       *verdictExport
}

func newPairFlags() (*pflag.FlagSet, *pairOptions) {
	fs := newFlagSet("pair")
	o := &pairOptions{}
	fs.IntVar(&o.runs, "runs", testrun.MinPairedRuns, "how many runs on each side (at least 2)")
	fs.StringVar(&o.patch, "patch", "", "a diff to apply on HEAD (git apply): the patch")
	fs.StringVar(&o.patchRef, "patch-ref", "", "a commit: the patch; its first parent is the parent")
	fs.StringVar(&o.pins, "pins", "", "fixture pins file (JSON object: path -> sha256), hashed again in each tree")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	fs.StringVarP(&o.dir, "repo-dir", "C", ".", "the git repository")
	fs.StringVar(&o.out, "out", "", "the folder of the runs' report folders (default: a fresh temporary folder)")
	fs.DurationVar(&o.timeout, "timeout", 0, "end each run after this long; 0 means never")
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
	pair := check.Pair{Dir: o.dir, Patch: o.patch, PatchRef: o.patchRef, Runs: o.runs, Out: o.out, Timeout: o.timeout,
		Env: env.Environ(), Pins: o.pins, Progress: func(e check.PairEvent) {
			switch {
			case e.Side == "":
				say("%v", e.Err)
			case e.Err != nil:
				say("%s run %d: %v", e.Side, e.N, e.Err)
			default:
				total := o.runs
				if e.Side == "new" {
					total = o.newRuns
				}
				say("%s run %d/%d: %s", e.Side, e.N, total, textout.RunLine(e.Result.Run, e.Result.ExitCode, e.Result.Dir))
			}
		}}
	if o.verbose {
		pair.Output = env.Stderr
	}
	res, err := pair.Run(ctx, argv)
	switch {
	case errors.Is(err, check.ErrInterrupted):
		return &exitCode{code: exitInterrupted, msg: "interrupted"}
	case errors.Is(err, check.ErrMode) || errors.Is(err, check.ErrReportDir):
		return &exitCode{code: exitUsage, msg: err.Error()}
	case err != nil:
		return rejected(err)
	}
	p := res.Paired
	if o.json {
		if err := writeJSON(env.Stdout, p); err != nil {
			return err
		}
	} else {
		patch := res.Patch
		if o.patch != "" {
			patch += " + " + o.patch
		}
		fmt.Fprintf(env.Stdout, "parent: %s\npatch:  %s\n", res.Parent, patch)
		textout.Paired(term.NewWriter(env.Stdout), p)
	}
	if o.newRuns > 0 {
		human := io.Writer(env.Stdout)
		if o.json {
			human = nil
		}
		if err := pairNewTests(ctx, pair, argv, res, o.newRuns, human, say); errors.Is(err, check.ErrInterrupted) {
			return &exitCode{code: exitInterrupted, msg: "interrupted"}
		} else if err != nil {
			return rejected(err)
		}
	}
	for _, l := range textout.Frozen(p) {
		say("%s", l)
	}
	say("report folders: %s", res.Out)
	return exportVerdictResult(ctx, "pair", env, plan, res.PatchRuns, p, verdictCode(env, "pair", p))
}

// check checks the flags and returns the check's command line; the diff
// and the pins file are made absolute (the runs happen in worktrees).
func (o *pairOptions) check(cf *cmdFlags) ([]string, error) {
	fs := cf.fs
	argv := fs.Args()
	switch {
	case len(argv) == 0:
		return nil, cf.usageErr("no command given (testresults pair [flags] -- CMD [ARGS...])")
	case fs.ArgsLenAtDash() != 0:
		return nil, cf.usageErr("put the command after --: testresults pair [flags] -- %s", strings.Join(argv, " "))
	case o.runs < testrun.MinPairedRuns:
		return nil, cf.usageErr("--runs %d: want at least %d", o.runs, testrun.MinPairedRuns)
	case o.patch != "" && o.patchRef != "":
		return nil, cf.usageErr("give --patch or --patch-ref, not both")
	case o.timeout < 0:
		return nil, cf.usageErr("--timeout %s is negative", o.timeout)
	case o.newRuns < 0 || o.newRuns > check.MaxNewTestRuns:
		return nil, cf.usageErr("--new-test-runs %d: want 0 to %d", o.newRuns, check.MaxNewTestRuns)
	}
	if which, err := check.AbsPairFiles(&o.patch, &o.pins); err != nil {
		return nil, cf.usageErr("--%s: %v", which, err)
	}
	return argv, nil
}
