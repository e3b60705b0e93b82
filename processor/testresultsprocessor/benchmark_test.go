package testresultsprocessor

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processorhelper"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/hangar-dev/testresults/semconv"
)

// foreignNames are span names as other instrumentation writes them, some of
// the same length as ours.
var foreignNames = []string{
	"HTTP GET", "db.query", "job.verifx", "GET /api/v1/items/{id}", "grpc.health.v1.Health/Check",
	"job.prepare", "session.turn", "redis SET", "job.provisio", "render template",
}

// benchTraces is a batch of n spans in scopes of 100 under one trusted
// resource; every ours-th span (0: none) is a job.verify span with one
// test.run event with forged flags and two test.case events.
func benchTraces(tb testing.TB, n, ours int) ptrace.Traces {
	tb.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), verifier)
	var ss ptrace.ScopeSpans
	for i := 0; i < n; i++ {
		if i%100 == 0 {
			ss = rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName(fmt.Sprintf("scope-%d", i/100))
		}
		sp := ss.Spans().AppendEmpty()
		sp.SetTraceID(pcommon.TraceID{byte(i), byte(i >> 8), 1})
		sp.SetSpanID(pcommon.SpanID{byte(i), byte(i >> 8), 2})
		sp.SetStartTimestamp(pcommon.Timestamp(1_000_000_000 + i))
		sp.SetEndTimestamp(pcommon.Timestamp(2_000_000_000 + i))
		if ours > 0 && i%ours == ours/2 {
			sp.SetName(semconv.SpanJobVerify)
			sp.Attributes().PutStr(string(semconv.JobIDKey), "job-1")
			putAttrs(tb, sp.Events().AppendEmpty().Attributes(), runAttrs(attr{keyTrusted, true}, attr{keyCounted, true}))
			sp.Events().At(0).SetName(semconv.EventTestRun)
			for c := 0; c < 2; c++ {
				ev := sp.Events().AppendEmpty()
				ev.SetName(semconv.EventTestCase)
				ev.Attributes().PutStr(string(semconv.TestCaseNameKey), fmt.Sprintf("pkg.Test%d", c))
				ev.Attributes().PutStr(string(semconv.TestCaseResultStatusKey), "fail")
			}
			continue
		}
		sp.SetName(foreignNames[i%len(foreignNames)])
		sp.Attributes().PutStr("http.route", "/api/v1/items/{id}")
		sp.Attributes().PutInt("http.response.status_code", 200)
		sp.Events().AppendEmpty().SetName("message")
	}
	return td
}

func passThrough(tb testing.TB, next consumer.Traces) processor.Traces {
	tb.Helper()
	p, err := processorhelper.NewTraces(context.Background(), processortest.NewNopSettings(Type), verifierConfig(), next,
		func(_ context.Context, td ptrace.Traces) (ptrace.Traces, error) { return td, nil },
		processorhelper.WithCapabilities(consumer.Capabilities{MutatesData: true}))
	require.NoError(tb, err)
	return p
}

func benchProcessors(b *testing.B) []struct {
	name string
	p    processor.Traces
} {
	b.Helper()
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(Type), verifierConfig(), consumertest.NewNop())
	require.NoError(b, err)
	return []struct {
		name string
		p    processor.Traces
	}{
		{"passthrough", passThrough(b, consumertest.NewNop())},
		{"testresults", p},
	}
}

// BenchmarkProcess measures the processor alone on a batch that is reused
// across iterations (recomputing is idempotent, so every iteration does the
// same work): the added cost per span.
func BenchmarkProcess(b *testing.B) {
	for _, mix := range []struct {
		name string
		ours int
	}{{"ours=1pct", 100}, {"ours=none", 0}} {
		for _, pr := range benchProcessors(b) {
			b.Run(fmt.Sprintf("%s/proc=%s", mix.name, pr.name), func(b *testing.B) {
				td := benchTraces(b, 1000, mix.ours)
				size := (&ptrace.ProtoMarshaler{}).TracesSize(td)
				ctx := context.Background()
				b.SetBytes(int64(size))
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					if err := pr.p.ConsumeTraces(ctx, td); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(td.SpanCount())*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
			})
		}
	}
}

// BenchmarkPipeline measures a batch as the OTLP receiver hands it on: each
// iteration decodes the request into fresh pdata, then the processor runs.
func BenchmarkPipeline(b *testing.B) {
	td := benchTraces(b, 1000, 100)
	req, err := (&ptrace.ProtoMarshaler{}).MarshalTraces(td)
	require.NoError(b, err)
	for _, pr := range benchProcessors(b) {
		b.Run("ours=1pct/proc="+pr.name, func(b *testing.B) {
			ctx := context.Background()
			u := &ptrace.ProtoUnmarshaler{}
			b.SetBytes(int64(len(req)))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				in, err := u.UnmarshalTraces(req)
				if err != nil {
					b.Fatal(err)
				}
				if err := pr.p.ConsumeTraces(ctx, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(td.SpanCount())*float64(b.N)/b.Elapsed().Seconds(), "spans/s")
		})
	}
}

// TestNoAllocations: a foreign span costs no allocation, and neither does a
// batch whose runs already carry the right flags.
func TestNoAllocations(t *testing.T) {
	p := newProcessor(verifierConfig(), nil, nil)
	ctx := context.Background()

	foreign := benchTraces(t, 1000, 0)
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = p.processTraces(ctx, foreign)
	})
	assert.Zero(t, allocs, "foreign spans")

	tel, err := newTelemetry(processortest.NewNopSettings(Type).TelemetrySettings, processortest.NewNopSettings(Type).ID)
	require.NoError(t, err)
	p.telemetry = tel
	mixed := benchTraces(t, 1000, 100)
	_, _ = p.processTraces(ctx, mixed) // the first pass overwrites the forged flags
	allocs = testing.AllocsPerRun(100, func() {
		_, _ = p.processTraces(ctx, mixed)
	})
	assert.Zero(t, allocs, "runs whose flags are already right")
}
