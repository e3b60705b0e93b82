package testresultsprocessor

import (
	"context"
	"fmt"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"

	"github.com/hangar-dev/testresults/semconv"
)

// logsOf turns every span event of spans into a log-based event the way the
// exporter does (translate.Logs): one record per event, with the event's
// name as EventName, its timestamp and attributes (repetitions kept), and
// the trace and span id of the span, under the same resource and scope.
func logsOf(t testing.TB, spans ptrace.Traces) plog.Logs {
	t.Helper()
	ld := plog.NewLogs()
	rss := spans.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		rl := ld.ResourceLogs().AppendEmpty()
		rs.Resource().CopyTo(rl.Resource())
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j)
			sl := rl.ScopeLogs().AppendEmpty()
			ss.Scope().CopyTo(sl.Scope())
			for k := 0; k < ss.Spans().Len(); k++ {
				s := ss.Spans().At(k)
				for e := 0; e < s.Events().Len(); e++ {
					ev := s.Events().At(e)
					lr := sl.LogRecords().AppendEmpty()
					lr.SetEventName(ev.Name())
					lr.SetTimestamp(ev.Timestamp())
					lr.SetObservedTimestamp(ev.Timestamp())
					lr.SetTraceID(s.TraceID())
					lr.SetSpanID(s.SpanID())
					ev.Attributes().CopyTo(lr.Attributes())
				}
			}
		}
	}
	return ld
}

// consumeLogsCounting runs ld (a copy of it) through a new logs processor
// and returns what came out with the counts its telemetry recorded.
func consumeLogsCounting(t testing.TB, ctx context.Context, cfg *Config, ld plog.Logs) (plog.Logs, stats) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(Type)
	set.MeterProvider = mp
	sink := new(consumertest.LogsSink)
	p, err := NewFactory().CreateLogs(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	in := plog.NewLogs()
	ld.CopyTo(in)
	require.NoError(t, p.ConsumeLogs(ctx, in))
	require.NoError(t, p.Shutdown(context.Background()))
	require.Len(t, sink.AllLogs(), 1)
	return sink.AllLogs()[0], readStats(t, reader)
}

// record returns record k of the first scope of the first resource.
func record(ld plog.Logs, k int) plog.LogRecord {
	return ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().At(k)
}

// TestLogsTrustTable runs every row of the trust table through the logs
// pipeline: the test.run record comes out with the flags the span event
// gets, written once, and nothing else changes.
func TestLogsTrustTable(t *testing.T) {
	for _, tt := range trustRows() {
		t.Run(tt.name, func(t *testing.T) {
			in := logsOf(t, traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{runEvent(tt.attrs...)}}))
			got, st := consumeLogsCounting(t, context.Background(), verifierConfig(), in)

			want := plog.NewLogs()
			in.CopyTo(want)
			setFlags(record(want, 0).Attributes(), tt.trusted, tt.counted)
			require.NoError(t, plogtest.CompareLogs(want, got))
			assert.Equal(t, []any{tt.trusted}, flagsOf(record(got, 0).Attributes(), keyTrusted))
			assert.Equal(t, []any{tt.counted}, flagsOf(record(got, 0).Attributes(), keyCounted))
			assert.Equal(t, tt.stats(), st)
		})
	}
}

// TestLogsAgreeWithSpans: for runs on listed spans, from trusted and
// untrusted senders, with forged flags, the test.run records come out with
// exactly the flags the span events come out with.
func TestLogsAgreeWithSpans(t *testing.T) {
	forged := []attr{{keyTrusted, true}, {keyCounted, "true"}, {"Hangar.Test.Run.Trusted", true}}
	for _, sender := range forgerySenders {
		for _, tt := range trustRows() {
			t.Run(sender.name+"/"+tt.name, func(t *testing.T) {
				td := traces(t, sender.resource, span{
					name: semconv.SpanJobVerify,
					events: []event{
						runEvent(tt.attrs...),
						runEvent(append(append([]attr(nil), tt.attrs...), forged...)...),
						{name: semconv.EventTestCase, attrs: []attr{{string(semconv.TestCaseNameKey), "pkg.TestX"}, {keyTrusted, true}}},
					},
				})
				gotSpans, spanSt := consumeCounting(t, context.Background(), verifierConfig(), td)
				gotLogs, logSt := consumeLogsCounting(t, context.Background(), verifierConfig(), logsOf(t, td))
				require.NoError(t, plogtest.CompareLogs(logsOf(t, gotSpans), gotLogs))
				// The span's own flags are the one thing the logs lack.
				spanSt.overwritten -= int64(len(flagsOf(td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Attributes(), keyTrusted)))
				assert.Equal(t, spanSt, logSt)
			})
		}
	}
}

