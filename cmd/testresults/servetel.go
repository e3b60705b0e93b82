package main

import (
	"context"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/hangar-dev/testresults/exporter"
)

// serveTelemetry is where the server's own spans go.
type serveTelemetry struct {
	tp       trace.TracerProvider
	shutdown func()
}

// newServeTelemetry exports the server's spans over OTLP when
// OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT names
// an endpoint and OTEL_TRACES_EXPORTER is not "none"; otherwise spans are
// not exported and nothing reaches the network.
func newServeTelemetry(ctx context.Context, env Env) (*serveTelemetry, error) {
	t := &serveTelemetry{shutdown: func() {}}
	if strings.TrimSpace(env.Getenv("OTEL_TRACES_EXPORTER")) == "none" ||
		(env.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && env.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "") {
		t.tp = noop.NewTracerProvider()
		return t, nil
	}
	exp, err := exporter.NewOTLPExporter(ctx, exporter.OTLPOptions{}, env.Getenv)
	if err != nil {
		return nil, err
	}
	res, err := exporter.NewResource(ctx, "", env.Getenv)
	if err != nil {
		return nil, err
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	t.tp = tp
	t.shutdown = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tp.Shutdown(sctx)
	}
	return t, nil
}
