package serve

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TestNewTelemetry: which variables turn the server's spans and metrics
// on; none, or "none", keeps both off (a no-op tracer, no meter).
func TestNewTelemetry(t *testing.T) {
	for _, tc := range []struct {
		name            string
		env             map[string]string
		traces, metrics bool
	}{
		{"nothing set", nil, false, false},
		{"the generic endpoint", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true, true},
		{"traces only", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1"}, true, false},
		{"metrics only", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://127.0.0.1:1"}, false, true},
		{"traces turned off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_TRACES_EXPORTER": " none "}, false, true},
		{"metrics turned off", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none"}, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tel, err := NewTelemetry(context.Background(), func(k string) string { return tc.env[k] })
			require.NoError(t, err)
			defer tel.Shutdown()
			_, isSDK := tel.TracerProvider.(*sdktrace.TracerProvider)
			assert.Equal(t, tc.traces, isSDK, "spans exported")
			if !tc.traces {
				assert.IsType(t, noop.TracerProvider{}, tel.TracerProvider)
			}
			assert.Equal(t, tc.metrics, tel.MeterProvider != nil, "metrics exported")
		})
	}
	t.Run("an unusable setting is an error", func(t *testing.T) {
		env := map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRIC_EXPORT_INTERVAL": "soon"}
		_, err := NewTelemetry(context.Background(), func(k string) string { return env[k] })
		assert.True(t, errors.Is(err, ErrMetricsConfig), "%v", err)
	})
}
