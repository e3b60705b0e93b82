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
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

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

func TestTelemetry(t *testing.T) {
	tel := componenttest.NewTelemetry()
	t.Cleanup(func() { require.NoError(t, tel.Shutdown(context.Background())) })
	set := processortest.NewNopSettings(Type)
	set.TelemetrySettings = tel.NewTelemetrySettings()
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

	for name, want := range map[string]int64{
		metricRunsSeen:          5,
		metricRunsTrusted:       2,
		metricRunsCounted:       1,
		metricRunsMalformed:     1,
		metricRunsUntrustedFrom: 1,
		// gate's forged trusted; untrusted source's trusted and counted;
		// trusted span's span-level trusted (false: not every run is).
		metricFlagsOverwritten: 4,
		// The variant and the test.case flag on the listed span; the
		// foreign span's three.
		metricFlagsRemoved: 2 + 3,
	} {
		m, err := tel.GetMetric(name)
		require.NoError(t, err, name)
		sum, ok := m.Data.(metricdata.Sum[int64])
		require.True(t, ok, name)
		require.Len(t, sum.DataPoints, 1, name)
		assert.Equal(t, want, sum.DataPoints[0].Value, name)
		assert.True(t, sum.IsMonotonic, name)
	}
}
