package exporter_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/internal/testotlp"
)

// startReceiver starts the collector's OTLP receiver, gRPC only, on
// 127.0.0.1 with request metadata kept, feeding next. It returns its address.
func startReceiver(t testing.TB, next consumer.Traces) string {
	t.Helper()
	return testotlp.Start(t, testotlp.Options{IncludeMetadata: true}, next)
}

// startReceiverAt starts the receiver of startReceiver on addr; the caller
// shuts it down.
func startReceiverAt(t testing.TB, addr string, next consumer.Traces) component.Component {
	t.Helper()
	return testotlp.StartAt(t, testotlp.Options{Addr: addr, IncludeMetadata: true}, next)
}

// waitSpans waits (at most 10 s) until sink holds n spans and returns its traces.
func waitSpans(t testing.TB, sink *consumertest.TracesSink, n int) []ptrace.Traces {
	t.Helper()
	require.Eventually(t, func() bool { return sink.SpanCount() >= n }, 10*time.Second, 10*time.Millisecond)
	return sink.AllTraces()
}

// merge puts the spans of several requests into one Traces, as one request
// would have held them.
func merge(all []ptrace.Traces) ptrace.Traces {
	out := ptrace.NewTraces()
	for _, td := range all {
		td.ResourceSpans().MoveAndAppendTo(out.ResourceSpans())
	}
	return out
}

// mergeScopes puts the spans of several requests that share one resource and
// one scope under the first request's resource and scope.
func mergeScopes(all []ptrace.Traces) ptrace.Traces {
	out := ptrace.NewTraces()
	all[0].ResourceSpans().CopyTo(out.ResourceSpans())
	spans := out.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for _, td := range all[1:] {
		td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().MoveAndAppendTo(spans)
	}
	return out
}

// startHTTPReceiver starts the collector's OTLP receiver, HTTP only, on
// 127.0.0.1 with request metadata kept, feeding next. It returns its
// host:port (traces at /v1/traces).
func startHTTPReceiver(t testing.TB, next consumer.Traces) string {
	t.Helper()
	return testotlp.Start(t, testotlp.Options{Protocol: testotlp.HTTP, IncludeMetadata: true}, next)
}
