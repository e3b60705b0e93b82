package testresultsprocessor

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hangar-dev/testresults/processor/testresultsprocessor/internal/metadata"
)

// Names of the processor's own metrics, as instruments and as the
// collector's metrics endpoint shows them (metadata.yaml, documentation.md).
const (
	metricRunsSeen          = "otelcol_processor_testresults_runs_seen"
	metricRunsTrusted       = "otelcol_processor_testresults_runs_trusted"
	metricRunsCounted       = "otelcol_processor_testresults_runs_counted"
	metricRunsMalformed     = "otelcol_processor_testresults_runs_malformed"
	metricRunsUntrustedFrom = "otelcol_processor_testresults_runs_untrusted_source"
	metricRunsForwarded     = "otelcol_processor_testresults_runs_forwarded"
	metricFlagsOverwritten  = "otelcol_processor_testresults_flags_overwritten"
	metricFlagsRemoved      = "otelcol_processor_testresults_flags_removed"
)

// processorKey is the attribute that names the processor instance on every
// measurement, the same key the collector's processorhelper puts on
// otelcol_processor_incoming_items, so that two instances can be told apart.
const processorKey = "processor"

// stats are the counts of one batch, added to the counters once per batch.
type stats struct {
	seen, trusted, counted, malformed, untrustedSource, forwarded, overwritten, removed int64
}

type telemetry struct {
	builder *metadata.TelemetryBuilder
	// addOpts holds the processor attribute, built once: passing a ready
	// slice to Add costs no allocation per batch.
	addOpts []metric.AddOption
}

func newTelemetry(set component.TelemetrySettings, id component.ID) (*telemetry, error) {
	b, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	return &telemetry{
		builder: b,
		addOpts: []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(attribute.String(processorKey, id.String())))},
	}, nil
}

func (t *telemetry) record(ctx context.Context, s *stats) {
	add := func(c metric.Int64Counter, n int64) {
		if n > 0 {
			c.Add(ctx, n, t.addOpts...)
		}
	}
	b := t.builder
	add(b.ProcessorTestresultsRunsSeen, s.seen)
	add(b.ProcessorTestresultsRunsTrusted, s.trusted)
	add(b.ProcessorTestresultsRunsCounted, s.counted)
	add(b.ProcessorTestresultsRunsMalformed, s.malformed)
	add(b.ProcessorTestresultsRunsUntrustedSource, s.untrustedSource)
	add(b.ProcessorTestresultsRunsForwarded, s.forwarded)
	add(b.ProcessorTestresultsFlagsOverwritten, s.overwritten)
	add(b.ProcessorTestresultsFlagsRemoved, s.removed)
}

func (t *telemetry) shutdown(context.Context) error {
	t.builder.Shutdown()
	return nil
}
