package translate_test

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// carried is one event as a reader of either form sees it: its name, time
// and attributes, and the ids of the span that carries it.
type carried struct {
	Name    string
	Time    pcommon.Timestamp
	TraceID pcommon.TraceID
	SpanID  pcommon.SpanID
	Attrs   map[string]any
}

func spanEventsOf(td ptrace.Traces) []carried {
	var out []carried
	for _, s := range allSpans(td) {
		for _, e := range s.Events().All() {
			out = append(out, carried{e.Name(), e.Timestamp(), s.TraceID(), s.SpanID(), e.Attributes().AsRaw()})
		}
	}
	return out
}

func logRecordsOf(ld plog.Logs) []plog.LogRecord {
	var out []plog.LogRecord
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				out = append(out, lr)
			}
		}
	}
	return out
}

func logEventsOf(ld plog.Logs) []carried {
	var out []carried
	for _, lr := range logRecordsOf(ld) {
		out = append(out, carried{lr.EventName(), lr.Timestamp(), lr.TraceID(), lr.SpanID(), lr.Attributes().AsRaw()})
	}
	return out
}

// bridge does what the events specification's bridge from log-based events
// to span events does: each log record becomes an event of the span whose
// ids it carries, with its event name, timestamp and attributes.
func bridge(t *testing.T, td ptrace.Traces, ld plog.Logs) {
	t.Helper()
	spans := make(map[pcommon.SpanID]ptrace.Span)
	for _, s := range allSpans(td) {
		spans[s.SpanID()] = s
	}
	for _, lr := range logRecordsOf(ld) {
		s, ok := spans[lr.SpanID()]
		require.True(t, ok, "record %s names no span of the export", lr.EventName())
		require.Equal(t, s.TraceID(), lr.TraceID(), "record %s is in its span's trace", lr.EventName())
		e := s.Events().AppendEmpty()
		e.SetName(lr.EventName())
		e.SetTimestamp(lr.Timestamp())
		lr.Attributes().CopyTo(e.Attributes())
	}
}

func goldenWith(t *testing.T, c goldenCase, events translate.Events) []translate.Span {
	t.Helper()
	c.opts = appendOpts(c.opts, translate.WithEvents(events))
	return goldenSpans(t, c)
}

func appendOpts(f func(testing.TB) []translate.Option, more ...translate.Option) func(testing.TB) []translate.Option {
	return func(t testing.TB) []translate.Option {
		var opts []translate.Option
		if f != nil {
			opts = f(t)
		}
		return append(opts, more...)
	}
}

// TestLogsGolden: for every golden run the log records are the span events
// (name, attributes, timestamps, and the ids of their span); with both
// forms the spans are today's; with logs alone the spans carry no events,
// and bridging the records back gives today's spans exactly.
func TestLogsGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			expected, err := golden.ReadTraces(filepath.Join("testdata", c.name, "expected.yaml"))
			require.NoError(t, err)

			both := goldenWith(t, c, translate.EventsBoth)
			td := translate.Traces(both, testResource())
			require.NoError(t, ptracetest.CompareTraces(expected, td), "spans with both forms")
			ld := translate.Logs(both, testResource())
			want := spanEventsOf(expected)
			require.NotEmpty(t, want)
			assert.ElementsMatch(t, want, logEventsOf(ld))

			logOnly := goldenWith(t, c, translate.EventsLog)
			td = translate.Traces(logOnly, testResource())
			assert.Empty(t, spanEventsOf(td), "no span events with log")
			ld = translate.Logs(logOnly, testResource())
			assert.Equal(t, len(want), ld.LogRecordCount())
			bridge(t, td, ld)
			require.NoError(t, ptracetest.CompareTraces(expected, td), "spans bridged from the records")
			assertFlags(t, expected, td)
		})
	}
}

// TestLogsSpanDefault: without WithEvents, the spans carry the events and
// there is no record.
func TestLogsSpanDefault(t *testing.T) {
	spans := goldenSpans(t, goldenCases[0])
	assert.Zero(t, translate.Logs(spans, testResource()).ResourceLogs().Len())
	assert.NotEmpty(t, spanEventsOf(translate.Traces(spans, testResource())))
}

