package exporter

import (
	"context"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ParseParent reads a W3C traceparent (and an optional tracestate) into a
// remote span context. An empty traceparent is no parent: it returns the
// zero SpanContext and no error. Anything else that is not a valid
// traceparent fails with ErrParent; an invalid tracestate is ignored, as the
// W3C specification requires.
func ParseParent(traceparent, tracestate string) (trace.SpanContext, error) {
	sc, ok := extractParent(propagation.MapCarrier{"traceparent": traceparent, "tracestate": tracestate})
	if !ok {
		return sc, fmt.Errorf("%w: %q is not a W3C traceparent", ErrParent, traceparent)
	}
	return sc, nil
}

// ParentFromEnv reads the parent context from the TRACEPARENT and TRACESTATE
// environment variables through getenv (nil: os.Getenv), as
// propagation.TraceContext reads the traceparent and tracestate headers.
func ParentFromEnv(getenv func(string) string) (trace.SpanContext, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	c := envCarrier{getenv: getenv}
	sc, ok := extractParent(c)
	if !ok {
		return sc, fmt.Errorf("%w: TRACEPARENT %q is not a W3C traceparent", ErrParent, c.Get("traceparent"))
	}
	return sc, nil
}

// extractParent reads the carrier's traceparent: the zero SpanContext when
// there is none, false when it is not valid.
func extractParent(c propagation.TextMapCarrier) (trace.SpanContext, bool) {
	if c.Get("traceparent") == "" {
		return trace.SpanContext{}, true
	}
	sc := trace.SpanContextFromContext(propagation.TraceContext{}.Extract(context.Background(), c))
	return sc, sc.IsValid()
}

// envCarrier is a propagation.TextMapCarrier over environment variables:
// the header traceparent is the variable TRACEPARENT.
type envCarrier struct {
	getenv func(string) string
}

func (c envCarrier) Get(key string) string {
	return strings.TrimSpace(c.getenv(strings.ToUpper(key)))
}

// Set does nothing: the environment of this process is not a way to pass a
// context on.
func (envCarrier) Set(string, string) {}

func (envCarrier) Keys() []string { return []string{"traceparent", "tracestate"} }
