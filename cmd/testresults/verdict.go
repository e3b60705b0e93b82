package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "verdict", synopsis: "paired verdict of N >= 2 parent and patch runs; exit 1 on broken", run: runVerdict})
}

type verdictOptions struct {
	parents, patches []string
	pins             testrun.PinSources
	json             bool
	ve               *verdictExport
}

func newVerdictFlags() (*pflag.FlagSet, *verdictOptions) {
	fs := newFlagSet("verdict")
	o := &verdictOptions{}
	fs.StringArrayVar(&o.parents, "parent", nil, "a run of the parent (repeat, at least 2)")
	fs.StringArrayVar(&o.patches, "patch", nil, "a run of the patch (repeat, at least 2)")
	fs.StringVar(&o.pins.File, "pins", "", "fixture pins file (JSON object: path -> sha256)")
	fs.StringVar(&o.pins.Parent, "parent-pins", "", "the pins recorded on the parent")
	fs.StringVar(&o.pins.Patch, "patch-pins", "", "the pins recorded on the patch")
	fs.StringVar(&o.pins.ParentTree, "parent-tree", "", "the parent's tree: recompute the pinned fixtures there")
	fs.StringVar(&o.pins.PatchTree, "patch-tree", "", "the patch's tree: recompute the pinned fixtures there")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	o.ve = addVerdictExportFlags(fs)
	return fs, o
}

func runVerdict(ctx context.Context, args []string, env Env) error {
	fs, o := newVerdictFlags()
	cf := flagsFor("verdict", clidoc.Help("verdict"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return cf.usageErr("unexpected argument %q: runs are given with --parent and --patch", fs.Arg(0))
	}
	if len(o.parents) < testrun.MinPairedRuns || len(o.patches) < testrun.MinPairedRuns {
		return cf.usageErr("give at least %d --parent and %d --patch runs (got %d and %d)",
			testrun.MinPairedRuns, testrun.MinPairedRuns, len(o.parents), len(o.patches))
	}
	// Runs read from files may be copies of one another.
	opts := []testrun.VerdictOption{testrun.WithCopiesRefused()}
	pinOpt, err := o.pins.Option()
	var perr *testrun.PinSourcesError
	switch {
	case errors.As(err, &perr):
		return cf.usageErr("%s", perr)
	case err != nil:
		return rejected(err)
	case pinOpt != nil:
		opts = append(opts, pinOpt)
	}
	plan, err := o.ve.plan(fs, env)
	if err != nil {
		return cf.usageErr("%v", err)
	}
	parent, err := testrun.ReadRunFiles(o.parents, env.Stdin)
	if err != nil {
		return rejected(err)
	}
	patch, err := testrun.ReadRunFiles(o.patches, env.Stdin)
	if err != nil {
		return rejected(err)
	}
	p, err := testrun.PairedVerdict(parent, patch, opts...)
	if err != nil {
		return rejected(err)
	}
	if err := printOut(env, o.json, p, func(w io.Writer) { textout.Paired(w, p) }); err != nil {
		return err
	}
	// Frozen tests are excluded from the vote, and logged.
	for _, l := range textout.Frozen(p) {
		fmt.Fprintf(env.Stderr, "testresults verdict: %s\n", l)
	}
	return exportVerdictResult(ctx, "verdict", env, plan, patch, p, verdictCode(env, "verdict", p))
}

// verdictCode is the exit code of p's decision: 1 reject, 3 invalid (said
// on stderr for the command name), else 0.
func verdictCode(env Env, name string, p *testrun.Paired) int {
	switch p.Decision {
	case testrun.DecisionReject:
		return exitFailed
	case testrun.DecisionInvalid:
		fmt.Fprintf(env.Stderr, "testresults %s: the comparison is invalid: %s\n", name, p.Invalid)
		return exitRejected
	}
	return exitOK
}
