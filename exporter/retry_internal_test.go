package exporter

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// resetThenHang fails its first attempt as an endpoint that closes the
// connection does, and then hangs until the request's deadline.
type resetThenHang struct {
	sdktrace.SpanExporter
	calls int
}

func (e *resetThenHang) ExportSpans(ctx context.Context, _ []sdktrace.ReadOnlySpan) error {
	e.calls++
	if e.calls == 1 {
		return errors.New("read tcp 127.0.0.1:1: connection reset by peer")
	}
	<-ctx.Done()
	return ctx.Err()
}

// TestRetryKeepsHint: when the last attempt only times out, the hint an
// earlier attempt gave is still reported.
func TestRetryKeepsHint(t *testing.T) {
	r := &retrying{
		SpanExporter: &resetThenHang{},
		endpoint:     "OTLP/gRPC 127.0.0.1:1",
		timeout:      300 * time.Millisecond,
		classify:     func(error) (bool, string) { return true, "" },
	}
	err := r.ExportSpans(context.Background(), nil)
	var de *DeliveryError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, err, context.DeadlineExceeded, "the last attempt timed out")
	assert.Contains(t, err.Error(), "drop --otlp-insecure")
}

func TestWarnedOnly(t *testing.T) {
	for msg, want := range map[string]bool{
		"traces export: OTLP partial success: values truncated (0 spans rejected)":                             true,
		"OTLP partial success: empty message (0 spans rejected)":                                               true,
		"traces export: OTLP partial success: too old (3 spans rejected)":                                      false,
		"traces export: OTLP partial success: x (0 spans rejected)\nrpc error: code = Unavailable desc = busy": false,
		"rpc error: code = Unavailable desc = busy":                                                            false,
	} {
		if got := warnedOnly(errors.New(msg)); got != want {
			t.Errorf("warnedOnly(%q) = %v, want %v", msg, got, want)
		}
	}
	if warnedOnly(nil) {
		t.Error("nil is no warning")
	}
}
