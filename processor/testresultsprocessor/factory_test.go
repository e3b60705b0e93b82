package testresultsprocessor

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/hangar-dev/testresults/processor/testresultsprocessor/internal/metadatatest"

	"github.com/hangar-dev/testresults/semconv"
)

func TestFactory(t *testing.T) {
	f := NewFactory()
	assert.Equal(t, "testresults", f.Type().String())
	assert.Equal(t, component.StabilityLevelDevelopment, f.TracesStability())

	p, err := f.CreateTraces(context.Background(), processortest.NewNopSettings(Type), verifierConfig(), consumertest.NewNop())
	require.NoError(t, err)
	assert.True(t, p.Capabilities().MutatesData)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, p.Shutdown(context.Background()))

	_, err = f.CreateMetrics(context.Background(), processortest.NewNopSettings(Type), verifierConfig(), consumertest.NewNop())
	assert.Error(t, err, "traces only")
}

func TestFactoryRefusesInvalidConfig(t *testing.T) {
	_, err := NewFactory().CreateTraces(context.Background(), processortest.NewNopSettings(Type),
		createDefaultConfig(), consumertest.NewNop())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "testresultsprocessor: trusted_sources: must not be empty")
}

func TestShutdown(t *testing.T) {
	processortest.VerifyShutdown(t, NewFactory(), verifierConfig())
}

// TestConsumeAfterShutdown: a batch that arrives after shutdown is still
// handled (the pipeline stops feeding the processor, but nothing may
// panic), and shutting down twice is harmless.
func TestConsumeAfterShutdown(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), metadatatest.NewSettings(tel), verifierConfig(), sink)
	require.NoError(t, err)
	require.NoError(t, p.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, p.Shutdown(context.Background()))

	td := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...)}})
	require.NotPanics(t, func() { assert.NoError(t, p.ConsumeTraces(context.Background(), td)) })
	require.Len(t, sink.AllTraces(), 1)
	run := sink.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0)
	assert.Equal(t, []any{false}, flagsOf(run.Attributes(), keyTrusted), "still recomputed")
	require.NoError(t, p.Shutdown(context.Background()))
}

func TestTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := metadatatest.NewSettings(tel)
	sink := new(consumertest.TracesSink)
	p, err := NewFactory().CreateTraces(context.Background(), set, verifierConfig(), sink)
	require.NoError(t, err)

	trusted := traces(t, verifierResource(), span{
		name:  semconv.SpanJobVerify,
		attrs: []attr{{keyTrusted, true}, {"Hangar.Test.Run.Trusted", true}}, // a variant: removed
		events: []event{
			runEvent(runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})...), // counted, flags right
			runEvent(runAttrs(attr{keyComplete, false})...),                       // trusted only
			runEvent(runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...),  // forged
			runEvent(runAttrs(attr{keyTotal, "12"})...),                           // malformed
			{name: semconv.EventTestCase, attrs: []attr{{keyTrusted, true}}},      // not a run: removed
		},
	})
	untrusted := traces(t, []attr{{"service.name", "agent"}}, span{
		name:   semconv.SpanJobVerify,
		events: []event{runEvent(runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})...)},
	})
	foreign := traces(t, verifierResource(), span{
		name:   "other",
		attrs:  []attr{{keyCounted, true}},
		events: []event{runEvent(runAttrs(attr{keyTrusted, true}, attr{" hangar.test.run.counted", true})...)},
	}) // three flags, all removed
	for _, td := range []ptrace.Traces{trusted, untrusted, foreign} {
		require.NoError(t, p.ConsumeTraces(context.Background(), td))
	}
	require.Len(t, sink.AllTraces(), 3)

	// Every counter, checked with the helpers generated from metadata.yaml
	// (name, description, unit, monotonic cumulative sum) and carrying the
	// processor's component ID.
	points := func(n int64) []metricdata.DataPoint[int64] {
		return []metricdata.DataPoint[int64]{{Value: n, Attributes: attribute.NewSet(attribute.String("processor", "testresults"))}}
	}
	opt := metricdatatest.IgnoreTimestamp()
	metadatatest.AssertEqualProcessorTestresultsRunsSeen(t, tel, points(5), opt)
	metadatatest.AssertEqualProcessorTestresultsRunsTrusted(t, tel, points(2), opt)
	metadatatest.AssertEqualProcessorTestresultsRunsCounted(t, tel, points(1), opt)
	metadatatest.AssertEqualProcessorTestresultsRunsMalformed(t, tel, points(1), opt)
	metadatatest.AssertEqualProcessorTestresultsRunsUntrustedSource(t, tel, points(1), opt)
	// gate's forged trusted; untrusted source's trusted and counted;
	// trusted span's span-level trusted (false: not every run is).
	metadatatest.AssertEqualProcessorTestresultsFlagsOverwritten(t, tel, points(4), opt)
	// The variant and the test.case flag on the listed span; the foreign
	// span's three.
	metadatatest.AssertEqualProcessorTestresultsFlagsRemoved(t, tel, points(2+3), opt)
}
