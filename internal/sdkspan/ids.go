package sdkspan

import (
	"context"
	"encoding/binary"
	"math/rand/v2"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

type idsKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

// contextWithIDs returns a copy of ctx that asks IDGenerator for these ids
// when a span is started with it. Record uses it for every span.
func contextWithIDs(ctx context.Context, traceID trace.TraceID, spanID trace.SpanID) context.Context {
	return context.WithValue(ctx, idsKey{}, ids{trace: traceID, span: spanID})
}

// IDGenerator returns an sdktrace.IDGenerator that gives a span the ids its
// start context carries (see contextWithIDs) and random ids to any other
// span. Install it with sdktrace.WithIDGenerator on the provider Record
// starts spans with; the SDK then keeps its sampling, limits and processors
// while the ids stay deterministic.
func IDGenerator() sdktrace.IDGenerator { return idGenerator{} }

type idGenerator struct{}

func (idGenerator) NewIDs(ctx context.Context) (trace.TraceID, trace.SpanID) {
	if v, ok := ctx.Value(idsKey{}).(ids); ok && v.trace.IsValid() && v.span.IsValid() {
		return v.trace, v.span
	}
	return randomTraceID(), randomSpanID()
}

func (idGenerator) NewSpanID(ctx context.Context, _ trace.TraceID) trace.SpanID {
	if v, ok := ctx.Value(idsKey{}).(ids); ok && v.span.IsValid() {
		return v.span
	}
	return randomSpanID()
}

func randomTraceID() trace.TraceID {
	var id trace.TraceID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:8], rand.Uint64())
		binary.NativeEndian.PutUint64(id[8:], rand.Uint64())
	}
	return id
}

func randomSpanID() trace.SpanID {
	var id trace.SpanID
	for !id.IsValid() {
		binary.NativeEndian.PutUint64(id[:], rand.Uint64())
	}
	return id
}
