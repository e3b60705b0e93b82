package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestServeExportsItsMetrics points OTEL_EXPORTER_OTLP_METRICS_* at an
// OTLP/HTTP receiver on 127.0.0.1: the server's HTTP metrics arrive there
// by the time it has stopped, and without a metrics endpoint none do.
func TestServeExportsItsMetrics(t *testing.T) {
	tests := []struct {
		name    string
		vars    func(recv string) map[string]string
		metrics bool
	}{
		{"metrics endpoint", func(recv string) map[string]string {
			return map[string]string{
				"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": recv + "/v1/metrics",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf",
				"OTEL_SERVICE_NAME":                   "serve-under-test",
			}
		}, true},
		{"OTEL_METRICS_EXPORTER=none", func(recv string) map[string]string {
			return map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": recv,
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
				"OTEL_METRICS_EXPORTER":       "none",
			}
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recv, got := otlpHTTPRecorder(t, "/v1/metrics")
			vars := tt.vars(recv)
			vars["HANGAR_STORE"] = filepath.Join(t.TempDir(), "s.db")
			serveOneRequest(t, vars)
			if !tt.metrics {
				assert.Empty(t, got())
				return
			}
			assert.Contains(t, got(), "http.server.request.duration")
			assert.Contains(t, got(), "serve-under-test")
		})
	}
}