// TestLogsRecordFields: the resource, scope and the fields of the records
// a bridge and a logs backend read.
func TestLogsRecordFields(t *testing.T) {
	spans := goldenWith(t, goldenCases[0], translate.EventsLog)
	ld := translate.Logs(spans, testResource())
	require.Equal(t, 1, ld.ResourceLogs().Len())
	rl := ld.ResourceLogs().At(0)
	assert.Equal(t, semconv.SchemaURL, rl.SchemaUrl())
	name, ok := rl.Resource().Attributes().Get(string(semconv.ServiceNameKey))
	require.True(t, ok)
	assert.Equal(t, "testresults", name.Str())
	sl := rl.ScopeLogs().At(0)
	assert.Equal(t, translate.ScopeName, sl.Scope().Name())
	assert.Equal(t, semconv.SchemaURL, sl.SchemaUrl())
	records := logRecordsOf(ld)
	require.NotEmpty(t, records)
	assert.Equal(t, semconv.EventTestRun, records[0].EventName())
	for _, lr := range records {
		assert.Equal(t, pcommon.TraceID(spans[0].TraceID), lr.TraceID())
		assert.Equal(t, pcommon.SpanID(spans[0].SpanID), lr.SpanID())
		assert.True(t, lr.Flags().IsSampled())
		assert.Equal(t, lr.Timestamp(), lr.ObservedTimestamp())
		assert.NotZero(t, lr.Timestamp())
		assert.Equal(t, pcommon.ValueTypeEmpty, lr.Body().Type())
		assert.Equal(t, plog.SeverityNumberUnspecified, lr.SeverityNumber())
	}
}

// bigRun is a complete run of n failing tests, all kept.
func bigRun(n int) *testrun.Run {
	r := &testrun.Run{
		ID: "run-big", Kind: testrun.KindAfterTurn, Command: "go test ./...", Status: testrun.StatusFailure,
		Complete: true, EndedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Counts: &testrun.Counts{Total: n, Failed: n},
		Cases:  make(map[string]testrun.Outcome, n),
	}
	for i := range n {
		id := fmt.Sprintf("pkg::Test%05d", i)
		r.Cases[id] = testrun.OutcomeFailed
		if i < testrun.DefaultMaxFailures {
			r.Failures = append(r.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed, Message: "want 1, got 2"})
		}
	}
	return r
}

// TestLogsNotCapped: a run of 50,000 failing tests exports every one of
// them as a log record, while its span events stop at the cap and count
// the rest as omitted.
func TestLogsNotCapped(t *testing.T) {
	const n = 50000
	run := bigRun(n)
	spans, err := translate.JobSpans(translate.Job{ID: "job-big"}, []*testrun.Run{run}, translate.WithEvents(translate.EventsBoth))
	require.NoError(t, err)
	require.NotEmpty(t, spans)
	s := spans[0]
	require.LessOrEqual(t, len(s.Events), 1+translate.DefaultMaxCaseEvents)
	kept := len(s.Events) - 1
	require.Positive(t, kept)
	omitted, ok := attrOf(s.Events[0], semconv.TestCaseEventsOmitted)
	require.True(t, ok, "the span's test.run event counts the omitted cases")
	assert.Equal(t, int64(n-kept), omitted)

	ld := translate.Logs(spans, nil)
	require.Equal(t, 1+n, ld.LogRecordCount())
	records := logRecordsOf(ld)
	assert.Equal(t, semconv.EventTestRun, records[0].EventName())
	_, ok = records[0].Attributes().Get(string(semconv.TestCaseEventsOmitted))
	assert.False(t, ok, "nothing is omitted from the records")
	seen := make(map[string]bool, n)
	for _, lr := range records[1:] {
		require.Equal(t, semconv.EventTestCase, lr.EventName())
		id, ok := lr.Attributes().Get(string(semconv.TestCaseNameKey))
		require.True(t, ok)
		seen[id.Str()] = true
	}
	for id := range run.Cases {
		require.True(t, seen[id], "record of %s", id)
	}
	// The span still contains its last record.
	last := records[len(records)-1].Timestamp().AsTime()
	assert.False(t, s.End.Before(last), "span end %s, last record %s", s.End, last)
	// The first records are the span's events, at the same times.
	spanTD := spanEventsOf(translate.Traces(spans, nil))
	logs := logEventsOf(ld)
	for i := 1; i < len(spanTD); i++ {
		assert.Equal(t, spanTD[i], logs[i], "event %d", i)
	}
}

