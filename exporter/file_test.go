package exporter_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/translate"
)

// fileTraces are the pdata traces of the job export case.
func fileTraces(t *testing.T) ptrace.Traces {
	t.Helper()
	res, err := exporter.NewResource(context.Background(), "", noEnv)
	require.NoError(t, err)
	return translate.Traces(exportCases()[0].spans(t), res)
}

func TestFileExporter(t *testing.T) {
	var buf bytes.Buffer
	exp := exporter.NewFileExporter(&buf)
	ctx := context.Background()
	td := fileTraces(t)
	require.NoError(t, exp.WriteTraces(td))
	one := ptrace.NewTraces()
	td.ResourceSpans().At(0).CopyTo(one.ResourceSpans().AppendEmpty())
	one.ResourceSpans().At(0).ScopeSpans().At(0).Spans().RemoveIf(func(s ptrace.Span) bool {
		return s.SpanID() != td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).SpanID()
	})
	require.NoError(t, exp.WriteTraces(one))
	require.NoError(t, exp.ForceFlush(ctx))
	require.NoError(t, exp.Shutdown(ctx))
	require.NoError(t, exp.Shutdown(ctx), "a second shutdown is harmless")
	require.ErrorIs(t, exp.WriteTraces(td), exporter.ErrShutdown)

	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	require.Len(t, lines, 2, "one line per write")
	var u ptrace.JSONUnmarshaler
	first, err := u.UnmarshalTraces(lines[0])
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(td, first))
	assertSameFlags(t, td, first)
	second, err := u.UnmarshalTraces(lines[1])
	require.NoError(t, err)
	assert.Equal(t, 1, second.SpanCount())
	assert.True(t, bytes.HasPrefix(lines[0], []byte(`{"resourceSpans":[`)), "an ExportTraceServiceRequest object")
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestFileExporterErrors(t *testing.T) {
	err := exporter.NewFileExporter(failingWriter{}).WriteTraces(fileTraces(t))
	require.ErrorIs(t, err, assert.AnError)
	assert.Contains(t, err.Error(), "exporter: write OTLP/JSON")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var buf bytes.Buffer
	exp := exporter.NewFileExporter(&buf)
	require.ErrorIs(t, exp.ForceFlush(ctx), context.Canceled)
	require.ErrorIs(t, exp.Shutdown(ctx), context.Canceled)
	assert.Zero(t, buf.Len())
}

type flushWriter struct {
	bytes.Buffer
	flushed int
}

func (w *flushWriter) Flush() error { w.flushed++; return nil }

func TestFileExporterFlush(t *testing.T) {
	w := &flushWriter{}
	exp := exporter.NewFileExporter(w)
	require.NoError(t, exp.ForceFlush(context.Background()))
	require.NoError(t, exp.Shutdown(context.Background()))
	assert.Equal(t, 2, w.flushed)
}

// assertSameFlags compares span flags, which CompareTraces leaves out.
func assertSameFlags(t *testing.T, want, got ptrace.Traces) {
	t.Helper()
	collect := func(td ptrace.Traces) map[pcommon.SpanID]uint32 {
		m := map[pcommon.SpanID]uint32{}
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					m[s.SpanID()] = s.Flags()
				}
			}
		}
		return m
	}
	assert.Equal(t, collect(want), collect(got))
}
