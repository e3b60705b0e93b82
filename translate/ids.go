package translate

import (
	"crypto/sha256"
	"encoding/binary"

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
