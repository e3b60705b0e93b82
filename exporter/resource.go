package exporter

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/semconv"
)

// DefaultServiceName is the service.name of exported spans unless
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES or a service name given to
// NewResource says otherwise.
const DefaultServiceName = "testresults"

// NewResource returns the resource of exported spans: the SDK's
// telemetry.sdk.* attributes, service.name DefaultServiceName, then what
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME set (read through getenv;
// nil: os.Getenv), then serviceName when it is not empty. Later sources
// win. A malformed OTEL_RESOURCE_ATTRIBUTES fails with ErrConfig rather than
// exporting a partial resource.
func NewResource(ctx context.Context, serviceName string, getenv func(string) string) (*resource.Resource, error) {
	getenv = orGetenv(getenv)
	env, err := resourceAttributes(getenv("OTEL_RESOURCE_ATTRIBUTES"))
	if err != nil {
		return nil, fmt.Errorf("%w: OTEL_RESOURCE_ATTRIBUTES: %w", ErrConfig, err)
	}
	if v := strings.TrimSpace(getenv("OTEL_SERVICE_NAME")); v != "" {
		env = append(env, semconv.ServiceNameKey.String(v))
	}
	opts := []resource.Option{
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceNameKey.String(DefaultServiceName)),
		resource.WithAttributes(env...),
	}
	if serviceName != "" {
		opts = append(opts, resource.WithAttributes(semconv.ServiceNameKey.String(serviceName)))
	}
	res, err := resource.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: resource: %w", ErrConfig, err)
	}
	return res, nil
}

// resourceAttributes reads OTEL_RESOURCE_ATTRIBUTES: key=value pairs
// separated by commas, values percent-encoded.
func resourceAttributes(s string) ([]attribute.KeyValue, error) {
	var kvs []attribute.KeyValue
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	for _, pair := range strings.Split(s, ",") {
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" {
			return nil, fmt.Errorf("%q: want key=value", pair)
		}
		dv, err := url.PathUnescape(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", pair, err)
		}
		kvs = append(kvs, attribute.String(k, dv))
	}
	return kvs, nil
}
