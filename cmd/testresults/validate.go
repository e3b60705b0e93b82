package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

func init() {
	register(command{name: "validate", synopsis: "the fail-closed gate for a test tool's JSON result", run: runValidate})
}

type validateOptions struct {
	schema bool
	shadow string
	dir    string
	json   bool
}

func newValidateFlags() (*pflag.FlagSet, *validateOptions) {
	fs := newFlagSet("validate")
	o := &validateOptions{}
	fs.BoolVar(&o.schema, "schema", false, "print the JSON Schema of a tool result and exit")
	fs.StringVar(&o.shadow, "shadow", "", "shadow mode: append the raw result and the verdict to LOG, exit 0")
	fs.StringVar(&o.dir, "dir", "", "the directory a relative junit_path is relative to (default: the current directory)")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	return fs, o
}

func runValidate(_ context.Context, args []string, env Env) error {
	fs, o := newValidateFlags()
	cf := flagsFor("validate", clidoc.Help("validate"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	if o.schema {
		if _, err := env.Stdout.Write(testrun.ToolResultSchema); err != nil {
			return withCode(exitFailed)
		}
		return nil
	}
	if fs.NArg() != 2 {
		return cf.usageErr("want RESULT.json and JUNIT.xml, got %d arguments", fs.NArg())
	}
	raw, v, err := report.CheckToolResultFile(fs.Arg(0), fs.Arg(1), o.dir, env.Stdin)
	if err != nil {
		return rejected(err)
	}
	if o.shadow != "" {
		rec := testrun.NewShadowRecord(time.Now(), fs.Arg(0), fs.Arg(1), raw, v)
		if err := testrun.AppendShadow(o.shadow, rec); err != nil {
			fmt.Fprintf(env.Stderr, "testresults validate: --shadow: %v\n", err)
		}
		fmt.Fprintf(env.Stderr, "testresults validate: shadow: %s\n", textout.ToolVerdictWord(v))
		return nil
	}
	if err := printOut(env, o.json, v, func(w io.Writer) { textout.ToolVerdict(w, v) }); err != nil {
		return err
	}
	return failedIf(!v.Accepted)
}
