package exporter_test

import (
	"context"
	"io"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// countingWriter counts what the file exporter writes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkFileExporter measures the OTLP/JSON writer (conversion of the SDK
// spans to pdata and JSON marshalling) on a job span with 1,000 test.case
// events; bytes are the JSON written.
func BenchmarkFileExporter(b *testing.B) {
	ctx := context.Background()
	spans, err := translate.JobSpans(translate.Job{ID: "bench"}, []*testrun.Run{manyFailures(b, 1000, 512)})
	if err != nil {
		b.Fatal(err)
	}
	res := resource.NewSchemaless(attributeServiceName())
	ended, err := exporter.RecordSpans(ctx, spans, res)
	if err != nil {
		b.Fatal(err)
	}
	var w countingWriter
	if err := exporter.NewFileExporter(&w).ExportSpans(ctx, ended); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(w.n)
	b.ReportAllocs()
	exp := exporter.NewFileExporter(io.Discard)
	for b.Loop() {
		if err := exp.ExportSpans(ctx, ended); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTraces measures the ReadOnlySpan to pdata conversion alone.
func BenchmarkTraces(b *testing.B) {
	ctx := context.Background()
	spans, err := translate.JobSpans(translate.Job{ID: "bench"}, []*testrun.Run{manyFailures(b, 1000, 512)})
	if err != nil {
		b.Fatal(err)
	}
	ended, err := exporter.RecordSpans(ctx, spans, resource.NewSchemaless(attributeServiceName()))
	if err != nil {
		b.Fatal(err)
	}
	var m ptrace.ProtoMarshaler
	b.SetBytes(int64(m.TracesSize(exporter.Traces(ended))))
	b.ReportAllocs()
	for b.Loop() {
		exporter.Traces(ended)
	}
}

func attributeServiceName() attribute.KeyValue { return attribute.String("service.name", "bench") }
