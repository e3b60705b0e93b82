package testresultsprocessor

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hangar-dev/testresults/processor/testresultsprocessor/internal/metadata"
	"github.com/hangar-dev/testresults/semconv"
)

// attr is one attribute, in order. A key starting with dupPrefix is written
// under the key without the prefix, after the map is built, so that a test
// can put the same key twice (as a hostile sender can on the wire).
type attr struct {
	key string
	val any
}

const dupPrefix = "dup~"

// absent removes a key from a run built by runAttrs.
type absentValue struct{}

var absent = absentValue{}

const verifier = "hangar-verifier"

// runAttrs is a well-formed trusted, counted run (kind base, 3 tests,
// complete), with overrides replacing a key in place or appending it.
func runAttrs(overrides ...attr) []attr {
	attrs := []attr{
		{string(semconv.TestSuiteNameKey), "go test ./..."},
		{string(semconv.TestSuiteRunStatusKey), "success"},
		{string(semconv.TestRunIDKey), "run-1"},
		{keyKind, "base"},
		{keyTotal, int64(3)},
		{keyPassed, int64(3)},
		{keyFailed, int64(0)},
		{keyErrors, int64(0)},
		{keySkipped, int64(0)},
		{keyFlaky, int64(0)},
		{keyComplete, true},
	}
	for _, o := range overrides {
		i := slices.IndexFunc(attrs, func(a attr) bool { return a.key == o.key })
		switch {
		case o.val == absent && i >= 0:
			attrs = slices.Delete(attrs, i, i+1)
		case o.val == absent:
		case i >= 0:
			attrs[i] = o
		default:
			attrs = append(attrs, o)
		}
	}
	return attrs
}

func putAttrs(t testing.TB, m pcommon.Map, attrs []attr) {
	t.Helper()
	for _, a := range attrs {
		switch v := a.val.(type) {
		case string:
			m.PutStr(a.key, v)
		case int64:
			m.PutInt(a.key, v)
		case int:
			m.PutInt(a.key, int64(v))
		case float64:
			m.PutDouble(a.key, v)
		case bool:
			m.PutBool(a.key, v)
		default:
			t.Fatalf("unsupported attribute value %T", v)
		}
	}
}

// span describes a span to build.
type span struct {
	name   string
	attrs  []attr
	events []event
}

type event struct {
	name  string
	attrs []attr
}

func runEvent(attrs ...attr) event { return event{name: semconv.EventTestRun, attrs: attrs} }

// traces builds one resource with the given resource attributes and one
// scope holding the spans. Keys with dupPrefix become duplicates of the key
// they name (through an OTLP/JSON round trip, which keeps repeated keys).
func traces(t testing.TB, resource []attr, spans ...span) ptrace.Traces {
	t.Helper()
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	putAttrs(t, rs.Resource().Attributes(), resource)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName("testresults")
	for i, s := range spans {
		sp := ss.Spans().AppendEmpty()
		sp.SetName(s.name)
		sp.SetTraceID(pcommon.TraceID{1, 2, 3})
		sp.SetSpanID(pcommon.SpanID{byte(i + 1)})
		sp.SetStartTimestamp(pcommon.Timestamp(1_000_000_000))
		sp.SetEndTimestamp(pcommon.Timestamp(2_000_000_000))
		putAttrs(t, sp.Attributes(), s.attrs)
		for j, e := range s.events {
			ev := sp.Events().AppendEmpty()
			ev.SetName(e.name)
			ev.SetTimestamp(pcommon.Timestamp(1_500_000_000 + j))
			putAttrs(t, ev.Attributes(), e.attrs)
		}
	}
	return withDuplicates(t, td)
}

func withDuplicates(t testing.TB, td ptrace.Traces) ptrace.Traces {
	t.Helper()
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	if !strings.Contains(string(b), dupPrefix) {
		return td
	}
	b = []byte(strings.ReplaceAll(string(b), `"`+dupPrefix, `"`))
	out, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(t, err)
	return out
}

func verifierResource() []attr {
	return []attr{{string(semconv.ServiceNameKey), verifier}}
}

func verifierConfig() *Config {
	cfg := createDefaultConfig()
	cfg.TrustedSources = []TrustedSource{{ResourceAttributes: map[string]string{string(semconv.ServiceNameKey): verifier}}}
	return cfg
}

// newTestProcessor creates the processor through its factory, in front of a sink.
func newTestProcessor(t testing.TB, cfg *Config) (processor.Traces, *consumertest.TracesSink) {
	t.Helper()
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(Type), cfg, sink)
	require.NoError(t, err)
	return p, sink
}

// consume runs td (a copy of it) through a new processor and returns what came out.
func consume(t testing.TB, ctx context.Context, cfg *Config, td ptrace.Traces) ptrace.Traces {
	t.Helper()
	p, sink := newTestProcessor(t, cfg)
	in := ptrace.NewTraces()
	td.CopyTo(in)
	require.NoError(t, p.ConsumeTraces(ctx, in))
	all := sink.AllTraces()
	require.Len(t, all, 1)
	return all[0]
}

// flagsOf returns the values of the flag key on m, in order, as written
// (bool values, or the string form of a value of another type).
func flagsOf(m pcommon.Map, key string) []any {
	var out []any
	m.Range(func(k string, v pcommon.Value) bool {
		if k == key {
			if v.Type() == pcommon.ValueTypeBool {
				out = append(out, v.Bool())
			} else {
				out = append(out, v.AsString())
			}
		}
		return true
	})
	return out
}

// setFlags writes the expected flags into an expected copy of the input.
func setFlags(m pcommon.Map, trusted, counted bool) {
	m.RemoveIf(func(k string, _ pcommon.Value) bool { return k == keyTrusted || k == keyCounted })
	m.PutBool(keyTrusted, trusted)
	m.PutBool(keyCounted, counted)
}

type authData map[string]any

func (a authData) GetAttribute(name string) any { return a[name] }

func (a authData) GetAttributeNames() []string {
	names := make([]string, 0, len(a))
	for k := range a {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// consumeCounting runs td (a copy of it) through a new processor whose
// MeterProvider is read back by a ManualReader, and returns what came out
// with the counts the processor's telemetry recorded.
func consumeCounting(t testing.TB, ctx context.Context, cfg *Config, td ptrace.Traces) (ptrace.Traces, stats) {
	t.Helper()
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(Type)
	set.MeterProvider = mp
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), set, cfg, sink)
	require.NoError(t, err)
	in := ptrace.NewTraces()
	td.CopyTo(in)
	require.NoError(t, p.ConsumeTraces(ctx, in))
	require.NoError(t, p.Shutdown(context.Background()))
	require.Len(t, sink.AllTraces(), 1)
	return sink.AllTraces()[0], readStats(t, reader)
}

// readStats reads back the counts a processor's telemetry recorded.
func readStats(t testing.TB, reader *sdkmetric.ManualReader) stats {
	t.Helper()
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	var st stats
	fields := map[string]*int64{
		metricRunsSeen: &st.seen, metricRunsTrusted: &st.trusted, metricRunsCounted: &st.counted,
		metricRunsMalformed: &st.malformed, metricRunsUntrustedFrom: &st.untrustedSource, metricRunsForwarded: &st.forwarded,
		metricFlagsOverwritten: &st.overwritten, metricFlagsRemoved: &st.removed,
	}
	for _, sm := range rm.ScopeMetrics {
		if sm.Scope.Name != metadata.ScopeName {
			continue
		}
		for _, m := range sm.Metrics {
			f, ok := fields[m.Name]
			require.True(t, ok, m.Name)
			for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
				*f += dp.Value
			}
		}
	}
	return st
}