// TestLogsExplicitCap: a limit given with WithMaxCaseEvents bounds the
// records too, and their test.run record counts the omitted ones.
func TestLogsExplicitCap(t *testing.T) {
	spans, err := translate.JobSpans(translate.Job{ID: "job-big"}, []*testrun.Run{bigRun(30)},
		translate.WithEvents(translate.EventsLog), translate.WithMaxCaseEvents(5))
	require.NoError(t, err)
	require.Len(t, spans[0].Records, 1+5)
	omitted, ok := attrOf(spans[0].Records[0], semconv.TestCaseEventsOmitted)
	require.True(t, ok)
	assert.Equal(t, int64(25), omitted)
	assert.Empty(t, spans[0].Events)
}

// attrOf returns the int value of key on ev.
func attrOf(ev translate.Event, key attribute.Key) (int64, bool) {
	for _, kv := range ev.Attrs {
		if kv.Key == key {
			return kv.Value.AsInt64(), true
		}
	}
	return 0, false
}

func TestParseEvents(t *testing.T) {
	for _, e := range []translate.Events{translate.EventsSpan, translate.EventsLog, translate.EventsBoth} {
		got, err := translate.ParseEvents(e.String())
		require.NoError(t, err)
		assert.Equal(t, e, got)
	}
	assert.Equal(t, []bool{true, false, true}, []bool{translate.EventsSpan.Spans(), translate.EventsLog.Spans(), translate.EventsBoth.Spans()})
	assert.Equal(t, []bool{false, true, true}, []bool{translate.EventsSpan.Logs(), translate.EventsLog.Logs(), translate.EventsBoth.Logs()})
	for _, bad := range []string{"", "spans", "LOG", "log ", "all"} {
		_, err := translate.ParseEvents(bad)
		assert.ErrorIs(t, err, translate.ErrInvalid, "%q", bad)
	}
}

// BenchmarkLogs50k translates a run of 50,000 failing tests into log
// records and reports the size of their OTLP protobuf encoding.
func BenchmarkLogs50k(b *testing.B) {
	run := bigRun(50000)
	var m plog.ProtoMarshaler
	var size int
	for b.Loop() {
		spans, err := translate.JobSpans(translate.Job{ID: "job-big"}, []*testrun.Run{run}, translate.WithEvents(translate.EventsLog))
		if err != nil {
			b.Fatal(err)
		}
		size = m.LogsSize(translate.Logs(spans, nil))
	}
	b.ReportMetric(float64(size), "bytes/export")
}

// TestFailingTestsTheRunDoesNotName: a run counts more failing tests than
// it keeps cases for (it names the first 20,000); those it does not name get
// no event, and the test.run event and record count them as omitted, so
// that no failure reads as absent.
func TestFailingTestsTheRunDoesNotName(t *testing.T) {
	run := failingRun("capped", 30, 0)
	run.Counts.Failed, run.Counts.Passed, run.Counts.Total = 40, 0, 40 // ten failures beyond those named
	spans, err := translate.JobSpans(translate.Job{ID: "job-capped"}, []*testrun.Run{run}, translate.WithEvents(translate.EventsBoth))
	require.NoError(t, err)
	s := spans[0]
	require.Len(t, s.Events, 1+30)
	omitted, ok := attrOf(s.Events[0], semconv.TestCaseEventsOmitted)
	require.True(t, ok, "the failures the run does not name are counted")
	assert.Equal(t, int64(10), omitted)

	records := logRecordsOf(translate.Logs(spans, nil))
	require.Len(t, records, 1+30)
	v, ok := records[0].Attributes().Get(string(semconv.TestCaseEventsOmitted))
	require.True(t, ok, "the records count them too")
	assert.Equal(t, int64(10), v.Int())
}
