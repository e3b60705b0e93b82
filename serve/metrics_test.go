package serve

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pmetric"
	"go.opentelemetry.io/collector/pdata/pmetric/pmetricotlp"
	"google.golang.org/grpc"

	"github.com/hangar-dev/testresults/store"
)

// metricsReceiver collects the metric names of the OTLP requests it gets
// over HTTP (/v1/metrics, or the path given) and gRPC, on 127.0.0.1.
type metricsReceiver struct {
	pmetricotlp.UnimplementedGRPCServer
	mu    sync.Mutex
	names map[string]bool
	paths []string
}

func (r *metricsReceiver) add(md pmetric.Metrics, path string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.paths = append(r.paths, path)
	rms := md.ResourceMetrics()
	for i := 0; i < rms.Len(); i++ {
		sms := rms.At(i).ScopeMetrics()
		for j := 0; j < sms.Len(); j++ {
			ms := sms.At(j).Metrics()
			for k := 0; k < ms.Len(); k++ {
				r.names[ms.At(k).Name()] = true
			}
		}
	}
}

func (r *metricsReceiver) Export(_ context.Context, req pmetricotlp.ExportRequest) (pmetricotlp.ExportResponse, error) {
	r.add(req.Metrics(), "grpc")
	return pmetricotlp.NewExportResponse(), nil
}

func (r *metricsReceiver) got() (map[string]bool, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	names := map[string]bool{}
	for k := range r.names {
		names[k] = true
	}
	return names, append([]string(nil), r.paths...)
}

func startHTTPReceiver(t *testing.T, r *metricsReceiver) string {
	t.Helper()
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		b, err := io.ReadAll(req.Body)
		require.NoError(t, err)
		er := pmetricotlp.NewExportRequest()
		if err := er.UnmarshalProto(b); err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		r.add(er.Metrics(), req.URL.Path)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(s.Close)
	return s.URL
}

func startGRPCReceiver(t *testing.T, r *metricsReceiver) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpc.NewServer()
	pmetricotlp.RegisterGRPCServer(s, r)
	go func() { _ = s.Serve(ln) }()
	t.Cleanup(s.Stop)
	return ln.Addr().String()
}

func TestMeterProviderExports(t *testing.T) {
	tests := []struct {
		name     string
		env      func(httpURL, grpcAddr string) map[string]string
		wantPath string
	}{
		{"http/protobuf, generic endpoint", func(u, _ string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": u, "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"}
		}, "/v1/metrics"},
		{"http/protobuf, metrics endpoint used as it is", func(u, _ string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": u + "/custom",
				"OTEL_EXPORTER_OTLP_METRICS_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
		}, "/custom"},
		{"grpc, host:port", func(_, a string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": a, "OTEL_EXPORTER_OTLP_INSECURE": "true",
				// read and applied; a minute, so that a loaded machine does not time it out
				"OTEL_EXPORTER_OTLP_TIMEOUT": "60000"}
		}, "grpc"},
		{"grpc, host:port, insecure as strconv reads it", func(_, a string) map[string]string {
			// Read as the span exporter reads it (exporter.ResolveOTLP): 1 is true.
			return map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": a, "OTEL_EXPORTER_OTLP_METRICS_INSECURE": "1"}
		}, "grpc"},
		{"grpc, http:// URL", func(_, a string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "http://" + a, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
		}, "grpc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recv := &metricsReceiver{names: map[string]bool{}}
			vars := tt.env(startHTTPReceiver(t, recv), startGRPCReceiver(t, recv))
			ctx := context.Background()
			mp, err := NewMeterProvider(ctx, func(k string) string { return vars[k] }, nil)
			require.NoError(t, err)
			require.NotNil(t, mp)

			st, err := store.Open(ctx, filepath.Join(t.TempDir(), "s.db"))
			require.NoError(t, err)
			defer st.Close()
			srv := httptest.NewServer(New(st, Options{MeterProvider: mp}).Handler())
			defer srv.Close()
			resp, err := srv.Client().Get(srv.URL + "/api/jobs/some-job/tests")
			require.NoError(t, err)
			resp.Body.Close()

			// Shutting down exports what was recorded.
			require.NoError(t, mp.Shutdown(ctx))
			names, paths := recv.got()
			assert.True(t, names["http.server.request.duration"], "metrics: %v", names)
			assert.Equal(t, []string{tt.wantPath}, paths)
		})
	}
}

func TestMeterProviderOff(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		err  bool
	}{
		{"no endpoint", map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1"}, false},
		{"exporter none", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRICS_EXPORTER": "none"}, false},
		{"unknown protocol", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, true},
		{"bad URL", map[string]string{"OTEL_EXPORTER_OTLP_METRICS_ENDPOINT": "ftp://x"}, true},
		{"bad timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_TIMEOUT": "soon"}, true},
		{"bad headers", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"}, true},
		{"bad insecure", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:1", "OTEL_EXPORTER_OTLP_INSECURE": "yes"}, true},
		{"bad metrics timeout", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "127.0.0.1:1", "OTEL_EXPORTER_OTLP_METRICS_TIMEOUT": "-5"}, true},
		{"unreadable certificate", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://127.0.0.1:1", "OTEL_EXPORTER_OTLP_METRICS_CERTIFICATE": "/nonexistent/ca.pem"}, true},
		{"bad interval", map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_METRIC_EXPORT_INTERVAL": "-1"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mp, err := NewMeterProvider(context.Background(), func(k string) string { return tt.env[k] }, nil)
			if tt.err {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrMetricsConfig), "%v", err)
				return
			}
			require.NoError(t, err)
			assert.Nil(t, mp)
		})
	}
}
