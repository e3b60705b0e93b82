package exporter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/consumer/consumertest"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// TestExportOverHTTP sends every export form over OTLP/HTTP to the
// collector's OTLP HTTP receiver and compares what arrives with the pdata
// face.
func TestExportOverHTTP(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	res, err := exporter.NewResource(ctx, "", noEnv)
	require.NoError(t, err)
	for _, tc := range exportCases() {
		t.Run(tc.name, func(t *testing.T) {
			sink := new(consumertest.TracesSink)
			addr := startHTTPReceiver(t, sink)
			o := exporter.Options{Getenv: noEnv, OTLP: exporter.OTLPOptions{
				Protocol: exporter.ProtocolHTTPProtobuf, Endpoint: addr, Insecure: true, Timeout: 10 * time.Second,
			}}
			require.NoError(t, tc.export(ctx, t, o))
			want := translate.Traces(tc.spans(t), res)
			got := waitSpans(t, sink, want.SpanCount())
			require.NoError(t, ptracetest.CompareTraces(want, mergeScopes(got)))
		})
	}
}

// TestHTTPEnvironment: the protocol and the endpoint conventions of the
// standard variables, read from the injected environment only (the process
// environment is poisoned).
func TestHTTPEnvironment(t *testing.T) {
	ctx := context.Background()
	runs := []*testrun.Run{readRun(t, "coverage/run.json")}
	for _, tc := range []struct {
		name string
		env  func(addr string) map[string]string
		opts exporter.OTLPOptions
	}{
		{name: "OTEL_EXPORTER_OTLP_PROTOCOL and a base endpoint", env: func(addr string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr}
		}},
		{name: "a base endpoint with a trailing slash", env: func(addr string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr + "/"}
		}},
		{name: "the traces protocol wins", env: func(addr string) map[string]string {
			return map[string]string{
				"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr,
			}
		}},
		{name: "the traces endpoint is used as it is", env: func(addr string) map[string]string {
			return map[string]string{
				"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/protobuf",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://" + addr + "/v1/traces",
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1",
				"OTEL_EXPORTER_OTLP_HEADERS":         "x-team=ci",
				"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
			}
		}},
		{name: "the option wins over the environment", env: func(string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}
		}, opts: exporter.OTLPOptions{Protocol: exporter.ProtocolHTTPProtobuf, Insecure: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			poisonEnv(t)
			sink := new(consumertest.TracesSink)
			addr := startHTTPReceiver(t, sink)
			o := tc.opts
			if o.Protocol != "" {
				o.Endpoint = addr
			}
			_, err := exporter.ExportRuns(ctx, runs, exporter.Options{Getenv: envOf(tc.env(addr)), OTLP: o})
			require.NoError(t, err)
			waitSpans(t, sink, 1)
			md := client.FromContext(sink.Contexts()[0]).Metadata
			if v := tc.env(addr)["OTEL_EXPORTER_OTLP_HEADERS"]; v != "" {
				assert.Equal(t, []string{"ci"}, md.Get("x-team"))
			} else {
				assert.Empty(t, md.Get("x-team"), "not the process environment's header")
			}
		})
	}
	t.Run("a wrong path is refused at once", func(t *testing.T) {
		poisonEnv(t)
		addr := startHTTPReceiver(t, new(consumertest.TracesSink))
		start := time.Now()
		_, err := exporter.ExportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/protobuf",
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://" + addr + "/wrong",
		})})
		require.ErrorIs(t, err, exporter.ErrPermanent)
		assert.Contains(t, err.Error(), "OTLP/HTTP http://"+addr+"/wrong refused the request")
		assert.Contains(t, err.Error(), "--protocol")
		assert.Less(t, time.Since(start), 5*time.Second)
	})
	t.Run("unknown protocol", func(t *testing.T) {
		_, err := exporter.ExportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"})})
		require.ErrorIs(t, err, exporter.ErrConfig)
		assert.Contains(t, err.Error(), "OTEL_EXPORTER_OTLP_PROTOCOL=http/json")
	})
}

// TestHTTPFaults: TLS against a plaintext HTTP port and refused credentials
// fail at once; 503 is retried until it passes.
func TestHTTPFaults(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	runs := []*testrun.Run{readRun(t, "failures/run.json")}
	send := func(addr string, insecure bool) (time.Duration, error) {
		start := time.Now()
		_, err := exporter.ExportRuns(ctx, runs, exporter.Options{Getenv: noEnv, OTLP: exporter.OTLPOptions{
			Protocol: exporter.ProtocolHTTPProtobuf, Endpoint: addr, Insecure: insecure, Timeout: 10 * time.Second,
		}})
		return time.Since(start), err
	}
	t.Run("TLS to the plaintext receiver", func(t *testing.T) {
		addr := startHTTPReceiver(t, new(consumertest.TracesSink))
		elapsed, err := send(addr, false)
		require.ErrorIs(t, err, exporter.ErrPermanent)
		assert.Contains(t, err.Error(), "--otlp-insecure")
		assert.Less(t, elapsed, 5*time.Second)
		t.Logf("failed after %s: %v", elapsed, err)
	})
	t.Run("401", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "who are you", http.StatusUnauthorized)
		}))
		t.Cleanup(srv.Close)
		elapsed, err := send(srv.URL, true)
		require.ErrorIs(t, err, exporter.ErrPermanent)
		assert.Contains(t, err.Error(), "--otlp-header")
		assert.Less(t, elapsed, 5*time.Second)
	})
	t.Run("503 then accepted", func(t *testing.T) {
		sink := new(consumertest.TracesSink)
		addr := startHTTPReceiver(t, sink)
		var n atomic.Int32
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if n.Add(1) <= 2 {
				http.Error(w, "busy", http.StatusServiceUnavailable)
				return
			}
			r.URL.Scheme, r.URL.Host, r.RequestURI = "http", addr, ""
			resp, err := http.DefaultTransport.RoundTrip(r)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			defer resp.Body.Close()
			w.Header().Set("Content-Type", resp.Header.Get("Content-Type"))
			w.WriteHeader(resp.StatusCode)
		}))
		t.Cleanup(proxy.Close)
		_, err := send(proxy.URL, true)
		require.NoError(t, err)
		waitSpans(t, sink, 1)
		assert.Equal(t, int32(3), n.Load())
	})
}
