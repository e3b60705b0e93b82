package exporter_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/exporter"
)

var t0 = time.Date(2025, 3, 4, 5, 6, 7, 800, time.UTC)

func mustTraceID(t testing.TB, s string) trace.TraceID {
	id, err := trace.TraceIDFromHex(s)
	require.NoError(t, err)
	return id
}

func mustSpanID(t testing.TB, s string) trace.SpanID {
	id, err := trace.SpanIDFromHex(s)
	require.NoError(t, err)
	return id
}

// everyAttributeType has one attribute of every type the SDK knows.
var everyAttributeType = []attribute.KeyValue{
	attribute.Bool("bool", true), attribute.Int64("int", -42), attribute.Float64("double", 0.25),
	attribute.String("string", "s"), attribute.BoolSlice("bools", []bool{true, false}),
	attribute.Int64Slice("ints", []int64{1, 2}), attribute.Float64Slice("doubles", []float64{1.5, -2}),
	attribute.StringSlice("strings", []string{"a", "b"}), attribute.ByteSlice("bytes", []byte{0, 1, 0xff}),
	attribute.Slice("mixed", attribute.IntValue(1), attribute.StringValue("two")),
	attribute.Map("map", attribute.String("k", "v"), attribute.Map("inner", attribute.Bool("deep", true))),
}

// stubs are SDK spans using every field of a span: two resources, two
// scopes, remote and local parents, every kind, links, statuses and
// dropped counts.
func stubs(t testing.TB) tracetest.SpanStubs {
	res1 := resource.NewWithAttributes("https://opentelemetry.io/schemas/1.43.0", attribute.String("service.name", "one"), attribute.Int("n", 1))
	res2 := resource.NewSchemaless(attribute.String("service.name", "two"))
	scope1 := instrumentation.Scope{Name: "scope.one", Version: "1.2.3", SchemaURL: "https://example.com/s", Attributes: attribute.NewSet(attribute.String("sa", "x"))}
	scope2 := instrumentation.Scope{Name: "scope.two"}
	tid := mustTraceID(t, "0102030405060708090a0b0c0d0e0f10")
	ts, err := trace.ParseTraceState("a=1,b=2")
	require.NoError(t, err)
	sc := func(span string, remote bool, flags trace.TraceFlags) trace.SpanContext {
		return trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: mustSpanID(t, span), TraceFlags: flags, TraceState: ts, Remote: remote})
	}
	return tracetest.SpanStubs{
		{
			Name: "root", SpanContext: sc("1111111111111111", false, trace.FlagsSampled),
			Parent:   sc("aaaaaaaaaaaaaaaa", true, trace.FlagsSampled),
			SpanKind: trace.SpanKindServer, StartTime: t0, EndTime: t0.Add(time.Second),
			Attributes: everyAttributeType, DroppedAttributes: 3,
			Events: []sdktrace.Event{
				{Name: "e1", Time: t0.Add(10), Attributes: everyAttributeType, DroppedAttributeCount: 1},
				{Name: "e2", Time: t0.Add(20)},
			},
			DroppedEvents: 4,
			Links: []sdktrace.Link{{
				SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
					TraceID: mustTraceID(t, "ffeeddccbbaa99887766554433221100"), SpanID: mustSpanID(t, "2222222222222222"),
					TraceFlags: trace.FlagsSampled, Remote: true,
				}),
				Attributes: []attribute.KeyValue{attribute.String("l", "v")}, DroppedAttributeCount: 2,
			}},
			DroppedLinks: 5,
			Status:       sdktrace.Status{Code: codes.Error, Description: "it broke"},
			Resource:     res1, InstrumentationScope: scope1,
		},
		{
			Name: "child", SpanContext: sc("3333333333333333", false, trace.FlagsSampled|trace.FlagsRandom),
			Parent: sc("1111111111111111", false, trace.FlagsSampled), SpanKind: trace.SpanKindClient,
			StartTime: t0.Add(time.Millisecond), EndTime: t0.Add(2 * time.Millisecond),
			Status: sdktrace.Status{Code: codes.Ok}, Resource: res1, InstrumentationScope: scope2,
		},
		{
			Name: "other resource", SpanContext: sc("4444444444444444", false, 0), SpanKind: trace.SpanKindProducer,
			StartTime: t0, EndTime: t0, Resource: res2, InstrumentationScope: scope1,
		},
		{
			Name: "consumer", SpanContext: sc("5555555555555555", false, trace.FlagsSampled), SpanKind: trace.SpanKindConsumer,
			StartTime: t0, EndTime: t0.Add(time.Minute), Resource: res1, InstrumentationScope: scope1,
		},
		{
			Name: "unspecified", SpanContext: sc("6666666666666666", false, trace.FlagsSampled),
			StartTime: t0, EndTime: t0, Resource: res2, InstrumentationScope: scope1,
		},
	}
}

