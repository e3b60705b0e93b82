package main

import (
	"context"
	"fmt"
	"os"
	"sort"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "verdict", synopsis: "paired verdict of N >= 2 parent and patch runs; exit 1 on broken", run: runVerdict})
}

type verdictOptions struct {
	parents, patches      []string
	pins                  string
	parentPins, patchPins string
	parentTree, patchTree string
	json                  bool
	ve                    *verdictExport
}

func newVerdictFlags() (*pflag.FlagSet, *verdictOptions) {
	fs := newFlagSet("verdict")
	o := &verdictOptions{}
	fs.StringArrayVar(&o.parents, "parent", nil, "a run of the parent (repeat, at least 2)")
	fs.StringArrayVar(&o.patches, "patch", nil, "a run of the patch (repeat, at least 2)")
	fs.StringVar(&o.pins, "pins", "", "fixture pins file (JSON object: path -> sha256)")
	fs.StringVar(&o.parentPins, "parent-pins", "", "the pins recorded on the parent")
	fs.StringVar(&o.patchPins, "patch-pins", "", "the pins recorded on the patch")
	fs.StringVar(&o.parentTree, "parent-tree", "", "the parent's tree: recompute the pinned fixtures there")
	fs.StringVar(&o.patchTree, "patch-tree", "", "the patch's tree: recompute the pinned fixtures there")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	o.ve = addVerdictExportFlags(fs)
	return fs, o
}

func readPinsFile(path string) (testrun.Pins, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := testrun.ReadPins(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// pinsOption resolves the pins flags; nil when none is given.
func (o *verdictOptions) pinsOption() (testrun.VerdictOption, error) {
	if o.pins == "" && o.parentPins == "" && o.patchPins == "" {
		if o.parentTree != "" || o.patchTree != "" {
			return nil, usagef("--parent-tree and --patch-tree need --pins")
		}
		return nil, nil
	}
	read := func(path string) (testrun.Pins, error) {
		p, err := readPinsFile(path)
		if err != nil {
			return nil, &inputError{err}
		}
		return p, nil
	}
	var file, parent, patch testrun.Pins
	var err error
	if o.pins != "" {
		if file, err = read(o.pins); err != nil {
			return nil, err
		}
	}
	paths := func() []string {
		src := file
		if src == nil {
			src = parent
		}
		out := make([]string, 0, len(src))
		for p := range src {
			out = append(out, p)
		}
		sort.Strings(out)
		return out
	}
	switch {
	case o.parentPins != "":
		if parent, err = read(o.parentPins); err != nil {
			return nil, err
		}
	case o.parentTree != "":
		if file == nil {
			return nil, usagef("--parent-tree needs --pins")
		}
		if parent, err = testrun.HashPins(os.DirFS(o.parentTree), paths()); err != nil {
			return nil, &inputError{err}
		}
	default:
		parent = file
	}
	switch {
	case o.patchPins != "":
		if patch, err = read(o.patchPins); err != nil {
			return nil, err
		}
	case o.patchTree != "":
		if patch, err = testrun.HashPins(os.DirFS(o.patchTree), paths()); err != nil {
			return nil, &inputError{err}
		}
	default:
		return nil, usagef("the patch's pins are missing: give --patch-pins or --patch-tree")
	}
	if parent == nil {
		return nil, usagef("the parent's pins are missing: give --pins or --parent-pins")
	}
	return testrun.WithPins(parent, patch), nil
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
	pinOpt, err := o.pinsOption()
	if err != nil {
		if ue, ok := err.(*usageError); ok {
			return cf.usageErr("%s", ue.msg)
		}
		return rejected(err)
	}
	plan, err := o.ve.plan(fs, env)
	if err != nil {
		return cf.usageErr("%v", err)
	}
	read := func(paths []string) ([]*testrun.Run, error) {
		var runs []*testrun.Run
		for _, p := range paths {
			r, err := readRunFile(p, env.Stdin)
			if err != nil {
				return nil, err
			}
			runs = append(runs, r)
		}
		return runs, nil
	}
	parent, err := read(o.parents)
	if err == nil {
		var patch []*testrun.Run
		if patch, err = read(o.patches); err == nil {
			// Runs read from files may be copies of one another.
			opts := []testrun.VerdictOption{testrun.WithCopiesRefused()}
			if pinOpt != nil {
				opts = append(opts, pinOpt)
			}
			return reportVerdict(ctx, env, o, plan, parent, patch, opts)
		}
	}
	return rejected(err)
}

func reportVerdict(ctx context.Context, env Env, o *verdictOptions, plan *exportPlan, parent, patch []*testrun.Run, opts []testrun.VerdictOption) error {
	p, err := testrun.PairedVerdict(parent, patch, opts...)
	if err != nil {
		return rejected(err)
	}
	if o.json {
		if err := writeJSON(env.Stdout, p); err != nil {
			return err
		}
	} else {
		textout.Paired(term.NewWriter(env.Stdout), p)
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
