package translate

import (
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/semconv"
)

// ScopeName is the instrumentation scope of the spans Traces writes (and
// of the spans the exporter records with the SDK); their scope's schema URL
// is semconv.SchemaURL.
const ScopeName = "github.com/hangar-dev/testresults/translate"

// Span flags of the OTLP protocol (SpanFlags): whether the parent is
// known to be remote, and whether it is.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// appendEvents appends events to dst.
func appendEvents(dst ptrace.SpanEventSlice, events []Event) {
	dst.EnsureCapacity(dst.Len() + len(events))
	for _, e := range events {
		pe := dst.AppendEmpty()
		pe.SetName(e.Name)
		pe.SetTimestamp(timestamp(e.Time))
		putAttributes(pe.Attributes(), e.Attrs)
	}
}

// Traces returns spans as pdata traces under res (nil: an empty resource),
// in one scope named ScopeName: the one pdata form of the spans. The
// exporter writes it as OTLP/JSON, and the OTLP senders deliver the same
// traces (span kind internal, the SDK's flags and status rules).
func Traces(spans []Span, res *resource.Resource) ptrace.Traces {
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	if res != nil {
		rs.SetSchemaUrl(res.SchemaURL())
		putAttributes(rs.Resource().Attributes(), res.Attributes())
	}
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Scope().SetName(ScopeName)
	ss.SetSchemaUrl(semconv.SchemaURL)
	ss.Spans().EnsureCapacity(len(spans))
	for _, s := range spans {
		ps := ss.Spans().AppendEmpty()
		ps.SetTraceID(pcommon.TraceID(s.TraceID))
		ps.SetSpanID(pcommon.SpanID(s.SpanID))
		ps.TraceState().FromRaw(s.TraceState.String())
		if s.ParentSpanID.IsValid() {
			ps.SetParentSpanID(pcommon.SpanID(s.ParentSpanID))
		}
		flags := uint32(s.TraceFlags) | flagHasIsRemote
		if s.RemoteParent {
			flags |= flagIsRemote
		}
		ps.SetFlags(flags)
		ps.SetName(s.Name)
		ps.SetKind(ptrace.SpanKindInternal)
		ps.SetStartTimestamp(timestamp(s.Start))
		ps.SetEndTimestamp(timestamp(s.End))
		putAttributes(ps.Attributes(), s.Attrs)
		appendEvents(ps.Events(), s.Events)
		setStatus(ps.Status(), s.Status, s.StatusDescription)
	}
	return td
}

// setStatus writes a span status as the SDK keeps it: the description
// only with codes.Error.
func setStatus(dst ptrace.Status, code codes.Code, description string) {
	switch code {
	case codes.Error:
		dst.SetCode(ptrace.StatusCodeError)
		dst.SetMessage(description)
	case codes.Ok:
		dst.SetCode(ptrace.StatusCodeOk)
	default:
		dst.SetCode(ptrace.StatusCodeUnset)
	}
}

// timestamp converts t to a pdata timestamp; times before 1970 become 0, as
// the OTLP exporters write them.
func timestamp(t time.Time) pcommon.Timestamp {
	return pcommon.Timestamp(max(0, t.UnixNano())) //nolint:gosec // not negative
}

// putAttributes puts attrs into m, a later value replacing an earlier one
// of the same key, as the SDK keeps span attributes.
func putAttributes(m pcommon.Map, attrs []attribute.KeyValue) {
	m.EnsureCapacity(m.Len() + len(attrs))
	for _, kv := range attrs {
		putValue(m.PutEmpty(string(kv.Key)), kv.Value)
	}
}

// putValue writes v into dst, every attribute type included: slices become
// arrays, maps key-value lists, byte slices bytes. A value of unknown type
// is written as the string "INVALID", as the OTLP exporters do.
func putValue(dst pcommon.Value, v attribute.Value) {
	switch v.Type() {
	case attribute.BOOL:
		dst.SetBool(v.AsBool())
	case attribute.INT64:
		dst.SetInt(v.AsInt64())
	case attribute.FLOAT64:
		dst.SetDouble(v.AsFloat64())
	case attribute.STRING:
		dst.SetStr(v.AsString())
	case attribute.BYTESLICE:
		dst.SetEmptyBytes().FromRaw(v.AsByteSlice())
	case attribute.BOOLSLICE:
		s := dst.SetEmptySlice()
		for _, b := range v.AsBoolSlice() {
			s.AppendEmpty().SetBool(b)
		}
	case attribute.INT64SLICE:
		s := dst.SetEmptySlice()
		for _, i := range v.AsInt64Slice() {
			s.AppendEmpty().SetInt(i)
		}
	case attribute.FLOAT64SLICE:
		s := dst.SetEmptySlice()
		for _, f := range v.AsFloat64Slice() {
			s.AppendEmpty().SetDouble(f)
		}
	case attribute.STRINGSLICE:
		s := dst.SetEmptySlice()
		for _, str := range v.AsStringSlice() {
			s.AppendEmpty().SetStr(str)
		}
	case attribute.SLICE:
		s := dst.SetEmptySlice()
		for _, e := range v.AsSlice() {
			putValue(s.AppendEmpty(), e)
		}
	case attribute.MAP:
		putAttributes(dst.SetEmptyMap(), v.AsMap())
	case attribute.EMPTY:
		// An empty value stays empty.
	default:
		dst.SetStr("INVALID")
	}
}