// expectedStubs is what stubs must become, written field by field.
func expectedStubs(t testing.TB) ptrace.Traces {
	td := ptrace.NewTraces()
	putEvery := func(m pcommon.Map) {
		m.PutBool("bool", true)
		m.PutInt("int", -42)
		m.PutDouble("double", 0.25)
		m.PutStr("string", "s")
		s := m.PutEmptySlice("bools")
		s.AppendEmpty().SetBool(true)
		s.AppendEmpty().SetBool(false)
		s = m.PutEmptySlice("ints")
		s.AppendEmpty().SetInt(1)
		s.AppendEmpty().SetInt(2)
		s = m.PutEmptySlice("doubles")
		s.AppendEmpty().SetDouble(1.5)
		s.AppendEmpty().SetDouble(-2)
		s = m.PutEmptySlice("strings")
		s.AppendEmpty().SetStr("a")
		s.AppendEmpty().SetStr("b")
		m.PutEmptyBytes("bytes").FromRaw([]byte{0, 1, 0xff})
		s = m.PutEmptySlice("mixed")
		s.AppendEmpty().SetInt(1)
		s.AppendEmpty().SetStr("two")
		mm := m.PutEmptyMap("map")
		mm.PutStr("k", "v")
		mm.PutEmptyMap("inner").PutBool("deep", true)
	}
	ts := func(d time.Duration) pcommon.Timestamp { return pcommon.NewTimestampFromTime(t0.Add(d)) }
	tid := pcommon.TraceID(mustTraceID(t, "0102030405060708090a0b0c0d0e0f10"))
	sid := func(s string) pcommon.SpanID { return pcommon.SpanID(mustSpanID(t, s)) }

	rs1 := td.ResourceSpans().AppendEmpty()
	rs1.SetSchemaUrl("https://opentelemetry.io/schemas/1.43.0")
	rs1.Resource().Attributes().PutStr("service.name", "one")
	rs1.Resource().Attributes().PutInt("n", 1)
	ss1 := rs1.ScopeSpans().AppendEmpty()
	ss1.SetSchemaUrl("https://example.com/s")
	ss1.Scope().SetName("scope.one")
	ss1.Scope().SetVersion("1.2.3")
	ss1.Scope().Attributes().PutStr("sa", "x")

	root := ss1.Spans().AppendEmpty()
	root.SetName("root")
	root.SetTraceID(tid)
	root.SetSpanID(sid("1111111111111111"))
	root.SetParentSpanID(sid("aaaaaaaaaaaaaaaa"))
	root.TraceState().FromRaw("a=1,b=2")
	root.SetFlags(0x301)
	root.SetKind(ptrace.SpanKindServer)
	root.SetStartTimestamp(ts(0))
	root.SetEndTimestamp(ts(time.Second))
	putEvery(root.Attributes())
	root.SetDroppedAttributesCount(3)
	e1 := root.Events().AppendEmpty()
	e1.SetName("e1")
	e1.SetTimestamp(ts(10))
	putEvery(e1.Attributes())
	e1.SetDroppedAttributesCount(1)
	e2 := root.Events().AppendEmpty()
	e2.SetName("e2")
	e2.SetTimestamp(ts(20))
	root.SetDroppedEventsCount(4)
	l := root.Links().AppendEmpty()
	l.SetTraceID(pcommon.TraceID(mustTraceID(t, "ffeeddccbbaa99887766554433221100")))
	l.SetSpanID(sid("2222222222222222"))
	l.SetFlags(0x301)
	l.Attributes().PutStr("l", "v")
	l.SetDroppedAttributesCount(2)
	root.SetDroppedLinksCount(5)
	root.Status().SetCode(ptrace.StatusCodeError)
	root.Status().SetMessage("it broke")

	cons := ss1.Spans().AppendEmpty()
	cons.SetName("consumer")
	cons.SetTraceID(tid)
	cons.SetSpanID(sid("5555555555555555"))
	cons.TraceState().FromRaw("a=1,b=2")
	cons.SetFlags(0x101)
	cons.SetKind(ptrace.SpanKindConsumer)
	cons.SetStartTimestamp(ts(0))
	cons.SetEndTimestamp(ts(time.Minute))

	ss2 := rs1.ScopeSpans().AppendEmpty()
	ss2.Scope().SetName("scope.two")
	child := ss2.Spans().AppendEmpty()
	child.SetName("child")
	child.SetTraceID(tid)
	child.SetSpanID(sid("3333333333333333"))
	child.SetParentSpanID(sid("1111111111111111"))
	child.TraceState().FromRaw("a=1,b=2")
	child.SetFlags(0x103)
	child.SetKind(ptrace.SpanKindClient)
	child.SetStartTimestamp(ts(time.Millisecond))
	child.SetEndTimestamp(ts(2 * time.Millisecond))
	child.Status().SetCode(ptrace.StatusCodeOk)

	rs2 := td.ResourceSpans().AppendEmpty()
	rs2.Resource().Attributes().PutStr("service.name", "two")
	ss3 := rs2.ScopeSpans().AppendEmpty()
	ss3.SetSchemaUrl("https://example.com/s")
	ss3.Scope().SetName("scope.one")
	ss3.Scope().SetVersion("1.2.3")
	ss3.Scope().Attributes().PutStr("sa", "x")
	other := ss3.Spans().AppendEmpty()
	other.SetName("other resource")
	other.SetTraceID(tid)
	other.SetSpanID(sid("4444444444444444"))
	other.TraceState().FromRaw("a=1,b=2")
	other.SetFlags(0x100)
	other.SetKind(ptrace.SpanKindProducer)
	other.SetStartTimestamp(ts(0))
	other.SetEndTimestamp(ts(0))
	un := ss3.Spans().AppendEmpty()
	un.SetName("unspecified")
	un.SetTraceID(tid)
	un.SetSpanID(sid("6666666666666666"))
	un.TraceState().FromRaw("a=1,b=2")
	un.SetFlags(0x101)
	un.SetKind(ptrace.SpanKindUnspecified)
	un.SetStartTimestamp(ts(0))
	un.SetEndTimestamp(ts(0))
	return td
}

