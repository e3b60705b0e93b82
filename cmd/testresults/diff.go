package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "diff", synopsis: "compare a run with its base: new failures, fixed, flaky, coverage", run: runDiff})
}

type diffOptions struct {
	json                    bool
	baseOutput, afterOutput string
}

func newDiffFlags() (*pflag.FlagSet, *diffOptions) {
	fs := newFlagSet("diff")
	o := &diffOptions{}
	fs.BoolVar(&o.json, "json", false, "print the comparison as JSON on stdout")
	fs.StringVar(&o.baseOutput, "base-output", "", "the base check's kept output (its last 1 MiB is read)")
	fs.StringVar(&o.afterOutput, "after-output", "", "the after check's kept output (its last 1 MiB is read)")
	return fs, o
}

// writeJSON writes v as indented JSON, keeping <, > and & readable.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// printOut prints v as JSON on stdout with --json, else for people
// through human, to stdout escaped for the terminal: test ids and messages
// come from reports.
func printOut(env Env, asJSON bool, v any, human func(w io.Writer)) error {
	if asJSON {
		return writeJSON(env.Stdout, v)
	}
	human(term.NewWriter(env.Stdout))
	return nil
}

func runDiff(_ context.Context, args []string, env Env) error {
	fs, o := newDiffFlags()
	cf := flagsFor("diff", clidoc.Help("diff"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return cf.usageErr("want BASE.json and AFTER.json, got %d arguments", fs.NArg())
	}
	if fs.Arg(0) == "-" && fs.Arg(1) == "-" {
		return cf.usageErr("only one run can come from stdin")
	}
	base, err := readRunFile(fs.Arg(0), env.Stdin)
	if err != nil {
		return rejectedf("base: %w", err)
	}
	after, err := readRunFile(fs.Arg(1), env.Stdin)
	if err != nil {
		return rejectedf("after: %w", err)
	}
	opts, err := testrun.ReadOutputs(o.baseOutput, o.afterOutput)
	var rerr *testrun.OutputReadError
	switch {
	case errors.Is(err, testrun.ErrBaseOutputAlone):
		return cf.usageErr("--base-output needs --after-output")
	case errors.As(err, &rerr) && rerr.After:
		return rejectedf("--after-output: %w", rerr.Err)
	case errors.As(err, &rerr):
		return rejectedf("--base-output: %w", rerr.Err)
	}
	c := testrun.Compare(base, after, opts...)
	if err := printOut(env, o.json, c, func(w io.Writer) { textout.Comparison(w, c, after) }); err != nil {
		return err
	}
	return failedIf(c.Failed())
}
