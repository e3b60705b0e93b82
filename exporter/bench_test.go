package exporter_test

import (
	"context"
	"io"
	"testing"
	"time"

	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// countingWriter counts what the file exporter writes.
type countingWriter struct{ n int64 }

func (w *countingWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// BenchmarkFileExporter measures the OTLP/JSON form (translate.Traces and
// JSON marshalling) of a job span with 1,000 test.case events; bytes are the
// JSON written.
func BenchmarkFileExporter(b *testing.B) {
	spans, err := translate.JobSpans(translate.Job{ID: "bench"}, []*testrun.Run{manyFailures(b, 1000, 512)})
	if err != nil {
		b.Fatal(err)
	}
	res := resource.NewSchemaless(attributeServiceName())
	var w countingWriter
	if err := exporter.NewFileExporter(&w).WriteTraces(translate.Traces(spans, res)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(w.n)
	b.ReportAllocs()
	exp := exporter.NewFileExporter(io.Discard)
	for b.Loop() {
		if err := exp.WriteTraces(translate.Traces(spans, res)); err != nil {
			b.Fatal(err)
		}
	}
}

func attributeServiceName() attribute.KeyValue { return attribute.String("service.name", "bench") }

// BenchmarkExportSession measures a whole session export (translate,
// record, batch, send) to the collector's OTLP receiver in process on
// 127.0.0.1, over gRPC and over HTTP: 20 turns, each a run with 50 failing
// tests. It reports spans/s and test.case events/s.
func BenchmarkExportSession(b *testing.B) {
	turns := make([]translate.Turn, 20)
	for i := range turns {
		turns[i] = translate.Turn{Number: i + 1, Runs: []*testrun.Run{manyFailures(b, 50, 200)}}
	}
	session := translate.Session{ID: "bench", Turns: turns}
	const spans, events = 21, 20 * 51 // the session and its turns; 50 test.case and 1 test.run per turn
	for _, p := range []exporter.Protocol{exporter.ProtocolGRPC, exporter.ProtocolHTTPProtobuf} {
		b.Run(string(p), func(b *testing.B) {
			sink := new(consumertest.TracesSink)
			addr := startReceiver(b, sink)
			if p == exporter.ProtocolHTTPProtobuf {
				addr = startHTTPReceiver(b, sink)
			}
			o := exporter.Options{Getenv: noEnv, Environ: func() []string { return nil },
				OTLP: exporter.OTLPOptions{Protocol: p, Endpoint: addr, Insecure: true, Timeout: 10 * time.Second}}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := exporter.ExportSession(context.Background(), session, o); err != nil {
					b.Fatal(err)
				}
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(spans*b.N)/s, "spans/s")
			b.ReportMetric(float64(events*b.N)/s, "events/s")
			if sink.SpanCount() != spans*b.N {
				b.Fatalf("%d spans arrived, want %d", sink.SpanCount(), spans*b.N)
			}
		})
	}
}