func TestTraces(t *testing.T) {
	got := exporter.TracesFromSDKSpans(stubs(t).Snapshots())
	want := expectedStubs(t)
	require.NoError(t, ptracetest.CompareTraces(want, got))
	assertSameFlags(t, want, got)
	assertLinkTraceState(t, got, "")
}

// TestTracesLikeOTLPExporter sends the same spans through the SDK's own
// OTLP/gRPC exporter into the collector's receiver: what arrives must be
// what Traces writes.
func TestTracesLikeOTLPExporter(t *testing.T) {
	sink := new(consumertest.TracesSink)
	addr := startReceiver(t, sink)
	exp, err := exporter.NewOTLPExporter(context.Background(), exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 10 * time.Second}, nil)
	require.NoError(t, err)
	spans := stubs(t).Snapshots()
	require.NoError(t, exp.ExportSpans(context.Background(), spans))
	require.NoError(t, exp.Shutdown(context.Background()))
	got := merge(waitSpans(t, sink, len(spans)))
	want := exporter.TracesFromSDKSpans(spans)
	require.NoError(t, ptracetest.CompareTraces(want, got, ptracetest.IgnoreResourceSpansOrder()))
}

func TestTracesLinkTraceState(t *testing.T) {
	ts, err := trace.ParseTraceState("k=v")
	require.NoError(t, err)
	s := tracetest.SpanStub{
		Name:        "s",
		SpanContext: trace.NewSpanContext(trace.SpanContextConfig{TraceID: mustTraceID(t, "0102030405060708090a0b0c0d0e0f10"), SpanID: mustSpanID(t, "1111111111111111")}),
		Links: []sdktrace.Link{{SpanContext: trace.NewSpanContext(trace.SpanContextConfig{
			TraceID: mustTraceID(t, "0102030405060708090a0b0c0d0e0f11"), SpanID: mustSpanID(t, "1111111111111112"), TraceState: ts,
		})}},
	}
	got := exporter.TracesFromSDKSpans([]sdktrace.ReadOnlySpan{s.Snapshot()})
	assertLinkTraceState(t, got, "k=v")
	assert.Equal(t, 1, got.ResourceSpans().Len(), "a nil resource is one empty resource")
}

