package e2e

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/processor/testresultsprocessor"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// TestProcessorAgrees runs exported spans through the collector's
// testresults processor (in process: no collector needed), with their
// source trusted: it recomputes trusted and counted from the exported
// attributes and must find what the export wrote, on job.verify,
// job.provision and any other span alike.
func TestProcessorAgrees(t *testing.T) {
	ctx := context.Background()
	// No environment: the developer's OTEL_* variables stay out of the test.
	res, err := exporter.NewResource(ctx, "", func(string) string { return "" })
	require.NoError(t, err)
	var runs []*testrun.Run
	for _, f := range []string{
		"failures/run.json", "flaky/run.json", "errors/run.json", "coverage/run.json", "grader/run.json",
		"grader_lower/run.json", "incomplete/run.json", "no_times/run.json", "session/turn1.json",
	} {
		f, err := os.Open(filepath.Join("..", "translate", "testdata", f))
		require.NoError(t, err)
		run, err := testrun.ReadRun(f)
		require.NoError(t, f.Close())
		require.NoError(t, err, f.Name())
		runs = append(runs, run)
	}
	for _, provision := range []bool{false, true} {
		spans, err := translate.JobSpans(translate.Job{ID: "job", Provision: provision}, runs)
		require.NoError(t, err)
		td := translate.Traces(spans, res)

		f := testresultsprocessor.NewFactory()
		cfg := f.CreateDefaultConfig().(*testresultsprocessor.Config)
		cfg.TrustAllSources = true
		sink := new(consumertest.TracesSink)
		p, err := f.CreateTraces(ctx, processortest.NewNopSettings(f.Type()), cfg, sink)
		require.NoError(t, err)
		in := ptrace.NewTraces()
		td.CopyTo(in)
		require.NoError(t, p.ConsumeTraces(ctx, in))
		require.Len(t, sink.AllTraces(), 1)
		out := sink.AllTraces()[0]

		// The processor also sums the runs up on the span: trusted (counted)
		// only when every run on it is. The export does not write these.
		span := out.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
		trusted, ok := span.Attributes().Get(string(semconv.TestRunTrustedKey))
		require.True(t, ok)
		assert.False(t, trusted.Bool(), "some of the runs are not trusted")
		span.Attributes().Remove(string(semconv.TestRunTrustedKey))
		span.Attributes().Remove(string(semconv.TestRunCountedKey))
		require.NoError(t, ptracetest.CompareTraces(td, out), "the events are as exported")
	}
}
