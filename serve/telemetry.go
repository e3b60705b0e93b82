package serve

import (
	"net/http"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"
)

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