// Where a forged flag can stand in a batch of logs.
const (
	atLogResource  = "resource"
	atLogScope     = "scope"
	atRunRecord    = "test.run record"
	atCaseRecord   = "test.case record"
	atRunBody      = "test.run record body"
	atCaseBody     = "test.case record body"
	atLegacyRecord = "record with an event.name attribute test.run"
)

// TestLogsForgeryTable is the forgery table on the logs pipeline: one forged
// flag, true, under every spelling, at every place a batch of logs can carry
// attributes (resource, scope, a test.run record, another record, the map
// body of either, and a record that names itself test.run only in an
// event.name attribute), from a trusted and an untrusted sender. Only the
// test.run record comes out with flags, the canonical keys with the value
// the processor computed (false for the untrusted sender: a forged flag on
// a log record from an untrusted sender comes out false); every other copy
// is gone; nothing else changes; and the telemetry counts exactly the
// removal or the overwrite.
func TestLogsForgeryTable(t *testing.T) {
	positions := []string{atLogResource, atLogScope, atRunRecord, atCaseRecord, atRunBody, atCaseBody, atLegacyRecord}
	for _, pos := range positions {
		for _, sender := range forgerySenders {
			for _, spelling := range flagSpellings {
				t.Run(fmt.Sprintf("%s/%s/%q", pos, sender.name, spelling), func(t *testing.T) {
					in := logsForgeryBatch(t, sender.resource)
					forgedMapAt(in, pos).PutBool(spelling, true)
					got, st := consumeLogsCounting(t, context.Background(), verifierConfig(), in)

					v := sender.trusted
					canonical := spelling == keyTrusted || spelling == keyCounted
					recomputedHere := canonical && pos == atRunRecord

					want := plog.NewLogs()
					in.CopyTo(want)
					forgedMapAt(want, pos).Remove(spelling)
					setFlags(record(want, 0).Attributes(), v, v)
					require.NoError(t, plogtest.CompareLogs(want, got))
					assertLogFlagsOnlyOnRuns(t, got, v)

					wantSt := stats{seen: 1}
					if v {
						wantSt.trusted, wantSt.counted = 1, 1
					} else {
						wantSt.untrustedSource = 1
					}
					switch {
					case !recomputedHere:
						wantSt.removed = 1
					case !v:
						wantSt.overwritten = 1 // the sender's true, set to false
					}
					assert.Equal(t, wantSt, st)
				})
			}
		}
	}
}

// logsForgeryBatch is one resource with one scope holding a well-formed,
// complete base run, a test case (both with map bodies) and a record that
// carries event.name=test.run as an attribute only, each with an attribute
// of its own and no flag.
func logsForgeryBatch(t *testing.T, resource []attr) plog.Logs {
	t.Helper()
	ld := logsOf(t, traces(t, append(resource, attr{"host.name", "ci-1"}), span{
		name: semconv.SpanJobVerify,
		events: []event{
			runEvent(runAttrs()...),
			{name: semconv.EventTestCase, attrs: []attr{{string(semconv.TestCaseNameKey), "pkg.TestX"}}},
			{name: "", attrs: append([]attr{{"event.name", semconv.EventTestRun}}, runAttrs()...)},
		},
	}))
	ld.ResourceLogs().At(0).ScopeLogs().At(0).Scope().Attributes().PutStr("scope.kind", "report")
	for k := 0; k < 2; k++ {
		record(ld, k).Body().SetEmptyMap().PutStr("note", "body")
	}
	return ld
}

// forgedMapAt returns the attributes (or body) of the batch's place pos.
func forgedMapAt(ld plog.Logs, pos string) pcommon.Map {
	rl := ld.ResourceLogs().At(0)
	switch pos {
	case atLogResource:
		return rl.Resource().Attributes()
	case atLogScope:
		return rl.ScopeLogs().At(0).Scope().Attributes()
	case atRunRecord:
		return record(ld, 0).Attributes()
	case atCaseRecord:
		return record(ld, 1).Attributes()
	case atRunBody:
		return record(ld, 0).Body().Map()
	case atCaseBody:
		return record(ld, 1).Body().Map()
	case atLegacyRecord:
		return record(ld, 2).Attributes()
	}
	panic("no place " + pos)
}