func assertLinkTraceState(t *testing.T, td ptrace.Traces, want string) {
	t.Helper()
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				for _, l := range s.Links().All() {
					assert.Equal(t, want, l.TraceState().AsRaw())
				}
			}
		}
	}
}

// assertSameFlags compares span and link flags, which CompareTraces leaves out.
func assertSameFlags(t *testing.T, want, got ptrace.Traces) {
	t.Helper()
	type flags struct{ span, link []uint32 }
	collect := func(td ptrace.Traces) map[pcommon.SpanID]flags {
		m := map[pcommon.SpanID]flags{}
		for _, rs := range td.ResourceSpans().All() {
			for _, ss := range rs.ScopeSpans().All() {
				for _, s := range ss.Spans().All() {
					f := flags{span: []uint32{s.Flags()}}
					for _, l := range s.Links().All() {
						f.link = append(f.link, l.Flags())
					}
					m[s.SpanID()] = f
				}
			}
		}
		return m
	}
	assert.Equal(t, collect(want), collect(got))
}

func TestFileExporter(t *testing.T) {
	var buf bytes.Buffer
	exp := exporter.NewFileExporter(&buf)
	spans := stubs(t).Snapshots()
	ctx := context.Background()
	require.NoError(t, exp.ExportSpans(ctx, spans))
	require.NoError(t, exp.ExportSpans(ctx, nil), "nothing to write")
	require.NoError(t, exp.ExportSpans(ctx, spans[:1]))
	require.NoError(t, exp.ForceFlush(ctx))
	require.NoError(t, exp.Shutdown(ctx))
	require.NoError(t, exp.Shutdown(ctx), "a second shutdown is harmless")
	require.ErrorIs(t, exp.ExportSpans(ctx, spans), exporter.ErrShutdown)

	lines := bytes.Split(bytes.TrimSuffix(buf.Bytes(), []byte("\n")), []byte("\n"))
	require.Len(t, lines, 2, "one line per export")
	var u ptrace.JSONUnmarshaler
	first, err := u.UnmarshalTraces(lines[0])
	require.NoError(t, err)
	require.NoError(t, ptracetest.CompareTraces(expectedStubs(t), first))
	assertSameFlags(t, expectedStubs(t), first)
	second, err := u.UnmarshalTraces(lines[1])
	require.NoError(t, err)
	assert.Equal(t, 1, second.SpanCount())
	assert.True(t, bytes.HasPrefix(lines[0], []byte(`{"resourceSpans":[`)), "an ExportTraceServiceRequest object")
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, assert.AnError }

func TestFileExporterErrors(t *testing.T) {
	spans := stubs(t).Snapshots()
	err := exporter.NewFileExporter(failingWriter{}).ExportSpans(context.Background(), spans)
	require.ErrorIs(t, err, assert.AnError)
	assert.Contains(t, err.Error(), "exporter: write OTLP/JSON")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var buf bytes.Buffer
	exp := exporter.NewFileExporter(&buf)
	require.ErrorIs(t, exp.ExportSpans(ctx, spans), context.Canceled)
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
