package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// exportPlan is a validated export: its options and what goes where.
type exportPlan struct {
	opts    exporter.Options
	session *translate.Session
	runs    []*testrun.Run
	outFile string
	// result is what export delivered.
	result exporter.Result
}

// prepare checks the flags every export shares (output, OTLP, placement)
// and reads the base run with read.
func (o *exportOptions) prepare(fs *pflag.FlagSet, env Env, read func(string) (*testrun.Run, error)) (*exportPlan, error) {
	opts, outFile, err := o.exporterOptions(fs, env)
	if err != nil {
		return nil, err
	}
	p := &exportPlan{opts: opts, outFile: outFile}
	if o.baseRun != "" {
		if p.opts.Base, err = read(o.baseRun); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// plan checks the flags, reads the runs and returns the export to make.
// Errors are *usageError or *inputError.
func (o *exportOptions) plan(fs *pflag.FlagSet, args []string, env Env) (*exportPlan, error) {
	stdin := false
	read := func(path string) (*testrun.Run, error) {
		if path == "-" {
			if stdin {
				return nil, usagef("stdin (-) given twice")
			}
			stdin = true
		}
		return readRunFile(path, env.Stdin)
	}
	p, err := o.prepare(fs, env, read)
	if err != nil {
		return nil, err
	}
	if o.s.Session != "" {
		if p.session, err = o.s.SessionTurns(args, read); err != nil {
			return nil, usageOf(err)
		}
		return p, nil
	}
	if len(args) == 0 {
		return nil, usagef("no RUN.json given")
	}
	for _, a := range args {
		r, err := read(a)
		if err != nil {
			return nil, err
		}
		p.runs = append(p.runs, r)
	}
	return p, nil
}

// planRun returns the export of one run that is yet to be made (parse
// --export), to be given to the plan with put: a job export, or with
// --session the run goes on the one --turn N. The OTLP/JSON of --format
// otlp-json needs -o, since stdout carries the run. Errors are *usageError or
// *inputError.
func (o *exportOptions) planRun(fs *pflag.FlagSet, env Env) (*exportPlan, error) {
	p, err := o.prepare(fs, env, func(path string) (*testrun.Run, error) { return readRunFile(path, env.Stdin) })
	if err != nil {
		return nil, err
	}
	if p.opts.Format == exporter.FormatOTLPJSON && p.outFile == "" {
		return nil, usagef("--format otlp-json needs -o FILE here: stdout carries the run")
	}
	if o.s.Session == "" {
		p.runs = []*testrun.Run{nil}
		return p, nil
	}
	n, err := o.s.OneTurn()
	if err != nil {
		return nil, usageOf(err)
	}
	p.session = &translate.Session{ID: o.s.Session, Turns: []translate.Turn{{Number: n, Runs: []*testrun.Run{nil}}}}
	return p, nil
}

// put gives a plan made by planRun its run.
func (p *exportPlan) put(run *testrun.Run) {
	if p.session != nil {
		p.session.Turns[0].Runs[0] = run
		return
	}
	p.runs[0] = run
}

// readRunFile reads one run from path ("-": stdin): a run's JSON form or a
// TEST-RESULTS.json, whose comparison with a base run is checked and set
// aside (testrun.ReadTestResults).
func readRunFile(path string, stdin io.Reader) (*testrun.Run, error) {
	var r io.Reader
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, &inputError{err}
		}
		defer f.Close()
		r = f
	}
	// The strict reader of package testrun: within testrun.MaxJSONBytes,
	// the exact form only, no contradiction, no forged flag; the keys a
	// TEST-RESULTS.json adds beside the run as strictly.
	results, err := testrun.ReadTestResults(r)
	if err != nil {
		return nil, &inputError{fmt.Errorf("%s: %w", path, err)}
	}
	run := results.Run
	if run.ID == "" {
		return nil, &inputError{fmt.Errorf("%s: the run has no id", path)}
	}
	return run, nil
}
