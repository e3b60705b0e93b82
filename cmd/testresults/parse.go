package main

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/attest"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "parse", synopsis: "parse report files or folders into a run (JSON on stdout)", run: runParse})
}

type parseOptions struct {
	// d is what the flags say of the run; the times and the exit code
	// are set on it by check.
	d        testrun.Description
	exitCode int
	status   string
	started  string
	ended    string
	workDir  string
	expect   string
	envName  string
	quiet    bool
	export   bool
	exp      *exportOptions
	store    *storeOptions
}

func newParseFlags() (*pflag.FlagSet, *parseOptions) {
	o := &parseOptions{}
	fs := newFlagSet("parse")
	addKindFlags(fs, (*string)(&o.d.Kind), &o.d.Grade)
	fs.StringVar(&o.d.Commit, "commit", "", "the commit the check ran on (hex SHA)")
	fs.IntVar(&o.exitCode, "exit-code", 0, "the check's own exit code (0-255); sets status success or failure")
	fs.StringVar(&o.d.Command, "command", "", "the check's command line")
	fs.StringVar(&o.d.ID, "id", "", "the run id (default: derived from the reports' SHA-256)")
	fs.StringVar(&o.d.Tree, "tree", "", "the digest of the working tree the check ran on")
	fs.StringVar(&o.d.AgentRunID, "agent-run-id", "", "the agent run the check checked")
	fs.StringVar(&o.status, "status", "", "how the check ended: success, failure, timed_out, aborted (default: from --exit-code)")
	fs.StringVar(&o.started, "started-at", "", "when the check started (RFC 3339)")
	fs.StringVar(&o.ended, "ended-at", "", "when the check ended (RFC 3339)")
	fs.StringVar(&o.workDir, "work-dir", "", "the folder the check ran in: coverage paths under it are made relative (default: the current folder)")
	fs.StringVar(&o.expect, "expect-ids", "", "check the run against the tests it was expected to run: a file of test ids, one a line, or a run's JSON form (its cases)")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no summary on stderr")
	fs.BoolVar(&o.export, "export", false, "also export the run as spans; the flags below are export's")
	o.exp = addExportFlags(fs)
	fs.StringVar(&o.envName, "env", "default", "the environment the recorded runs are for (--record): their history and scores are that environment's")
	o.store = addStoreFlags(fs)
	return fs, o
}

func runParse(ctx context.Context, args []string, env Env) error {
	fs, o := newParseFlags()
	cf := flagsFor("parse", clidoc.Help("parse"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if err := o.check(cf); err != nil {
		return err
	}
	expected, err := readExpectedIDs(fs, o.expect)
	if err != nil {
		return cf.usageErr("%s", err)
	}
	var plan *exportPlan
	if o.export {
		// Check the export flags (and read a base run) before reading
		// any report.
		if plan, err = o.exp.planRun(fs, env); err != nil {
			return cf.withUsage(rejected(err))
		}
	} else if err := needExport(fs, exportFlagNames()); err != nil {
		return cf.usageErr("%v", err)
	}
	// Redacted with the environment's secrets; the builder decides by every
	// id the reports mention, before it caps the cases it keeps.
	ropts := []report.Option{report.WithWorkDir(o.workDir), report.WithRunOptions(testrun.WithRedactor(testrun.NewRedactor(env.Environ())))}
	if expected != nil {
		ropts = append(ropts, report.WithRunOptions(testrun.WithExpectedIDs(expected)))
	}
	run, rerr := report.ReadRun(fs.Args(), ropts...)
	o.d.Describe(run)
	if err := writeJSON(env.Stdout, run); err != nil {
		return rejected(err)
	}
	if err := o.store.record(ctx, env, run); err != nil {
		return rejectedf("record: %v", err)
	}
	sum := textout.SummaryTo(env.Stderr, env.Getenv)
	if !o.quiet {
		sum.Parsed(run)
	}
	code := exitOK
	if rerr != nil {
		// Printed here, before the export.
		sum.Refused(rerr, run)
		code = exitRejected
	}
	if plan != nil {
		// Even a run whose every report was refused is exported: it is
		// evidence that the check left nothing readable (incomplete, never
		// counted), not something to drop.
		plan.put(run)
		if err := plan.export(ctx, env.Stdout); err != nil {
			return fmt.Errorf("export: %v", err)
		}
	}
	return withCode(code)
}

// check checks the flags and completes o.d: the times, the exit code when
// given and the status (testrun.Description.Check).
func (o *parseOptions) check(cf *cmdFlags) error {
	fs, usageErr := cf.fs, cf.usageErr
	if fs.NArg() == 0 {
		return usageErr("no PATH given")
	}
	if err := checkKindFlags(cf, string(o.d.Kind), o.d.Grade); err != nil {
		return err
	}
	if o.d.Commit != "" && !attest.IsCommitSHA(o.d.Commit) {
		return usageErr("--commit %q is not a hex commit SHA", o.d.Commit)
	}
	var err error
	if o.d.StartedAt, err = timeFlag(cf, "started-at", o.started); err != nil {
		return err
	}
	if o.d.EndedAt, err = timeFlag(cf, "ended-at", o.ended); err != nil {
		return err
	}
	if fs.Changed("exit-code") {
		o.d.ExitCode = &o.exitCode
	}
	o.d.Status = testrun.Status(o.status)
	if err = o.d.Check(); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// exportFlagNames lists the flags that addExportFlags registers.
var exportFlagNames = sync.OnceValue(func() []string {
	probe := pflag.NewFlagSet("probe", pflag.ContinueOnError)
	addExportFlags(probe)
	var names []string
	probe.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	return names
})

// readExpectedIDs reads the file of --expect-ids
// (testrun.ReadExpectedIDsFile); nil when the flag is not given.
func readExpectedIDs(fs *pflag.FlagSet, path string) ([]string, error) {
	if !fs.Changed("expect-ids") {
		return nil, nil
	}
	if path == "" {
		return nil, errors.New("--expect-ids is empty")
	}
	ids, err := testrun.ReadExpectedIDsFile(path)
	if err != nil {
		return nil, fmt.Errorf("--expect-ids: %v", err)
	}
	return ids, nil
}
