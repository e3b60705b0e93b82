package serve

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar-dev/testresults/exporter"
)

// Telemetry is where the server's own spans and metrics go, as
// Options.TracerProvider and Options.MeterProvider take them.
type Telemetry struct {
	TracerProvider trace.TracerProvider
	// MeterProvider is nil when the metrics are not exported.
	MeterProvider metric.MeterProvider
	stops         []func(context.Context) error
}

// NewTelemetry exports the server's spans over OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names
// an endpoint and OTEL_TRACES_EXPORTER is not "none", and its metrics when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT names
// one and OTEL_METRICS_EXPORTER is not "none" (NewMeterProvider); all
// variables are read through getenv. Otherwise nothing reaches the network
// and the tracer provider is a no-op. Shutdown exports what is left.
func NewTelemetry(ctx context.Context, getenv func(string) string) (*Telemetry, error) {
	t := &Telemetry{TracerProvider: noop.NewTracerProvider()}
	traces := strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")) != "none" &&
		(getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "")
	metrics := strings.TrimSpace(getenv("OTEL_METRICS_EXPORTER")) != "none" &&
		(getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "")
	if !traces && !metrics {
		return t, nil
	}
	res, err := exporter.NewResource(ctx, "", getenv)
	if err != nil {
		return nil, err
	}
	if traces {
		exp, err := exporter.NewOTLPExporter(ctx, exporter.OTLPOptions{}, getenv)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.TracerProvider = tp
		t.stops = append(t.stops, tp.Shutdown)
	}
	if metrics {
		mp, err := NewMeterProvider(ctx, getenv, res)
		if err != nil {
			t.Shutdown()
			return nil, err
		}
		if mp != nil {
			t.MeterProvider = mp
			t.stops = append(t.stops, mp.Shutdown)
		}
	}
	return t, nil
}

// Shutdown exports the spans and metrics that are left, within 5 seconds.
func (t *Telemetry) Shutdown() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, stop := range t.stops {
		_ = stop(ctx) // best effort on the way out: the server has stopped
	}
}
