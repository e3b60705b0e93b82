package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
)

// verdictExport is --export of verdict and pair and the export flags that
// go with it.
type verdictExport struct {
	export bool
	exp    *exportOptions
	// names are the export flags registered on the command's set.
	names []string
}

// addVerdictExportFlags registers --export and the export flags that fit
// a verdict (exporter.FitsVerdict) on fs. A flag fs already has keeps its meaning there (verdict's
// --parent is a run; the traceparent then comes from $TRACEPARENT).
func addVerdictExportFlags(fs *pflag.FlagSet) *verdictExport {
	v := &verdictExport{}
	fs.BoolVar(&v.export, "export", false, "also export the verdict: a job.verify span (--job) with the patch runs' events and a test.verdict event; the flags below are export's")
	probe := pflag.NewFlagSet("export", pflag.ContinueOnError)
	v.exp = addExportFlags(probe)
	probe.VisitAll(func(f *pflag.Flag) {
		if !exporter.FitsVerdict(f.Name) || fs.Lookup(f.Name) != nil || (f.Shorthand != "" && fs.ShorthandLookup(f.Shorthand) != nil) {
			return
		}
		fs.AddFlag(f)
		v.names = append(v.names, f.Name)
	})
	return v
}

// plan checks the export flags (exporter.Settings.VerdictOptions): nil
// without --export. Errors are *usageError.
func (v *verdictExport) plan(fs *pflag.FlagSet, env Env) (*exportPlan, error) {
	if !v.export {
		return nil, needExport(fs, v.names)
	}
	v.exp.s.Given = fs.Changed
	opts, outFile, err := v.exp.s.VerdictOptions(env.Getenv, env.Environ)
	return &exportPlan{opts: opts, outFile: outFile}, usageOf(err)
}

// exportVerdictResult exports the verdict when plan is not nil, says so on
// stderr, and ends the command name with the verdict's code, or exit 1
// for a failed export after a verdict that would exit 0.
func exportVerdictResult(ctx context.Context, name string, env Env, plan *exportPlan, patch []*testrun.Run, paired *testrun.Paired, code int) error {
	if plan == nil {
		return withCode(code)
	}
	s, err := exporter.ExportVerdict(ctx, plan.opts, plan.outFile, patch, paired)
	if err != nil {
		return &exitCode{code: max(code, exitFailed), msg: "export: " + err.Error()}
	}
	fmt.Fprintf(env.Stderr, "testresults %s: exported the verdict (%s) on %s span %s of trace %s\n",
		name, paired.Decision, s.Name, s.SpanID, s.TraceID)
	return withCode(code)
}
