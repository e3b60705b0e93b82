package exporter

import (
	"context"
	"fmt"

	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/semconv"
)

// DefaultServiceName is the service.name of exported spans unless
// OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES or a service name given to
// NewResource says otherwise.
const DefaultServiceName = "testresults"

// NewResource returns the resource of exported spans: the SDK's
// telemetry.sdk.* attributes, service.name DefaultServiceName, then what
// OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME set (read by the SDK's
// environment detector, resource.WithFromEnv), then serviceName when it is
// not empty. Later sources win. A malformed OTEL_RESOURCE_ATTRIBUTES fails
// with ErrConfig rather than exporting a partial resource.
func NewResource(ctx context.Context, serviceName string) (*resource.Resource, error) {
	opts := []resource.Option{
		resource.WithTelemetrySDK(),
		resource.WithAttributes(semconv.ServiceNameKey.String(DefaultServiceName)),
		resource.WithFromEnv(),
	}
	if serviceName != "" {
		opts = append(opts, resource.WithAttributes(semconv.ServiceNameKey.String(serviceName)))
	}
	res, err := resource.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("%w: resource from the environment: %w", ErrConfig, err)
	}
	return res, nil
}
