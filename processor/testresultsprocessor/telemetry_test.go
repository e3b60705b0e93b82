package testresultsprocessor

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"

	"github.com/hangar-dev/testresults/processor/testresultsprocessor/internal/metadata"
	"github.com/hangar-dev/testresults/semconv"
)

// TestTelemetryInstruments reads, with the SDK's ManualReader, what two
// instances of the processor record through the MeterProvider the collector
// hands them: exactly the seven counters of metadata.yaml, under the names
// the README lists (no _total: that suffix is the Prometheus exporter's to
// add, and the collector's v0.165 endpoint does not), in the processor's
// scope, each data point naming its instance in the processor attribute.
func TestTelemetryInstruments(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	t.Cleanup(func() { require.NoError(t, mp.Shutdown(context.Background())) })

	counts := map[string]int{"testresults/a": 1, "testresults/b": 2}
	for id, batches := range counts {
		set := processortest.NewNopSettings(metadata.Type)
		set.ID = component.NewIDWithName(metadata.Type, strings.TrimPrefix(id, "testresults/"))
		set.MeterProvider = mp
		p, err := NewFactory().CreateTraces(context.Background(), set, verifierConfig(), consumertest.NewNop())
		require.NoError(t, err)
		for range batches {
			td := traces(t, verifierResource(),
				span{name: semconv.SpanJobVerify, events: []event{
					runEvent(runAttrs()...), // counted
					runEvent(runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...),            // overwritten
					runEvent(runAttrs(attr{keyTotal, "3"})...),                                      // malformed
					{name: semconv.EventTestCase, attrs: []attr{{"Hangar.Test.Run.Counted", true}}}, // removed
				}},
			)
			other := traces(t, []attr{{"service.name", "agent"}}, span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}})
			require.NoError(t, p.ConsumeTraces(context.Background(), td))
			require.NoError(t, p.ConsumeTraces(context.Background(), other))
		}
		require.NoError(t, p.Shutdown(context.Background()))
	}

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	// Two scopes: the processor's and processorhelper's, whose
	// otelcol_processor_incoming_items carries the same processor attribute.
	i := slices.IndexFunc(rm.ScopeMetrics, func(sm metricdata.ScopeMetrics) bool { return sm.Scope.Name == metadata.ScopeName })
	require.GreaterOrEqual(t, i, 0, "no metrics in the scope %s", metadata.ScopeName)
	sm := rm.ScopeMetrics[i]
	assert.Empty(t, sm.Scope.Attributes.ToSlice(), "the SDK's own provider adds no scope attributes")
	h := slices.IndexFunc(rm.ScopeMetrics, func(sm metricdata.ScopeMetrics) bool {
		return sm.Scope.Name == "go.opentelemetry.io/collector/processor/processorhelper"
	})
	require.GreaterOrEqual(t, h, 0)
	for _, m := range rm.ScopeMetrics[h].Metrics {
		if m.Name != "otelcol_processor_incoming_items" {
			continue
		}
		for _, dp := range m.Data.(metricdata.Sum[int64]).DataPoints {
			id, ok := dp.Attributes.Value(processorKey)
			assert.True(t, ok)
			assert.Contains(t, counts, id.AsString())
		}
	}

	var names []string
	for _, m := range sm.Metrics {
		names = append(names, m.Name)
	}
	slices.Sort(names)
	assert.Equal(t, []string{
		metricFlagsOverwritten, metricFlagsRemoved, metricRunsCounted, metricRunsMalformed,
		metricRunsSeen, metricRunsTrusted, metricRunsUntrustedFrom,
	}, names)

	// Per pair of batches: four runs seen (three from the verifier, one
	// from the agent); the verifier's base run trusted and counted; one
	// malformed; the agent's run from an untrusted source; the gate's
	// forged trusted overwritten; the test.case variant removed.
	perBatch := map[string]int64{
		metricRunsSeen: 4, metricRunsTrusted: 1, metricRunsCounted: 1, metricRunsMalformed: 1,
		metricRunsUntrustedFrom: 1, metricFlagsOverwritten: 1, metricFlagsRemoved: 1,
	}
	for _, m := range sm.Metrics {
		sum, ok := m.Data.(metricdata.Sum[int64])
		require.True(t, ok, m.Name)
		assert.True(t, sum.IsMonotonic, m.Name)
		assert.Equal(t, metricdata.CumulativeTemporality, sum.Temporality, m.Name)
		assert.False(t, strings.HasSuffix(m.Name, "_total"), m.Name)
		assert.NotEmpty(t, m.Description, m.Name)
		assert.Contains(t, []string{"{run}", "{attribute}"}, m.Unit, m.Name)

		got := map[string]int64{}
		for _, dp := range sum.DataPoints {
			require.Equal(t, 1, dp.Attributes.Len(), m.Name)
			id, ok := dp.Attributes.Value(processorKey)
			require.True(t, ok, m.Name)
			got[id.AsString()] = dp.Value
		}
		require.Len(t, got, 2, "%s: one series per instance", m.Name)
		for id, batches := range counts {
			assert.Equal(t, perBatch[m.Name]*int64(batches), got[id], "%s %s", m.Name, id)
		}
	}
}
