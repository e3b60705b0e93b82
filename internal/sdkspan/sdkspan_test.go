package sdkspan_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar-dev/testresults/internal/sdkspan"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// fixture reads a hand-written run of the translate golden tests.
func fixture(t testing.TB, name string) *testrun.Run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "translate", "testdata", name, "run.json"))
	require.NoError(t, err)
	var r testrun.Run
	require.NoError(t, json.Unmarshal(b, &r))
	return &r
}

// manyFailures returns a run with n failing tests with messages of msgLen
// characters.
func manyFailures(n, msgLen int) *testrun.Run {
	run := &testrun.Run{
		ID: "many", Kind: testrun.KindAfterTurn, Command: "pytest", Status: testrun.StatusFailure, Complete: true,
		StartedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), EndedAt: time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC),
		Counts: &testrun.Counts{Total: n, Failed: n}, Cases: make(map[string]testrun.Outcome, n),
	}
	msg := strings.Repeat("m", msgLen)
	for i := range n {
		id := fmt.Sprintf("tests/test_mod_%03d.py::test_case_%06d", i%500, i)
		run.Cases[id] = testrun.OutcomeFailed
		run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed, Message: msg})
	}
	return run
}

// remoteParent is a sampled remote parent with a trace state.
func remoteParent(t testing.TB) trace.SpanContext {
	t.Helper()
	ts, err := trace.ParseTraceState("vendor=abc")
	require.NoError(t, err)
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: trace.TraceID{0x4b, 0xf9, 15: 0x36}, SpanID: trace.SpanID{0x00, 0xf0, 7: 0xb7},
		TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true,
	})
}

// recordSDK records spans with an SDK provider set up as the exporter sets
// it up, and returns what a span recorder saw.
func recordSDK(t *testing.T, spans []translate.Span) []sdktrace.ReadOnlySpan {
	t.Helper()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithIDGenerator(sdkspan.IDGenerator()),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(sdkspan.SpanLimits(spans)),
		sdktrace.WithSpanProcessor(rec),
	)
	t.Cleanup(func() { require.NoError(t, tp.Shutdown(context.Background())) })
	require.NoError(t, sdkspan.Record(context.Background(), tp.Tracer(translate.ScopeName), spans))
	return rec.Ended()
}

func TestRecordSDK(t *testing.T) {
	big := manyFailures(3000, 40)
	session := translate.Session{ID: "s-1", Turns: []translate.Turn{
		{Number: 1, Runs: []*testrun.Run{fixture(t, "failures")}},
		{Number: 2, Runs: []*testrun.Run{big, fixture(t, "flaky")}},
	}}
	spans, err := translate.SessionSpans(session, translate.WithMaxCaseEvents(3000), translate.WithParent(remoteParent(t)))
	require.NoError(t, err)
	require.Greater(t, len(spans[2].Events), sdktrace.DefaultEventCountLimit, "more events than the SDK keeps by default")

	got := recordSDK(t, spans)
	require.Len(t, got, len(spans))
	for i, s := range spans {
		g := got[i]
		assert.Equal(t, s.Name, g.Name())
		assert.Equal(t, s.TraceID, g.SpanContext().TraceID())
		assert.Equal(t, s.SpanID, g.SpanContext().SpanID())
		assert.Equal(t, s.TraceFlags, g.SpanContext().TraceFlags())
		assert.Equal(t, s.TraceState.String(), g.SpanContext().TraceState().String())
		assert.Equal(t, s.ParentSpanID, g.Parent().SpanID())
		assert.Equal(t, s.RemoteParent, g.Parent().IsRemote())
		assert.Equal(t, trace.SpanKindInternal, g.SpanKind())
		assert.Equal(t, s.Start, g.StartTime())
		assert.Equal(t, s.End, g.EndTime())
		assert.Equal(t, s.Attrs, g.Attributes())
		assert.Equal(t, sdktrace.Status{Code: s.Status, Description: s.StatusDescription}, g.Status())
		assert.Zero(t, g.DroppedEvents(), "no event dropped")
		assert.Zero(t, g.DroppedAttributes())
		require.Len(t, g.Events(), len(s.Events))
		for j, e := range s.Events {
			ge := g.Events()[j]
			assert.Equal(t, e.Name, ge.Name)
			assert.Equal(t, e.Time, ge.Time)
			assert.Equal(t, e.Attrs, ge.Attributes)
			assert.Zero(t, ge.DroppedAttributeCount)
		}
	}
	assert.Equal(t, spans[0].SpanID, got[1].Parent().SpanID(), "turns are children of the session span")
}

