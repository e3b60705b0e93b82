package exporter

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Retry pacing of an OTLP request: the first retry after retryFirst, then
// doubling up to retryMax, until the request's timeout.
const (
	retryFirst = 100 * time.Millisecond
	retryMax   = 2 * time.Second
	// retryLast is the least time left worth another attempt.
	retryLast = 50 * time.Millisecond
)

// retrying is an OTLP span exporter that retries what may pass later (the
// endpoint is down, restarting or busy) until its timeout, and gives up at
// once on what cannot (see classify).
type retrying struct {
	sdktrace.SpanExporter
	endpoint string // "OTLP/gRPC host:port"
	timeout  time.Duration
	// classify says whether err may pass on a later attempt and, when it
	// cannot, what to do about it.
	classify func(err error) (retry bool, hint string)
}

// ExportSpans sends spans, retrying as retrying describes. Its error is a
// *DeliveryError.
func (r *retrying) ExportSpans(ctx context.Context, spans []sdktrace.ReadOnlySpan) error {
	return deliver(ctx, r.endpoint, r.timeout, r.classify, func(ctx context.Context) error {
		if err := r.SpanExporter.ExportSpans(ctx, spans); !warnedOnly(err) {
			return err
		}
		return nil
	})
}

// warnedOnly reports whether err is the SDK's account of a partial success
// that rejected no span: a warning from the receiver (its message), on a
// request the OTLP specification counts as fully accepted.
func warnedOnly(err error) bool {
	if err == nil {
		return false
	}
	msg := strings.TrimPrefix(err.Error(), "traces export: ") // the SDK exporter's own prefix
	return strings.HasPrefix(msg, "OTLP partial success: ") && strings.HasSuffix(msg, " (0 spans rejected)") &&
		strings.Count(msg, "OTLP partial success: ") == 1 && !strings.Contains(msg, "rpc error:")
}

// deliver makes one OTLP request with send, retrying what may pass later
// until timeout and giving up at once on what classify says cannot pass.
// Its error is a *DeliveryError naming endpoint.
func deliver(ctx context.Context, endpoint string, timeout time.Duration, classify func(error) (bool, string), send func(context.Context) error) error {
	start := time.Now()
	deadline := start.Add(timeout)
	wait := retryFirst
	// lastHint is what the latest attempt that said enough suggests: the
	// last attempt may only time out.
	lastHint := ""
	for attempt := 1; ; attempt++ {
		actx, cancel := context.WithDeadline(ctx, deadline)
		err := send(actx)
		cancel()
		if err == nil {
			return nil
		}
		derr := &DeliveryError{Endpoint: endpoint, Attempts: attempt, Timeout: timeout, Err: err}
		if ctx.Err() != nil {
			derr.Err = errors.Join(ctx.Err(), err)
			return derr
		}
		retry, hint := classify(err)
		if !retry {
			derr.Permanent, derr.Hint = true, hint
			return derr
		}
		if h := retryHint(err); h != "" {
			lastHint = h
		}
		// Jitter spreads the retries of many clients after one outage;
		// near the deadline the wait shrinks so that the last attempt
		// still has time.
		left := time.Until(deadline)
		if left < retryLast {
			derr.Hint = lastHint
			return derr
		}
		d := min(wait/2+rand.N(wait/2+1), left/2)
		select {
		case <-ctx.Done():
			derr.Err = errors.Join(ctx.Err(), err)
			return derr
		case <-time.After(d):
		}
		wait = min(2*wait, retryMax)
	}
}

// DeliveryError is an OTLP request that was not delivered: refused for good
// (Permanent, errors.Is(err, ErrPermanent)), or still failing when its
// timeout ran out.
type DeliveryError struct {
	// Endpoint names the protocol and the endpoint: "OTLP/gRPC host:port".
	Endpoint string
	// Attempts is how many times the request was sent.
	Attempts int
	// Timeout is the time the request had, retries included.
	Timeout time.Duration
	// Permanent is set when a retry cannot help. Hint says what may help,
	// when the error says enough to guess.
	Permanent bool
	Hint      string
	// Err is the last attempt's error.
	Err error
}

func (e *DeliveryError) Error() string {
	if e.Permanent {
		msg := fmt.Sprintf("%s refused the request (not retried): %v", e.Endpoint, e.Err)
		if e.Hint != "" {
			msg += "; " + e.Hint
		}
		return msg
	}
	msg := fmt.Sprintf("%s: not delivered within %s (%s): %v", e.Endpoint, e.Timeout, count(e.Attempts, "attempt"), e.Err)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

// retryHint guesses, from the last error of a request retried until its
// timeout, what may help.
func retryHint(err error) string {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "connection refused"):
		return "nothing accepts connections there: is the collector running, and is this its port?"
	case strings.Contains(msg, "error reading server preface"), strings.Contains(msg, "connection reset by peer"):
		return "the endpoint closes every connection at once: if it expects TLS, drop --otlp-insecure (or give an https:// endpoint)"
	}
	return ""
}

func (e *DeliveryError) Unwrap() error { return e.Err }

// Is makes a permanent DeliveryError match ErrPermanent.
func (e *DeliveryError) Is(target error) bool { return target == ErrPermanent && e.Permanent }

// ExportError is an export that did not deliver every span or log record:
// it says how many spans, runs and log records were delivered before the
// request that failed and how many were not. Spans go out in order, then
// log records, so a later export of the same runs resends the missing
// ones; their ids are the same, and the ones already delivered arrive
// again as exact duplicates.
type ExportError struct {
	Spans, SentSpans     int
	Runs, SentRuns       int
	Records, SentRecords int
	Err                  error
}

func (e *ExportError) Error() string {
	records := ""
	if e.Records > 0 {
		records = ", " + count(e.Records, "log record")
	}
	if e.SentSpans == 0 && e.SentRecords == 0 {
		return fmt.Sprintf("exporter: nothing delivered (%s, %s%s): %v", count(e.Spans, "span"), count(e.Runs, "run"), records, e.Err)
	}
	if e.Records > 0 {
		return fmt.Sprintf("exporter: partial export: %d of %s and %d of %s delivered (%d of %s), %s and %s not: %v",
			e.SentSpans, count(e.Spans, "span"), e.SentRecords, count(e.Records, "log record"),
			e.SentRuns, count(e.Runs, "run"),
			count(e.Spans-e.SentSpans, "span"), count(e.Records-e.SentRecords, "log record"), e.Err)
	}
	return fmt.Sprintf("exporter: partial export: %d of %s (%d of %s) delivered, %s (%s) not: %v",
		e.SentSpans, count(e.Spans, "span"), e.SentRuns, count(e.Runs, "run"),
		count(e.Spans-e.SentSpans, "span"), count(e.Runs-e.SentRuns, "run"), e.Err)
}

// count is "1 span", "2 spans".
func count(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func (e *ExportError) Unwrap() error { return e.Err }
