package serve

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
)

// ErrMetricsConfig is returned (wrapped) by NewMeterProvider for OTLP
// variables it cannot use.
var ErrMetricsConfig = errors.New("serve: invalid metrics configuration")

// DefaultMetricInterval is how often the server's metrics are exported
// when OTEL_METRIC_EXPORT_INTERVAL does not say; they are also exported
// once more when the provider shuts down.
const DefaultMetricInterval = 60 * time.Second

// NewMeterProvider returns a meter provider that exports the server's
// metrics (the HTTP server metrics of each request) over OTLP, as the
// standard variables read through getenv say: the endpoint from
// OTEL_EXPORTER_OTLP_METRICS_ENDPOINT (used as it is) or
// OTEL_EXPORTER_OTLP_ENDPOINT (/v1/metrics appended for http/protobuf), the
// protocol from OTEL_EXPORTER_OTLP_METRICS_PROTOCOL or
// OTEL_EXPORTER_OTLP_PROTOCOL (grpc, the default, or http/protobuf), and
// the _INSECURE, _HEADERS, _TIMEOUT and _COMPRESSION variables (the
// metrics ones first), and OTEL_METRIC_EXPORT_INTERVAL. It returns nil and
// no error when no endpoint is set or OTEL_METRICS_EXPORTER is "none":
// then nothing reaches the network. Shut the provider down to export the
// last metrics.
func NewMeterProvider(ctx context.Context, getenv func(string) string, res *resource.Resource) (*sdkmetric.MeterProvider, error) {
	env := func(name string) string {
		if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_" + name)); v != "" {
			return v
		}
		return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + name))
	}
	if strings.TrimSpace(getenv("OTEL_METRICS_EXPORTER")) == "none" {
		return nil, nil
	}
	specific := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"))
	generic := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
	if specific == "" && generic == "" {
		return nil, nil
	}
	for _, ep := range []struct{ name, value string }{
		{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", specific}, {"OTEL_EXPORTER_OTLP_ENDPOINT", generic},
	} {
		if !strings.Contains(ep.value, "://") {
			continue
		}
		// The exporters ignore a URL they cannot parse and fall back to
		// localhost: refuse it here instead.
		u, err := url.Parse(ep.value)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("%w: %s %q: want an http:// or https:// URL", ErrMetricsConfig, ep.name, ep.value)
		}
	}
	insecure := strings.EqualFold(env("INSECURE"), "true")
	var headers map[string]string
	if h := env("HEADERS"); h != "" {
		var err error
		if headers, err = parseHeaders(h); err != nil {
			return nil, err
		}
	}
	var timeout time.Duration
	if v := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_TIMEOUT %q: want milliseconds", ErrMetricsConfig, v)
		}
		timeout = time.Duration(ms) * time.Millisecond
	}
	gzip := false
	switch c := env("COMPRESSION"); c {
	case "", "none":
	case "gzip":
		gzip = true
	default:
		return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_COMPRESSION %q: want gzip or none", ErrMetricsConfig, c)
	}
	interval := DefaultMetricInterval
	if v := strings.TrimSpace(getenv("OTEL_METRIC_EXPORT_INTERVAL")); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return nil, fmt.Errorf("%w: OTEL_METRIC_EXPORT_INTERVAL %q: want milliseconds", ErrMetricsConfig, v)
		}
		interval = time.Duration(ms) * time.Millisecond
	}

	var exp sdkmetric.Exporter
	var err error
	switch p := env("PROTOCOL"); p {
	case "", "grpc":
		opts := []otlpmetricgrpc.Option{}
		ep := specific
		if ep == "" {
			ep = generic
		}
		if strings.Contains(ep, "://") {
			opts = append(opts, otlpmetricgrpc.WithEndpointURL(ep))
		} else {
			opts = append(opts, otlpmetricgrpc.WithEndpoint(ep))
		}
		if insecure {
			opts = append(opts, otlpmetricgrpc.WithInsecure())
		}
		if headers != nil {
			opts = append(opts, otlpmetricgrpc.WithHeaders(headers))
		}
		if timeout > 0 {
			opts = append(opts, otlpmetricgrpc.WithTimeout(timeout))
		}
		if gzip {
			opts = append(opts, otlpmetricgrpc.WithCompressor("gzip"))
		}
		exp, err = otlpmetricgrpc.New(ctx, opts...)
	case "http/protobuf":
		opts := []otlpmetrichttp.Option{}
		switch {
		case specific != "":
			if !strings.Contains(specific, "://") {
				return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_METRICS_ENDPOINT %q: want a URL", ErrMetricsConfig, specific)
			}
			opts = append(opts, otlpmetrichttp.WithEndpointURL(specific))
		case strings.Contains(generic, "://"):
			opts = append(opts, otlpmetrichttp.WithEndpointURL(strings.TrimRight(generic, "/")+"/v1/metrics"))
		default:
			opts = append(opts, otlpmetrichttp.WithEndpoint(generic))
		}
		if insecure {
			opts = append(opts, otlpmetrichttp.WithInsecure())
		}
		if headers != nil {
			opts = append(opts, otlpmetrichttp.WithHeaders(headers))
		}
		if timeout > 0 {
			opts = append(opts, otlpmetrichttp.WithTimeout(timeout))
		}
		if gzip {
			opts = append(opts, otlpmetrichttp.WithCompression(otlpmetrichttp.GzipCompression))
		}
		exp, err = otlpmetrichttp.New(ctx, opts...)
	default:
		return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_PROTOCOL %q: want grpc or http/protobuf", ErrMetricsConfig, p)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMetricsConfig, err)
	}
	opts := []sdkmetric.Option{sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval)))}
	if res != nil {
		opts = append(opts, sdkmetric.WithResource(res))
	}
	return sdkmetric.NewMeterProvider(opts...), nil
}

// parseHeaders reads the K=V,K2=V2 list of OTEL_EXPORTER_OTLP_HEADERS, the
// values URL-encoded.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for _, kv := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(kv, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_HEADERS: %q is not K=V", ErrMetricsConfig, kv)
		}
		val, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_HEADERS: %q: %w", ErrMetricsConfig, k, err)
		}
		h[k] = val
	}
	return h, nil
}