// assertLogFlagsOnlyOnRuns walks every resource, scope, record and map body
// of ld: no key that a case- and space-insensitive reader would take for a
// flag is left, except, on the attributes of test.run records, each
// canonical key once with the value v.
func assertLogFlagsOnlyOnRuns(t *testing.T, ld plog.Logs, v bool) {
	t.Helper()
	for i := 0; i < ld.ResourceLogs().Len(); i++ {
		rl := ld.ResourceLogs().At(i)
		assertNoLooseFlag(t, rl.Resource().Attributes(), false, atLogResource)
		for j := 0; j < rl.ScopeLogs().Len(); j++ {
			sl := rl.ScopeLogs().At(j)
			assertNoLooseFlag(t, sl.Scope().Attributes(), false, atLogScope)
			for k := 0; k < sl.LogRecords().Len(); k++ {
				lr := sl.LogRecords().At(k)
				if lr.Body().Type() == pcommon.ValueTypeMap {
					assertNoLooseFlag(t, lr.Body().Map(), false, "body")
				}
				if lr.EventName() != semconv.EventTestRun {
					assertNoLooseFlag(t, lr.Attributes(), false, "record "+lr.EventName())
					continue
				}
				assertNoLooseFlag(t, lr.Attributes(), true, atRunRecord)
				assert.Equal(t, []any{v}, flagsOf(lr.Attributes(), keyTrusted))
				assert.Equal(t, []any{v}, flagsOf(lr.Attributes(), keyCounted))
			}
		}
	}
}

// TestLogsEveryRunRecordJudged: a record does not name the span that
// carries its run, so every test.run record is judged, whatever span the
// run came from; records without runs keep no flag, and a batch without a
// test.run record does not look at its sender.
func TestLogsEveryRunRecordJudged(t *testing.T) {
	td := traces(t, verifierResource(),
		span{name: "Job.Verify", events: []event{runEvent(runAttrs(attr{keyTrusted, false})...)}},
		span{name: semconv.SpanTurn, events: []event{runEvent(runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...)}},
	)
	got, st := consumeLogsCounting(t, context.Background(), verifierConfig(), logsOf(t, td))
	assert.Equal(t, []any{true}, flagsOf(record(got, 0).Attributes(), keyTrusted))
	assert.Equal(t, []any{true}, flagsOf(record(got, 0).Attributes(), keyCounted))
	assert.Equal(t, []any{false}, flagsOf(record(got, 1).Attributes(), keyTrusted))
	assert.Equal(t, []any{false}, flagsOf(record(got, 1).Attributes(), keyCounted))
	assert.Equal(t, stats{seen: 2, trusted: 1, counted: 1, overwritten: 2}, st)
}

// TestLogsNoAllocations: records that are not runs cost no allocation, and
// neither does a batch whose test.run records already carry the right
// flags (the logs form of the benchmark's mixed batch).
func TestLogsNoAllocations(t *testing.T) {
	p := newProcessor(verifierConfig(), nil, nil)
	ctx := context.Background()

	foreign := logsOf(t, benchTraces(t, 1000, 0))
	require.Positive(t, foreign.LogRecordCount())
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = p.processLogs(ctx, foreign)
	})
	assert.Zero(t, allocs, "records that are not runs")

	tel, err := newTelemetry(processortest.NewNopSettings(Type).TelemetrySettings, processortest.NewNopSettings(Type).ID)
	require.NoError(t, err)
	p.telemetry = tel
	mixed := logsOf(t, benchTraces(t, 1000, 100))
	_, _ = p.processLogs(ctx, mixed) // the first pass overwrites the forged flags
	allocs = testing.AllocsPerRun(100, func() {
		_, _ = p.processLogs(ctx, mixed)
	})
	assert.Zero(t, allocs, "runs whose flags are already right")
}

// TestLogsEventNameFieldDecides: the record's EventName field alone says
// what it is. A test.case record that also carries event.name=test.run, a
// gate's counts and the flags true, from a trusted sender, keeps no flag
// (a reader preferring the attribute sees a run that is not trusted); a
// test.run record whose event.name attribute says test.case is judged as
// the run it is.
func TestLogsEventNameFieldDecides(t *testing.T) {
	td := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{
		{name: semconv.EventTestCase, attrs: append([]attr{{"event.name", semconv.EventTestRun}},
			runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})...)},
		runEvent(append([]attr{{"event.name", semconv.EventTestCase}}, runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...)...),
	}})
	got, _ := consumeLogsCounting(t, context.Background(), verifierConfig(), logsOf(t, td))
	require.Equal(t, semconv.EventTestCase, record(got, 0).EventName())
	assert.Empty(t, flagsOf(record(got, 0).Attributes(), keyTrusted))
	assert.Empty(t, flagsOf(record(got, 0).Attributes(), keyCounted))
	require.Equal(t, semconv.EventTestRun, record(got, 1).EventName())
	assert.Equal(t, []any{false}, flagsOf(record(got, 1).Attributes(), keyTrusted), "a gate run is never trusted")
	assert.Equal(t, []any{false}, flagsOf(record(got, 1).Attributes(), keyCounted))
}
