package main

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/serve"
)

// serveTelemetry is where the server's own spans and metrics go.
type serveTelemetry struct {
	tp trace.TracerProvider
	// mp is nil when the metrics are not exported.
	mp       metric.MeterProvider
	shutdown func()
}

// newServeTelemetry exports the server's spans over OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names
// an endpoint and OTEL_TRACES_EXPORTER is not "none", and its metrics when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT names
// one and OTEL_METRICS_EXPORTER is not "none" (serve.NewMeterProvider);
// otherwise nothing reaches the network. shutdown exports what is left.
func newServeTelemetry(ctx context.Context, env Env) (*serveTelemetry, error) {
	t := &serveTelemetry{tp: noop.NewTracerProvider(), shutdown: func() {}}
	traces := strings.TrimSpace(env.Getenv("OTEL_TRACES_EXPORTER")) != "none" &&
		(env.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != "")
	metrics := strings.TrimSpace(env.Getenv("OTEL_METRICS_EXPORTER")) != "none" &&
		(env.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || env.Getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT") != "")
	if !traces && !metrics {
		return t, nil
	}
	res, err := exporter.NewResource(ctx, "", env.Getenv)
	if err != nil {
		return nil, err
	}
	var stops []func(context.Context) error
	if traces {
		exp, err := exporter.NewOTLPExporter(ctx, exporter.OTLPOptions{}, env.Getenv)
		if err != nil {
			return nil, err
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		t.tp = tp
		stops = append(stops, tp.Shutdown)
	}
	if metrics {
		mp, err := serve.NewMeterProvider(ctx, env.Getenv, res)
		if err != nil {
			for _, stop := range stops {
				_ = stop(context.Background())
			}
			return nil, err
		}
		if mp != nil {
			t.mp = mp
			stops = append(stops, mp.Shutdown)
		}
	}
	t.shutdown = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		for _, stop := range stops {
			_ = stop(sctx)
		}
	}
	return t, nil
}
