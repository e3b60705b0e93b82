package serve

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/store"
)

func TestServerTelemetry(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
	srv := httptest.NewServer(New(st, Options{TracerProvider: tp, MeterProvider: mp}).Handler())
	defer srv.Close()

	resp, err := srv.Client().Get(srv.URL + "/api/jobs/some-job/tests")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)

	spans := rec.Ended()
	require.Len(t, spans, 1)
	assert.Equal(t, "GET /api/jobs/{id}/tests", spans[0].Name(), "named by the route, not the id")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	names := map[string]bool{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			names[m.Name] = true
		}
	}
	assert.True(t, names["http.server.request.duration"], "metrics: %v", names)
}

// TestWatchGauge: a server over a PostgreSQL store that listens for writes
// reports the watch's state as WatchMetric, 1 once it listens; a SQLite
// store, which does not watch, has no such gauge.
func TestWatchGauge(t *testing.T) {
	gauge := func(reader *sdkmetric.ManualReader) (int64, bool) {
		t.Helper()
		var rm metricdata.ResourceMetrics
		require.NoError(t, reader.Collect(context.Background(), &rm))
		for _, sm := range rm.ScopeMetrics {
			for _, m := range sm.Metrics {
				if m.Name == WatchMetric {
					g, ok := m.Data.(metricdata.Gauge[int64])
					require.True(t, ok, "%T", m.Data)
					require.Len(t, g.DataPoints, 1)
					return g.DataPoints[0].Value, true
				}
			}
		}
		return 0, false
	}

	lite, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"), store.WithWatch())
	require.NoError(t, err)
	defer lite.Close()
	reader := sdkmetric.NewManualReader()
	New(lite, Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	_, ok := gauge(reader)
	assert.False(t, ok, "SQLite does not watch")

	pg, err := store.Open(context.Background(), teststore.PostgresLocation(t), store.WithWatch())
	require.NoError(t, err)
	defer pg.Close()
	reader = sdkmetric.NewManualReader()
	New(pg, Options{MeterProvider: sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))})
	deadline := testDeadline(t)
	for v, _ := gauge(reader); v != 1 && time.Now().Before(deadline); v, _ = gauge(reader) {
		time.Sleep(10 * time.Millisecond)
	}
	v, ok := gauge(reader)
	require.True(t, ok, "a watching store has the gauge")
	assert.Equal(t, int64(1), v, "listening")
	require.NoError(t, pg.Close())
	v, _ = gauge(reader)
	assert.Equal(t, int64(0), v, "closed: not listening")
}
