package exporter

import (
	"math"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/translate"
)

// OTLP span flags (SpanFlags) above the 8 bits of W3C trace flags.
const (
	flagHasIsRemote = 0x100
	flagIsRemote    = 0x200
)

// TracesFromSDKSpans converts SDK spans to pdata traces as the OTLP exporters encode
// them: spans grouped by resource and then by instrumentation scope, in the
// order first seen; ids, trace state, parent, flags (the W3C trace flags and
// whether the parent is remote), kind, times, attributes of every type,
// events, links, status and the dropped counts.
func TracesFromSDKSpans(spans []sdktrace.ReadOnlySpan) ptrace.Traces {
	td := ptrace.NewTraces()
	type scopeKey struct {
		res   attribute.Distinct
		scope instrumentation.Scope
	}
	resources := make(map[attribute.Distinct]ptrace.ResourceSpans)
	scopes := make(map[scopeKey]ptrace.ScopeSpans)
	for _, s := range spans {
		if s == nil {
			continue
		}
		res := s.Resource()
		rk := res.Equivalent()
		rs, ok := resources[rk]
		if !ok {
			rs = td.ResourceSpans().AppendEmpty()
			if res != nil {
				rs.SetSchemaUrl(res.SchemaURL())
				translate.PutAttributes(rs.Resource().Attributes(), res.Attributes())
			}
			resources[rk] = rs
		}
		sk := scopeKey{res: rk, scope: s.InstrumentationScope()}
		ss, ok := scopes[sk]
		if !ok {
			ss = rs.ScopeSpans().AppendEmpty()
			putScope(ss, sk.scope)
			scopes[sk] = ss
		}
		putSpan(ss.Spans().AppendEmpty(), s)
	}
	return td
}

func putScope(ss ptrace.ScopeSpans, scope instrumentation.Scope) {
	ss.SetSchemaUrl(scope.SchemaURL)
	ss.Scope().SetName(scope.Name)
	ss.Scope().SetVersion(scope.Version)
	translate.PutAttributes(ss.Scope().Attributes(), scope.Attributes.ToSlice())
}

func putSpan(ps ptrace.Span, s sdktrace.ReadOnlySpan) {
	sc := s.SpanContext()
	ps.SetTraceID(pcommon.TraceID(sc.TraceID()))
	ps.SetSpanID(pcommon.SpanID(sc.SpanID()))
	ps.TraceState().FromRaw(sc.TraceState().String())
	parent := s.Parent()
	if parent.SpanID().IsValid() {
		ps.SetParentSpanID(pcommon.SpanID(parent.SpanID()))
	}
	ps.SetFlags(spanFlags(sc.TraceFlags(), parent))
	ps.SetName(s.Name())
	ps.SetKind(spanKind(s.SpanKind()))
	ps.SetStartTimestamp(translate.Timestamp(s.StartTime()))
	ps.SetEndTimestamp(translate.Timestamp(s.EndTime()))
	translate.PutAttributes(ps.Attributes(), s.Attributes())
	ps.SetDroppedAttributesCount(clamp(s.DroppedAttributes()))

	events := s.Events()
	ps.Events().EnsureCapacity(len(events))
	for _, e := range events {
		pe := ps.Events().AppendEmpty()
		pe.SetName(e.Name)
		pe.SetTimestamp(translate.Timestamp(e.Time))
		translate.PutAttributes(pe.Attributes(), e.Attributes)
		pe.SetDroppedAttributesCount(clamp(e.DroppedAttributeCount))
	}
	ps.SetDroppedEventsCount(clamp(s.DroppedEvents()))

	links := s.Links()
	ps.Links().EnsureCapacity(len(links))
	for _, l := range links {
		pl := ps.Links().AppendEmpty()
		pl.SetTraceID(pcommon.TraceID(l.SpanContext.TraceID()))
		pl.SetSpanID(pcommon.SpanID(l.SpanContext.SpanID()))
		pl.TraceState().FromRaw(l.SpanContext.TraceState().String())
		pl.SetFlags(spanFlags(l.SpanContext.TraceFlags(), l.SpanContext))
		translate.PutAttributes(pl.Attributes(), l.Attributes)
		pl.SetDroppedAttributesCount(clamp(l.DroppedAttributeCount))
	}
	ps.SetDroppedLinksCount(clamp(s.DroppedLinks()))

	st := s.Status()
	switch st.Code {
	case codes.Error:
		ps.Status().SetCode(ptrace.StatusCodeError)
	case codes.Ok:
		ps.Status().SetCode(ptrace.StatusCodeOk)
	default:
		ps.Status().SetCode(ptrace.StatusCodeUnset)
	}
	ps.Status().SetMessage(st.Description)
}

// spanFlags is the OTLP flags field: the W3C trace flags in the low byte,
// and whether the parent (or linked) context is remote.
func spanFlags(tf trace.TraceFlags, parent trace.SpanContext) uint32 {
	f := uint32(tf) | flagHasIsRemote
	if parent.IsRemote() {
		f |= flagIsRemote
	}
	return f
}

func spanKind(k trace.SpanKind) ptrace.SpanKind {
	switch k {
	case trace.SpanKindInternal:
		return ptrace.SpanKindInternal
	case trace.SpanKindServer:
		return ptrace.SpanKindServer
	case trace.SpanKindClient:
		return ptrace.SpanKindClient
	case trace.SpanKindProducer:
		return ptrace.SpanKindProducer
	case trace.SpanKindConsumer:
		return ptrace.SpanKindConsumer
	}
	return ptrace.SpanKindUnspecified
}

func clamp(n int) uint32 {
	if n < 0 {
		return 0
	}
	if int64(n) > math.MaxUint32 {
		return math.MaxUint32
	}
	return uint32(n)
}
