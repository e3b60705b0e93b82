package e2e

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/e2e/loadgen"
	"github.com/hangar-dev/testresults/processor/testresultsprocessor"
	"github.com/hangar-dev/testresults/semconv"
)

// These tests need no collector: they check the load test's expectations
// against hand-written cases and against the processor run in process.

func TestExpectRun(t *testing.T) {
	attrs := func(kind any, c [6]any, complete any, extra ...loadgen.Attr) []loadgen.Attr {
		var out []loadgen.Attr
		if kind != nil {
			out = append(out, loadgen.Attr{Key: string(semconv.TestRunKindKey), Value: kind})
		}
		for i, k := range []attribute.Key{semconv.TestTotalKey, semconv.TestPassedKey, semconv.TestFailedKey, semconv.TestErrorsKey, semconv.TestSkippedKey, semconv.TestFlakyCountKey} {
			if c[i] != nil {
				out = append(out, loadgen.Attr{Key: string(k), Value: c[i]})
			}
		}
		if complete != nil {
			out = append(out, loadgen.Attr{Key: string(semconv.TestCompleteKey), Value: complete})
		}
		return append(out, extra...)
	}
	ok := [6]any{int64(3), int64(3), int64(0), int64(0), int64(0), int64(0)}
	for _, tc := range []struct {
		name             string
		attrs            []loadgen.Attr
		source           bool
		trusted, counted bool
	}{
		{"after_turn", attrs("after_turn", ok, true), true, true, true},
		{"untrusted source", attrs("after_turn", ok, true), false, false, false},
		{"gate", attrs("gate", ok, true), true, false, false},
		{"grader isolated", attrs("grader", ok, true, loadgen.Attr{Key: string(semconv.TestRunGradeKey), Value: "isolated"}), true, true, true},
		{"grader without grade", attrs("grader", ok, true), true, false, false},
		{"incomplete", attrs("base", ok, false), true, true, false},
		{"none ran", attrs("base", [6]any{int64(0), int64(0), int64(0), int64(0), int64(0), int64(0)}, true), true, true, false},
		{"count missing", attrs("base", [6]any{int64(3), int64(3), nil, int64(0), int64(0), int64(0)}, true), true, false, false},
		{"complete missing", attrs("base", ok, nil), true, false, false},
		{"sum wraps", attrs("base", [6]any{int64(math.MinInt64 + 1), int64(math.MaxInt64), int64(2), int64(0), int64(0), int64(0)}, true), true, false, false},
		{"sum wraps, all positive", attrs("base", [6]any{int64(1), int64(math.MaxInt64), int64(math.MaxInt64), int64(3), int64(0), int64(0)}, true), true, false, false},
		{"kind int", attrs(int64(1), ok, true), true, false, false},
		{"kind missing", attrs(nil, ok, true), true, false, false},
		{"kind repeated", attrs("base", ok, true, loadgen.Attr{Key: string(semconv.TestRunKindKey), Value: "base"}), true, false, false},
		{"count double", attrs("base", [6]any{3.0, int64(3), int64(0), int64(0), int64(0), int64(0)}, true), true, false, false},
		{"complete string", attrs("base", ok, "true"), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			trusted, counted := expectRun(tc.attrs, tc.source)
			assert.Equal(t, tc.trusted, trusted, "trusted")
			assert.Equal(t, tc.counted, counted, "counted")
		})
	}
}

// processInProcess runs the testresults processor, configured as in
// otelcol-testresults.yaml, over td.
func processInProcess(t *testing.T, td ptrace.Traces) ptrace.Traces {
	t.Helper()
	f := testresultsprocessor.NewFactory()
	cfg := f.CreateDefaultConfig().(*testresultsprocessor.Config)
	cfg.SpanNames = []string{semconv.SpanJobVerify, semconv.SpanTurn}
	cfg.BaseSpanNames = []string{semconv.SpanJobProvision}
	cfg.TrustedSources = []testresultsprocessor.TrustedSource{{ResourceAttributes: map[string]string{"service.name": loadgen.ServiceVerifier}}}
	require.NoError(t, cfg.Validate())
	sink := &consumertest.TracesSink{}
	p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(f.Type()), cfg, sink)
	require.NoError(t, err)
	require.NoError(t, p.ConsumeTraces(context.Background(), td))
	require.Len(t, sink.AllTraces(), 1)
	return sink.AllTraces()[0]
}

// TestExpectationsMatchProcessor: every variant of the load, through the
// processor in process, meets the load test's expectations; and the
// expectations catch a processor that trusted what it must not, or a
// pipeline that dropped an event.
func TestExpectationsMatchProcessor(t *testing.T) {
	g, err := loadgen.NewGenerator()
	require.NoError(t, err)
	total := 0
	for _, v := range g.Variants() {
		total += v.Weight
	}
	check := func(td ptrace.Traces, rules *pipelineRules) (problems []string, tally runTally) {
		forEachSpan(td, func(service string, s ptrace.Span) {
			seq, ok := loadgen.SeqOf(s)
			require.True(t, ok)
			v := g.Variants()[g.VariantOf(seq)]
			for _, p := range checkSpan(s, service, v, rules, &tally) {
				problems = append(problems, v.Name+": "+p)
			}
		})
		return problems, tally
	}

	out := processInProcess(t, g.Traces(0, total))
	problems, tally := check(out, sampleRules)
	assert.Empty(t, problems)
	assert.Positive(t, tally.counted)

	// Without the processor, the same spans arrive as sent.
	problems, _ = check(g.Traces(0, total), nil)
	assert.Empty(t, problems)
	// ...which fails the processor's expectations: forged flags stay.
	problems, _ = check(g.Traces(0, total), sampleRules)
	assert.NotEmpty(t, problems)

	// A forged flag set back to true after the processor is caught.
	forged := ptrace.NewTraces()
	out.CopyTo(forged)
	forEachSpan(forged, func(_ string, s ptrace.Span) {
		for i := 0; i < s.Events().Len(); i++ {
			if s.Events().At(i).Name() == semconv.EventTestRun && s.Name() == semconv.SpanJobVerify {
				s.Events().At(i).Attributes().PutBool(keyTrusted, true)
			}
		}
	})
	problems, _ = check(forged, sampleRules)
	assert.NotEmpty(t, problems)
	assert.True(t, strings.Contains(strings.Join(problems, "\n"), "forged/gate-trusted"), "%v", problems)

	// A dropped event is caught.
	dropped := ptrace.NewTraces()
	out.CopyTo(dropped)
	forEachSpan(dropped, func(_ string, s ptrace.Span) {
		if s.Events().Len() > 1 {
			s.Events().RemoveIf(func(e ptrace.SpanEvent) bool { return e.Name() == semconv.EventTestCase })
		}
	})
	problems, _ = check(dropped, sampleRules)
	assert.NotEmpty(t, problems)

	// A stricter processor that removes flags from spans it does not
	// recompute still meets the expectations.
	stripped := ptrace.NewTraces()
	out.CopyTo(stripped)
	forEachSpan(stripped, func(_ string, s ptrace.Span) {
		if !sampleRules.listed[s.Name()] {
			s.Attributes().RemoveIf(func(k string, _ pcommon.Value) bool { return flagKey(k) })
			for i := 0; i < s.Events().Len(); i++ {
				s.Events().At(i).Attributes().RemoveIf(func(k string, _ pcommon.Value) bool { return flagKey(k) })
			}
		}
	})
	problems, _ = check(stripped, sampleRules)
	assert.Empty(t, problems)
}
