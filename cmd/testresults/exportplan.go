package main

import (
	"io"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
)

// exportPlan is a validated export: its options and what goes where.
type exportPlan struct {
	opts    exporter.Options
	target  exporter.Target
	outFile string
	// result is what export delivered.
	result exporter.Result
}

// plan checks the flags, reads the base run and the runs (at most one
// from stdin) and returns the export to make (exporter.Settings.Plan).
// Errors are *usageError or *inputError.
func (o *exportOptions) plan(fs *pflag.FlagSet, args []string, env Env) (*exportPlan, error) {
	stdin := false
	read := func(path string) (*testrun.Run, error) {
		if path == "-" && stdin {
			return nil, usagef("stdin (-) given twice")
		}
		stdin = stdin || path == "-"
		return readRunFile(path, env.Stdin)
	}
	o.s.Given, o.s.BaseRun = fs.Changed, o.baseRun
	p, err := o.s.Plan(args, read, env.Getenv, env.Environ)
	return &exportPlan{opts: p.Options, target: p.Target, outFile: p.Options.OutputFile}, usageOf(err)
}

// planRun returns the export of one run yet to be made (parse, run
// --export; exporter.Settings.PendingPlan), given its run with put.
func (o *exportOptions) planRun(fs *pflag.FlagSet, env Env) (*exportPlan, error) {
	o.s.Given, o.s.BaseRun = fs.Changed, o.baseRun
	p, err := o.s.PendingPlan(func(path string) (*testrun.Run, error) { return readRunFile(path, env.Stdin) }, env.Getenv, env.Environ)
	return &exportPlan{opts: p.Options, target: p.Target, outFile: p.Options.OutputFile}, usageOf(err)
}

// put gives a plan made by planRun its run.
func (p *exportPlan) put(run *testrun.Run) { p.target.Put(run) }

// readRunFile reads one run from path ("-": stdin) as testrun.ReadRunFile
// does; a run that cannot be read is refused input (exit 3).
func readRunFile(path string, stdin io.Reader) (*testrun.Run, error) {
	r, err := testrun.ReadRunFile(path, stdin)
	if err != nil {
		return nil, &inputError{err}
	}
	return r, nil
}
