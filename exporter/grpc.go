package exporter

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
)

// DefaultMaxRequestBytes is the largest OTLP request sent at once: the
// 4 MiB an OTLP gRPC receiver accepts by default. ExportSpans splits larger
// exports into several requests.
const DefaultMaxRequestBytes = 4 << 20

// Compression values of GRPCOptions.Compression.
const (
	CompressionGzip = "gzip"
	CompressionNone = "none"
)

// GRPCOptions are the OTLP/gRPC settings given explicitly (by flags). A zero
// field leaves the setting to the standard variables the SDK reads,
// OTEL_EXPORTER_OTLP_TRACES_* over OTEL_EXPORTER_OTLP_* (ENDPOINT, HEADERS,
// INSECURE, TIMEOUT, COMPRESSION, CERTIFICATE, CLIENT_KEY,
// CLIENT_CERTIFICATE), and then to the SDK's defaults (localhost:4317 with
// TLS, 10 s). A non-zero field overrides them.
type GRPCOptions struct {
	// Endpoint is host:port, or a URL whose http scheme also means insecure.
	Endpoint string
	// Insecure disables transport security.
	Insecure bool
	// Headers, when not nil, replace the headers of the environment.
	Headers map[string]string
	// Timeout bounds each export request, retries included.
	Timeout time.Duration
	// Compression is CompressionGzip or CompressionNone.
	Compression string
}

// NewGRPCExporter returns the SDK's OTLP/gRPC span exporter with o over the
// environment. It refuses requests over DefaultMaxRequestBytes, and reports
// spans the receiver rejects (partial success) as an export error. It does
// not connect before the first export.
func NewGRPCExporter(ctx context.Context, o GRPCOptions) (*otlptrace.Exporter, error) {
	// OTLP over HTTP is not sent: say so instead of sending gRPC to an
	// HTTP endpoint and failing with a connection error.
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if v := strings.TrimSpace(os.Getenv(k)); v != "" {
			if v != "grpc" {
				return nil, fmt.Errorf("%w: %s=%s: only grpc is supported (or write OTLP/JSON with --format otel)", ErrConfig, k, v)
			}
			break
		}
	}
	opts := []otlptracegrpc.Option{otlptracegrpc.WithMaxRequestSize(DefaultMaxRequestBytes)}
	switch {
	case o.Endpoint == "":
	case strings.Contains(o.Endpoint, "://"):
		opts = append(opts, otlptracegrpc.WithEndpointURL(o.Endpoint))
	default:
		opts = append(opts, otlptracegrpc.WithEndpoint(o.Endpoint))
	}
	if o.Insecure {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	if o.Headers != nil {
		opts = append(opts, otlptracegrpc.WithHeaders(o.Headers))
	}
	if o.Timeout < 0 {
		return nil, fmt.Errorf("%w: negative OTLP timeout %s", ErrConfig, o.Timeout)
	}
	if o.Timeout > 0 {
		opts = append(opts, otlptracegrpc.WithTimeout(o.Timeout))
	}
	switch o.Compression {
	case "":
	case CompressionGzip:
		opts = append(opts, otlptracegrpc.WithCompressor(CompressionGzip))
	case CompressionNone:
		// The identity encoding is gRPC's "no compression"; as a call option
		// given last it overrides OTEL_EXPORTER_OTLP_COMPRESSION=gzip.
		opts = append(opts, otlptracegrpc.WithDialOption(
			grpc.WithDefaultCallOptions(grpc.UseCompressor(encoding.Identity))))
	default:
		return nil, fmt.Errorf("%w: OTLP compression %q (want %s or %s)", ErrConfig, o.Compression, CompressionGzip, CompressionNone)
	}
	exp, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("exporter: OTLP/gRPC: %w", err)
	}
	return exp, nil
}
