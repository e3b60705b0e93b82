package translate

import (
	"math/bits"

	"go.opentelemetry.io/otel/attribute"
)

// EventSize returns the number of bytes ev takes in the OTLP protobuf
// encoding of its span (the Span.events field, tag and length included).
// It is exact for the scalar and slice values translate writes, so the byte
// budget of WithMaxEventBytes bounds what a collector receives.
func EventSize(ev Event) int {
	n := 0
	if t := ev.Time.UnixNano(); t > 0 {
		n += 1 + 8 // time_unix_nano, fixed64
	}
	if ev.Name != "" {
		n += lenField(len(ev.Name))
	}
	for _, kv := range ev.Attrs {
		n += lenField(keyValueSize(kv))
	}
	return lenField(n)
}

func varintSize(x uint64) int { return (bits.Len64(x|1) + 6) / 7 }

// lenField is the size of a length-delimited field whose payload is n bytes.
func lenField(n int) int { return 1 + varintSize(uint64(n)) + n }

func keyValueSize(kv attribute.KeyValue) int {
	n := 0
	if kv.Key != "" {
		n += lenField(len(kv.Key))
	}
	return n + lenField(anyValueSize(kv.Value))
}

// anyValueSize is the payload size of an AnyValue message. Its value is a
// oneof, so zero values are written too.
func anyValueSize(v attribute.Value) int {
	switch v.Type() {
	case attribute.BOOL:
		return 2
	case attribute.INT64:
		return 1 + varintSize(uint64(v.AsInt64()))
	case attribute.FLOAT64:
		return 1 + 8
	case attribute.STRING:
		return lenField(len(v.AsString()))
	case attribute.BYTESLICE:
		return lenField(len(v.AsByteSlice()))
	case attribute.BOOLSLICE:
		return arraySize(len(v.AsBoolSlice()), func(int) int { return 2 })
	case attribute.INT64SLICE:
		s := v.AsInt64Slice()
		return arraySize(len(s), func(i int) int { return 1 + varintSize(uint64(s[i])) })
	case attribute.FLOAT64SLICE:
		return arraySize(len(v.AsFloat64Slice()), func(int) int { return 9 })
	case attribute.STRINGSLICE:
		s := v.AsStringSlice()
		return arraySize(len(s), func(i int) int { return lenField(len(s[i])) })
	case attribute.SLICE:
		s := v.AsSlice()
		return arraySize(len(s), func(i int) int { return anyValueSize(s[i]) })
	case attribute.MAP:
		n := 0
		for _, kv := range v.AsMap() {
			n += lenField(keyValueSize(kv))
		}
		return lenField(n)
	case attribute.EMPTY:
		return 0
	}
	return lenField(len("INVALID"))
}

// arraySize is the payload size of an ArrayValue field holding n AnyValues.
func arraySize(n int, elem func(int) int) int {
	total := 0
	for i := range n {
		total += lenField(elem(i))
	}
	return lenField(total)
}