func TestAddEventsDefaultLimitsDrop(t *testing.T) {
	evs, err := translate.RunEvents(manyFailures(500, 10))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
		EventCountLimit: sdktrace.DefaultEventCountLimit, AttributePerEventCountLimit: 128, AttributeCountLimit: 128,
	}))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	_, span := tp.Tracer("t").Start(context.Background(), semconv.SpanJobVerify)
	defer span.End()
	err = sdkspan.AddEvents(span, evs)
	require.ErrorIs(t, err, sdkspan.ErrDropped)
	assert.Contains(t, err.Error(), "373 of 501 events")
}

func TestAddEventsAttributeLimitDrop(t *testing.T) {
	evs, err := translate.RunEvents(fixture(t, "failures"))
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider(sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
		EventCountLimit: 100, AttributePerEventCountLimit: 3, AttributeCountLimit: 128,
	}))
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	_, span := tp.Tracer("t").Start(context.Background(), semconv.SpanJobVerify)
	defer span.End()
	require.ErrorIs(t, sdkspan.AddEvents(span, evs), sdkspan.ErrDropped)
}

func TestAddEventsNotRecording(t *testing.T) {
	_, span := noop.NewTracerProvider().Tracer("t").Start(context.Background(), "x")
	require.ErrorIs(t, sdkspan.AddEvents(span, nil), sdkspan.ErrNotRecording)

	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
	_, span = tp.Tracer("t").Start(context.Background(), "x")
	require.ErrorIs(t, sdkspan.AddEvents(span, nil), sdkspan.ErrNotRecording)
}

func TestRecordNeedsIDGenerator(t *testing.T) {
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{fixture(t, "coverage")})
	require.NoError(t, err)
	tp := sdktrace.NewTracerProvider()
	defer func() { require.NoError(t, tp.Shutdown(context.Background())) }()
	require.ErrorIs(t, sdkspan.Record(context.Background(), tp.Tracer("t"), spans), sdkspan.ErrIDs)
}

func TestSpanLimits(t *testing.T) {
	t.Setenv("OTEL_SPAN_EVENT_COUNT_LIMIT", "5")
	t.Setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "10")
	t.Setenv("OTEL_EVENT_ATTRIBUTE_COUNT_LIMIT", "2")
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{fixture(t, "failures")})
	require.NoError(t, err)
	l := sdkspan.SpanLimits(spans)
	assert.Equal(t, len(spans[0].Events), l.EventCountLimit)
	assert.Equal(t, len(spans[0].Events[0].Attrs), l.AttributePerEventCountLimit)
	assert.Equal(t, -1, l.AttributeValueLengthLimit, "values are never truncated")
	got := recordSDK(t, spans)
	assert.Zero(t, got[0].DroppedEvents())

	t.Setenv("OTEL_SPAN_EVENT_COUNT_LIMIT", "-1")
	assert.Equal(t, -1, sdkspan.SpanLimits(spans).EventCountLimit, "no limit stays no limit")
}

func TestIDGeneratorWithoutIDs(t *testing.T) {
	g := sdkspan.IDGenerator()
	tid, sid := g.NewIDs(context.Background())
	assert.True(t, tid.IsValid())
	assert.True(t, sid.IsValid())
	assert.True(t, g.NewSpanID(context.Background(), tid).IsValid())
	tid2, _ := g.NewIDs(context.Background())
	assert.NotEqual(t, tid, tid2)
}
