package serve

import (
	"context"
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/store"
)

// WatchMetric is the gauge of the store's watch (store.WithWatch): 1 while
// the store listens for writes and keeps the versions it read, 0 while it
// watches but reads every version from the database (connecting, behind a
// pooler, a session that failed): answers are right either way, at about
// half the rate. A store that does not watch (SQLite) has no such gauge.
const WatchMetric = "testresults.serve.store.watch"

// observeWatch registers WatchMetric for st on mp (nil: the global
// provider) when st watches.
func observeWatch(st store.Store, mp metric.MeterProvider) {
	if store.WatchStateOf(st) == store.WatchOff {
		return
	}
	if mp == nil {
		mp = otel.GetMeterProvider()
	}
	// Registration fails only for a malformed name, which this is not.
	_, _ = mp.Meter("github.com/hangar-dev/testresults/serve").Int64ObservableGauge(WatchMetric,
		metric.WithDescription("1 while the store hears every write and keeps the versions it read; 0 while it reads each from the database"),
		metric.WithUnit("1"),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			v := int64(0)
			if store.WatchStateOf(st) == store.WatchLive {
				v = 1
			}
			o.Observe(v)
			return nil
		}))
}

// instrument wraps the routes with otelhttp: one server span per request,
// named after the route pattern ("GET /api/jobs/{id}/tests", never the raw
// path, so ids do not make span names unbounded), and the HTTP server
// metrics (request duration, body sizes).
func instrument(mux *http.ServeMux, tp trace.TracerProvider, mp metric.MeterProvider) http.Handler {
	var opts []otelhttp.Option
	if tp != nil {
		opts = append(opts, otelhttp.WithTracerProvider(tp))
	}
	if mp != nil {
		opts = append(opts, otelhttp.WithMeterProvider(mp))
	}
	opts = append(opts, otelhttp.WithSpanNameFormatter(func(op string, r *http.Request) string {
		if r.Pattern != "" {
			return r.Pattern
		}
		return op
	}))
	return otelhttp.NewHandler(mux, "testresults serve", opts...)
}
