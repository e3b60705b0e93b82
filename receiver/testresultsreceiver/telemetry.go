package testresultsreceiver

import (
	"context"

	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/hangar-dev/testresults/receiver/testresultsreceiver/internal/metadata"
)

// receiverKey names the receiver instance on every measurement, as
// receiverhelper's own metrics do.
const receiverKey = "receiver"

type telemetry struct {
	b *metadata.TelemetryBuilder
	// opts holds the attribute sets of each source, built once.
	opts map[string][]metric.AddOption
}

func newTelemetry(set component.TelemetrySettings, id component.ID) (*telemetry, error) {
	b, err := metadata.NewTelemetryBuilder(set)
	if err != nil {
		return nil, err
	}
	t := &telemetry{b: b, opts: map[string][]metric.AddOption{}}
	for _, src := range []string{sourceWatch, sourceHTTP} {
		t.opts[src] = []metric.AddOption{metric.WithAttributeSet(attribute.NewSet(
			attribute.String(receiverKey, id.String()), attribute.String("source", src)))}
	}
	return t, nil
}

func (t *telemetry) add(ctx context.Context, c metric.Int64Counter, n int64, source string) {
	if n > 0 {
		c.Add(ctx, n, t.opts[source]...)
	}
}

func (t *telemetry) shutdown() { t.b.Shutdown() }
