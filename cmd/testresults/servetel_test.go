package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testnet"
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
			var mu sync.Mutex
			var got []byte
			recv := httptestServer(t, func(w http.ResponseWriter, r *http.Request) {
				b, _ := io.ReadAll(r.Body)
				mu.Lock()
				if r.URL.Path == "/v1/metrics" {
					got = append(got, b...)
				}
				mu.Unlock()
				w.Header().Set("Content-Type", "application/x-protobuf")
			})
			vars := tt.vars(recv)
			vars["HANGAR_STORE"] = filepath.Join(t.TempDir(), "s.db")
			addr := testnet.FreeAddr(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			done := make(chan int, 1)
			stderr := &lockedBuffer{}
			go func() {
				done <- run(ctx, []string{"serve", "--listen", addr}, Env{
					Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: stderr,
					Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil },
				})
			}()
			deadline := time.Now().Add(10 * time.Second)
			var resp *http.Response
			for {
				var err error
				resp, err = http.Get("http://" + addr + "/api/jobs/none/tests")
				if err == nil {
					break
				}
				require.True(t, time.Now().Before(deadline), "the server did not start: %s", stderr.String())
				time.Sleep(20 * time.Millisecond)
			}
			resp.Body.Close()
			cancel()
			select {
			case c := <-done:
				require.Equal(t, exitOK, c, stderr.String())
			case <-time.After(20 * time.Second):
				t.Fatal("serve did not stop")
			}
			mu.Lock()
			defer mu.Unlock()
			if !tt.metrics {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, string(got), "http.server.request.duration")
			assert.Contains(t, string(got), "serve-under-test")
		})
	}
}
