// Package sdkspan records the spans of package translate with the
// OpenTelemetry SDK, for the OTLP senders of package exporter: a tracer
// provider whose IDGenerator gives each span the ids translate derived,
// span limits that drop nothing (SpanLimits), and Record, which starts and
// ends one SDK span per translate.Span. The pdata form of the same spans is
// translate.Traces.
package sdkspan

import (
	"context"
	"errors"
	"fmt"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/translate"
)

var (
	// ErrDropped is returned (wrapped) when the SDK's span limits dropped
	// an event or an attribute: events are never lost silently. Raise the
	// limits with SpanLimits.
	ErrDropped = errors.New("sdkspan: span limits dropped events or attributes")

	// ErrNotRecording is returned when events are added to a span that
	// records nothing (sampled out or not an SDK span).
	ErrNotRecording = errors.New("sdkspan: span is not recording")

	// ErrIDs is returned by Record when the tracer did not give a span its
	// ids, because its provider does not use IDGenerator.
	ErrIDs = errors.New("sdkspan: tracer provider does not use sdkspan.IDGenerator")
)

// AddEvents adds events to span: the SDK face of the events. It returns
// ErrNotRecording when span records nothing, and an error wrapping
// ErrDropped when the span's limits dropped one of the events or one of
// their attributes (the SDK keeps 128 events per span unless told
// otherwise: see SpanLimits).
func AddEvents(span trace.Span, events []translate.Event) error {
	if !span.IsRecording() {
		return ErrNotRecording
	}
	ro, _ := span.(sdktrace.ReadOnlySpan)
	before := 0
	if ro != nil {
		before = ro.DroppedEvents()
	}
	for _, e := range events {
		span.AddEvent(e.Name, trace.WithTimestamp(e.Time), trace.WithAttributes(e.Attrs...))
	}
	if ro == nil || len(events) == 0 {
		return nil
	}
	if d := ro.DroppedEvents() - before; d > 0 {
		return fmt.Errorf("%w: %d of %d events", ErrDropped, d, len(events))
	}
	recorded := ro.Events()
	for _, e := range recorded[len(recorded)-len(events):] {
		if e.DroppedAttributeCount > 0 {
			return fmt.Errorf("%w: event %q lost %d attributes", ErrDropped, e.Name, e.DroppedAttributeCount)
		}
	}
	return nil
}

// Record starts and ends spans with tracer, whose provider must use
// IDGenerator, so that each SDK span gets the span's derived ids, times,
// attributes and events. Parents are started before their children, as
// translate.JobSpans and translate.SessionSpans order them. A span that does not get its ids
// fails with ErrIDs; lost events fail with ErrDropped.
func Record(ctx context.Context, tracer trace.Tracer, spans []translate.Span) error {
	started := make(map[trace.SpanID]context.Context, len(spans))
	live := make([]trace.Span, 0, len(spans))
	end := func() {
		for i, s := range live {
			s.End(trace.WithTimestamp(spans[i].End))
		}
	}
	for _, s := range spans {
		var pctx context.Context // the context s is started in
		switch {
		case !s.ParentSpanID.IsValid():
			pctx = trace.ContextWithSpanContext(ctx, trace.SpanContext{})
		case s.RemoteParent:
			pctx = trace.ContextWithRemoteSpanContext(ctx, trace.NewSpanContext(trace.SpanContextConfig{
				TraceID:    s.TraceID,
				SpanID:     s.ParentSpanID,
				TraceFlags: s.TraceFlags,
				TraceState: s.TraceState,
				Remote:     true,
			}))
		default:
			p, ok := started[s.ParentSpanID]
			if !ok {
				end()
				return fmt.Errorf("%w: span %q: parent %s is not started before it", translate.ErrInvalid, s.Name, s.ParentSpanID)
			}
			pctx = p
		}
		_, span := tracer.Start(contextWithIDs(pctx, s.TraceID, s.SpanID), s.Name,
			trace.WithTimestamp(s.Start),
			trace.WithSpanKind(trace.SpanKindInternal),
			trace.WithAttributes(s.Attrs...),
		)
		live = append(live, span)
		sc := span.SpanContext()
		if sc.TraceID() != s.TraceID || sc.SpanID() != s.SpanID {
			end()
			return fmt.Errorf("%w: span %q got ids %s/%s", ErrIDs, s.Name, sc.TraceID(), sc.SpanID())
		}
		if err := AddEvents(span, s.Events); err != nil {
			end()
			return fmt.Errorf("%w (span %q)", err, s.Name)
		}
		if s.Status != codes.Unset {
			span.SetStatus(s.Status, s.StatusDescription)
		}
		started[s.SpanID] = trace.ContextWithSpan(ctx, span)
	}
	end()
	return nil
}

// SpanLimits returns the SDK span limits (sdktrace.NewSpanLimits, which
// honours the OTEL_SPAN_* variables) raised so that no event, event
// attribute or attribute value of spans is dropped or truncated. Use it with
// sdktrace.WithRawSpanLimits on the provider Record starts spans with (a
// limit of 0 the variables set stays 0 there, where spans need no more).
func SpanLimits(spans []translate.Span) sdktrace.SpanLimits {
	l := sdktrace.NewSpanLimits()
	events, eventAttrs, attrs := 0, 0, 0
	for _, s := range spans {
		events = max(events, len(s.Events))
		attrs = max(attrs, len(s.Attrs))
		for _, e := range s.Events {
			eventAttrs = max(eventAttrs, len(e.Attrs))
		}
	}
	l.EventCountLimit = raise(l.EventCountLimit, events)
	l.AttributePerEventCountLimit = raise(l.AttributePerEventCountLimit, eventAttrs)
	l.AttributeCountLimit = raise(l.AttributeCountLimit, attrs)
	l.AttributeValueLengthLimit = -1
	return l
}

// raise returns limit, or need when limit is a bound below it.
func raise(limit, need int) int {
	if limit < 0 || limit >= need {
		return limit
	}
	return need
}
