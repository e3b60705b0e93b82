package translate

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"math/rand/v2"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/semconv"
)

// Roles of derived ids. Every id is the start of
// sha256(semconv.Schema, role, parts...) with each string length-prefixed,
// so no two roles or part lists can produce the same input.
const (
	roleTrace = "trace"
	roleSpan  = "span"
)

func digest(role string, parts ...string) [sha256.Size]byte {
	h := sha256.New()
	var n [binary.MaxVarintLen64]byte
	write := func(s string) {
		h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	write(semconv.Schema)
	write(role)
	for _, p := range parts {
		write(p)
	}
	var d [sha256.Size]byte
	h.Sum(d[:0])
	return d
}

// deriveTraceID returns the trace id of the given parts; never all zero.
func deriveTraceID(parts ...string) trace.TraceID {
	d := digest(roleTrace, parts...)
	var id trace.TraceID
	copy(id[:], d[:])
	if !id.IsValid() {
		id[len(id)-1] = 1
	}
	return id
}

// deriveSpanID returns the span id of the given parts; never all zero.
func deriveSpanID(parts ...string) trace.SpanID {
	d := digest(roleSpan, parts...)
	var id trace.SpanID
	copy(id[:], d[:])
	if !id.IsValid() {
		id[len(id)-1] = 1
	}
	return id
}

type idsKey struct{}

type ids struct {
	trace trace.TraceID
	span  trace.SpanID
}

// ContextWithIDs returns a copy of ctx that asks IDGenerator for these ids
// when a span is started with it. Record uses it for every span.
func ContextWithIDs(ctx context.Context, traceID trace.TraceID, spanID trace.SpanID) context.Context {
	return context.WithValue(ctx, idsKey{}, ids{trace: traceID, span: spanID})
}

// IDGenerator returns an sdktrace.IDGenerator that gives a span the ids its
// start context carries (see ContextWithIDs) and random ids to any other
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
