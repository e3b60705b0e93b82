package testresultsprocessor

import (
	"context"
	"errors"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/metric"
)

const scopeName = "github.com/hangar-dev/testresults/processor/testresultsprocessor"

// Names of the processor's own metrics.
const (
	metricRunsSeen          = "otelcol_processor_testresults_runs_seen"
	metricRunsTrusted       = "otelcol_processor_testresults_runs_trusted"
	metricRunsCounted       = "otelcol_processor_testresults_runs_counted"
	metricRunsMalformed     = "otelcol_processor_testresults_runs_malformed"
	metricRunsUntrustedFrom = "otelcol_processor_testresults_runs_untrusted_source"
	metricFlagsOverwritten  = "otelcol_processor_testresults_flags_overwritten"
	metricFlagsRemoved      = "otelcol_processor_testresults_flags_removed"
)

// stats are the counts of one batch, added to the counters once per batch.
type stats struct {
	seen, trusted, counted, malformed, untrustedSource, overwritten, removed int64
}

type telemetry struct {
	runsSeen       metric.Int64Counter
	runsTrusted    metric.Int64Counter
	runsCounted    metric.Int64Counter
	runsMalformed  metric.Int64Counter
	runsUntrusted  metric.Int64Counter
	flagsOverwrite metric.Int64Counter
	flagsRemoved   metric.Int64Counter
}

func newTelemetry(set component.TelemetrySettings) (*telemetry, error) {
	meter := set.MeterProvider.Meter(scopeName)
	var t telemetry
	var errs []error
	counter := func(name, desc, unit string) metric.Int64Counter {
		c, err := meter.Int64Counter(name, metric.WithDescription(desc), metric.WithUnit(unit))
		errs = append(errs, err)
		return c
	}
	t.runsSeen = counter(metricRunsSeen,
		"test.run events on matching spans that the processor recomputed.", "{run}")
	t.runsTrusted = counter(metricRunsTrusted,
		"test.run events that came out with hangar.test.run.trusted=true.", "{run}")
	t.runsCounted = counter(metricRunsCounted,
		"test.run events that came out with hangar.test.run.counted=true.", "{run}")
	t.runsMalformed = counter(metricRunsMalformed,
		"test.run events with a missing, mistyped, repeated or out-of-range attribute that the rules read.", "{run}")
	t.runsUntrusted = counter(metricRunsUntrustedFrom,
		"test.run events from a sender that matched no trusted_sources entry; their flags are forced to false.", "{run}")
	t.flagsOverwrite = counter(metricFlagsOverwritten,
		"trusted/counted attributes on events and spans whose value the sender set differently (or with another type, or more than once).", "{attribute}")
	t.flagsRemoved = counter(metricFlagsRemoved,
		"trusted/counted attributes removed, under any spelling that differs only in case or surrounding white space: from spans not listed and their events, from events of listed spans that are not test.run, and spellings other than the canonical key on listed spans and their test.run events.", "{attribute}")
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &t, nil
}

func (t *telemetry) record(ctx context.Context, s *stats) {
	add := func(c metric.Int64Counter, n int64) {
		if n > 0 {
			c.Add(ctx, n)
		}
	}
	add(t.runsSeen, s.seen)
	add(t.runsTrusted, s.trusted)
	add(t.runsCounted, s.counted)
	add(t.runsMalformed, s.malformed)
	add(t.runsUntrusted, s.untrustedSource)
	add(t.flagsOverwrite, s.overwritten)
	add(t.flagsRemoved, s.removed)
}
