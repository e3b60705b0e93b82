package main

import (
	"context"
	"errors"
	"io"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
	"github.com/hangar-dev/testresults/translate"
)

func init() {
	register(command{name: "export", synopsis: "export runs as OpenTelemetry spans (OTLP/gRPC or OTLP/JSON)", run: runExport})
}

func runExport(ctx context.Context, args []string, env Env) error {
	fs, o := newExportFlags()
	cf := flagsFor("export", clidoc.Help("export"), fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	p, err := o.plan(fs, fs.Args(), env)
	if err == nil {
		p.opts.Flakiness, err = o.scores(ctx, env, p.target.AllRuns())
	}
	if err != nil {
		return cf.withUsage(rejected(err))
	}
	err = p.export(ctx, env.Stdout)
	if err == nil && !o.quiet {
		textout.SummaryTo(env.Stderr, env.Getenv).Exported(p.result.Summary(p.opts), exporter.SummaryPrefix)
	}
	return exportError(err)
}

// scores returns the flakiness scores of the tests the runs' test.case
// events name (translate.CaseIDs) from the stored history of --repo, else
// the repository the store recorded the runs under, in the runs' own
// environment (store.RunScores). Without --repo, --store or $HANGAR_STORE
// no store is read: the scores inform, and no export opens a store nobody
// named.
func (o *exportOptions) scores(ctx context.Context, env Env, runs []*testrun.Run) (map[string]testrun.Flakiness, error) {
	if o.repo == "" && o.store.loc == "" && env.Getenv(store.EnvStore) == "" {
		return nil, nil
	}
	st, err := o.store.openAt(ctx, env)
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return store.RunScores(ctx, st, o.repo, "", runs, translate.CaseIDs(runs...))
}

// export makes the export: OTLP/JSON to stdout, or to the output file
// whole or not at all (exporter.Options.OutputFile).
func (p *exportPlan) export(ctx context.Context, stdout io.Writer) (err error) {
	p.opts.Output, p.opts.OutputFile = stdout, p.outFile
	p.result, err = p.target.Export(ctx, p.opts)
	return err
}

// exportError classifies a failed export: exit 2 for an unusable
// environment (OTEL_RESOURCE_ATTRIBUTES, TRACEPARENT; no usage printed, no
// flag is at fault), 3 for runs that cannot be exported, 1 otherwise.
func exportError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, exporter.ErrConfig), errors.Is(err, exporter.ErrParent):
		return &exitCode{code: exitUsage, msg: err.Error()}
	case errors.Is(err, translate.ErrInvalid):
		return rejected(err)
	}
	return err
}
