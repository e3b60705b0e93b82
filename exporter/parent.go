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
	return extractParent(propagation.MapCarrier{"traceparent": traceparent, "tracestate": tracestate})
}

// ParentFromEnv reads the parent context from the TRACEPARENT and TRACESTATE
// environment variables through getenv (nil: os.Getenv), as
// propagation.TraceContext reads the traceparent and tracestate headers.
func ParentFromEnv(getenv func(string) string) (trace.SpanContext, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	sc, err := extractParent(envCarrier{getenv: getenv})
	if err != nil {
		return sc, fmt.Errorf("TRACEPARENT: %w", err)
	}
	return sc, nil
}

func extractParent(c propagation.TextMapCarrier) (trace.SpanContext, error) {
	tp := c.Get("traceparent")
	if tp == "" {
		return trace.SpanContext{}, nil
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), c)
	sc := trace.SpanContextFromContext(ctx)
	if !sc.IsValid() {
		return trace.SpanContext{}, fmt.Errorf("%q is not a W3C traceparent: %w", tp, ErrParent)
	}
	return sc, nil
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
