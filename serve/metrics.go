package serve

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/gzip"

	"github.com/hangar-dev/testresults/exporter"
)

// ErrMetricsConfig is returned (wrapped) by NewMeterProvider for OTLP
// variables it cannot use.
var ErrMetricsConfig = errors.New("serve: invalid metrics configuration")

// DefaultMetricInterval is how often the server's metrics are exported
// when OTEL_METRIC_EXPORT_INTERVAL does not say; they are also exported
// once more when the provider shuts down.
const DefaultMetricInterval = 60 * time.Second

// NewMeterProvider returns a meter provider that exports the server's
// metrics (the HTTP server metrics of each request) over OTLP, with the
// settings exporter.ResolveOTLP reads for exporter.SignalMetrics through
// getenv, the one reader of the OTLP variables for spans, metrics and log
// records: the OTEL_EXPORTER_OTLP_METRICS_* variables over the generic
// OTEL_EXPORTER_OTLP_* ones (PROTOCOL, ENDPOINT, HEADERS, INSECURE,
// TIMEOUT, COMPRESSION, CERTIFICATE, CLIENT_KEY, CLIENT_CERTIFICATE; for
// http/protobuf, /v1/metrics is appended to OTEL_EXPORTER_OTLP_ENDPOINT and
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT is used as it is), and
// OTEL_METRIC_EXPORT_INTERVAL. It returns nil and no error when no
// endpoint is set or OTEL_METRICS_EXPORTER is "none": then nothing reaches
// the network. A variable that cannot be read is an error wrapping
// ErrMetricsConfig. Shut the provider down to export the last metrics.
func NewMeterProvider(ctx context.Context, getenv func(string) string, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	if strings.TrimSpace(getenv("OTEL_METRICS_EXPORTER")) == "none" {
		return nil, nil
	}
	c, err := exporter.ResolveOTLP(exporter.SignalMetrics, exporter.OTLPOptions{}, getenv)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetricsConfig, err)
	}
	if !c.EndpointGiven {
		return nil, nil
	}
	interval := DefaultMetricInterval
	if v := strings.TrimSpace(getenv("OTEL_METRIC_EXPORT_INTERVAL")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%w: OTEL_METRIC_EXPORT_INTERVAL %q: want milliseconds", ErrMetricsConfig, v)
		}
		interval = time.Duration(ms) * time.Millisecond
	}
	exp, err := newMetricExporter(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetricsConfig, err)
	}
	opts := []sdkmetric.Option{sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval)))}
	if res != nil {
		opts = append(opts, sdkmetric.WithResource(res))
	}
	return sdkmetric.NewMeterProvider(opts...), nil
}

// newMetricExporter hands every setting of c to the SDK's exporter
// explicitly, so that none of its own environment reading takes effect.
func newMetricExporter(ctx context.Context, c exporter.OTLPConfig) (sdkmetric.Exporter, error) {
	if c.Protocol == exporter.ProtocolHTTPProtobuf {
		compression := otlpmetrichttp.NoCompression
		if c.Gzip {
			compression = otlpmetrichttp.GzipCompression
		}
		opts := []otlpmetrichttp.Option{
			// The URL sets host, path and (by its scheme) transport security.
			otlpmetrichttp.WithEndpointURL(c.URL()),
			otlpmetrichttp.WithHeaders(c.Headers),
			otlpmetrichttp.WithTimeout(c.Timeout),
			otlpmetrichttp.WithCompression(compression),
		}
		if c.TLS != nil {
			opts = append(opts, otlpmetrichttp.WithTLSClientConfig(c.TLS))
		}
		return otlpmetrichttp.New(ctx, opts...)
	}
	creds := insecure.NewCredentials()
	if !c.Insecure {
		creds = credentials.NewTLS(c.TLS)
	}
	compressor := encoding.Identity
	if c.Gzip {
		compressor = gzip.Name
	}
	return otlpmetricgrpc.New(ctx,
		otlpmetricgrpc.WithEndpoint(c.Host),
		otlpmetricgrpc.WithTLSCredentials(creds),
		otlpmetricgrpc.WithHeaders(c.Headers),
		otlpmetricgrpc.WithTimeout(c.Timeout),
		// The identity encoding is gRPC's "no compression"; given last it
		// overrides a compression the SDK read from the environment.
		otlpmetricgrpc.WithDialOption(grpc.WithDefaultCallOptions(grpc.UseCompressor(compressor))),
	)
}
