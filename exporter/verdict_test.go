package exporter_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// TestExportVerdict: the verdict goes out as one job.verify span whose
// last event is test.verdict, after the patch runs' test.run events; to
// an output file it is written whole, and a failed export leaves no file.
func TestExportVerdict(t *testing.T) {
	patch := []*testrun.Run{readRun(t, "failures/run.json"), readRun(t, "errors/run.json")}
	paired := &testrun.Paired{Decision: testrun.DecisionReject, Broken: []testrun.TestVerdict{{ID: "pkg.T::broken", Verdict: testrun.VerdictBroken}}}
	ctx := context.Background()
	o := exporter.Options{Format: exporter.FormatOTLPJSON, JobID: "job-7", Getenv: noEnv, Environ: func() []string { return nil }}

	check := func(t *testing.T, line []byte, span translate.Span) {
		t.Helper()
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(bytes.TrimSpace(line))
		require.NoError(t, err)
		spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		require.Equal(t, 1, spans.Len())
		s := spans.At(0)
		assert.Equal(t, "job.verify", s.Name())
		assert.Equal(t, span.Name, s.Name())
		assert.Equal(t, span.SpanID.String(), s.SpanID().String())
		job, ok := s.Attributes().Get(string(semconv.JobIDKey))
		require.True(t, ok)
		assert.Equal(t, "job-7", job.Str())
		var names []string
		for i := 0; i < s.Events().Len(); i++ {
			names = append(names, s.Events().At(i).Name())
		}
		require.NotEmpty(t, names)
		assert.Equal(t, "test.verdict", names[len(names)-1], "the verdict comes after the runs' events")
		assert.Equal(t, 2, strings.Count(strings.Join(names, " "), "test.run"), "%v", names)
	}

	t.Run("to the output", func(t *testing.T) {
		var buf bytes.Buffer
		o := o
		o.Output = &buf
		span, err := exporter.ExportVerdict(ctx, o, "", patch, paired)
		require.NoError(t, err)
		check(t, buf.Bytes(), span)
	})
	t.Run("to a file, written whole", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "verdict.json")
		span, err := exporter.ExportVerdict(ctx, o, out, patch, paired)
		require.NoError(t, err)
		b, err := os.ReadFile(out)
		require.NoError(t, err)
		check(t, b, span)
	})
	t.Run("a verdict translate refuses leaves no file", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "verdict.json")
		_, err := exporter.ExportVerdict(ctx, o, out, patch, &testrun.Paired{Decision: "maybe"})
		require.Error(t, err)
		_, serr := os.Stat(out)
		assert.True(t, os.IsNotExist(serr), "%v", serr)
	})
}
