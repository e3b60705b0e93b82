package main

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// verdictExportSkipped are the export flags that do not fit a verdict: the
// patch runs go on the job's verification span, never on a session, a
// provisioning span or beside another base.
var verdictExportSkipped = map[string]bool{"base": true, "session": true, "turn": true, "base-run": true}

// verdictExport is --export of verdict and pair and the export flags that
// go with it.
type verdictExport struct {
	export bool
	exp    *exportOptions
	// names are the export flags registered on the command's set.
	names []string
}

// addVerdictExportFlags registers --export and the export flags that fit
// a verdict on fs. A flag fs already has keeps its meaning there (verdict's
// --parent is a run; the traceparent then comes from $TRACEPARENT).
func addVerdictExportFlags(fs *pflag.FlagSet) *verdictExport {
	v := &verdictExport{}
	fs.BoolVar(&v.export, "export", false, "also export the verdict: a job.verify span (--job) with the patch runs' events and a test.verdict event; the flags below are export's")
	probe := pflag.NewFlagSet("export", pflag.ContinueOnError)
	v.exp = addExportFlags(probe)
	probe.VisitAll(func(f *pflag.Flag) {
		if verdictExportSkipped[f.Name] || fs.Lookup(f.Name) != nil || (f.Shorthand != "" && fs.ShorthandLookup(f.Shorthand) != nil) {
			return
		}
		fs.AddFlag(f)
		v.names = append(v.names, f.Name)
	})
	return v
}

// plan checks the export flags: nil without --export. Errors are
// *usageError.
func (v *verdictExport) plan(fs *pflag.FlagSet, env Env) (*exportPlan, error) {
	if !v.export {
		for _, name := range v.names {
			if fs.Changed(name) {
				return nil, usagef("--%s is an export flag: add --export", name)
			}
		}
		return nil, nil
	}
	opts, outFile, err := v.exp.exporterOptions(fs, env)
	if err != nil {
		return nil, err
	}
	if opts.Format == exporter.FormatOTLPJSON && outFile == "" {
		return nil, usagef("--format otlp-json needs -o FILE here: stdout carries the verdict")
	}
	return &exportPlan{opts: opts, outFile: outFile}, nil
}

// exportVerdict exports the job.verify span of the patch runs with the
// test.verdict event of paired after their events, and returns the span.
func (p *exportPlan) exportVerdict(ctx context.Context, patch []*testrun.Run, paired *testrun.Paired) (translate.Span, error) {
	opts := p.opts
	var buf bytes.Buffer
	if opts.Format == exporter.FormatOTLPJSON {
		opts.Output = &buf
	}
	var span translate.Span
	_, err := exporter.ExportBuilt(ctx, opts, func(topts []translate.Option) ([]translate.Span, error) {
		spans, err := translate.JobSpans(translate.Job{ID: opts.JobID}, patch, topts...)
		if err != nil {
			return nil, err
		}
		if err := translate.AddVerdict(&spans[0], paired); err != nil {
			return nil, err
		}
		span = spans[0]
		return spans, nil
	})
	if err != nil || opts.Format != exporter.FormatOTLPJSON {
		return span, err
	}
	return span, exporter.WriteFile(p.outFile, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// exportVerdictResult exports the verdict when plan is not nil, says so on
// stderr, and ends the command name with the verdict's code, or exit 1
// for a failed export after a verdict that would exit 0.
func exportVerdictResult(ctx context.Context, name string, env Env, plan *exportPlan, patch []*testrun.Run, paired *testrun.Paired, code int) error {
	if plan == nil {
		return withCode(code)
	}
	s, err := plan.exportVerdict(ctx, patch, paired)
	if err != nil {
		if code == exitOK {
			code = exitFailed
		}
		return &exitCode{code: code, msg: "export: " + err.Error()}
	}
	fmt.Fprintf(env.Stderr, "testresults %s: exported the verdict (%s) on %s span %s of trace %s\n",
		name, paired.Decision, s.Name, s.SpanID, s.TraceID)
	return withCode(code)
}
