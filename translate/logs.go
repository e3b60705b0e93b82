package translate

import (
	"fmt"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/semconv"
)

// Events says where the test.run and test.case events of the runs go (see
// WithEvents).
type Events int

const (
	// EventsSpan puts them on the span that carries the runs, as span
	// events (Span.Events): the default.
	EventsSpan Events = iota
	// EventsLog makes them log-based events (Span.Records, which Logs
	// writes as OTLP log records) and leaves the span without events.
	EventsLog
	// EventsBoth does both: span events within the span's limits, and a
	// log record for every event.
	EventsBoth
)

var eventsNames = [...]string{EventsSpan: "span", EventsLog: "log", EventsBoth: "both"}

// String is the name ParseEvents reads.
func (e Events) String() string {
	if e >= 0 && int(e) < len(eventsNames) {
		return eventsNames[e]
	}
	return fmt.Sprintf("Events(%d)", int(e))
}

// ParseEvents reads span, log or both.
func ParseEvents(s string) (Events, error) {
	for i, name := range eventsNames {
		if s == name {
			return Events(i), nil
		}
	}
	return EventsSpan, fmt.Errorf("%w: events %q (want span, log or both)", ErrInvalid, s)
}

// Spans reports whether e puts the events on spans.
func (e Events) Spans() bool { return e == EventsSpan || e == EventsBoth }

// Logs reports whether e makes the events log records.
func (e Events) Logs() bool { return e == EventsLog || e == EventsBoth }

// WithEvents says where the events of the runs go (default EventsSpan).
// The log form follows the OpenTelemetry events specification: one log
// record per event, with the event's name, time and attributes and the
// trace and span id of the span that carries the run, so that a bridge
// from events to span events gives back the span events of EventsSpan.
// Log records are not bound by the span's byte budget nor by
// DefaultMaxCaseEvents: every test.case a run keeps gets one, unless
// WithMaxCaseEvents gives a limit, and the test.run record then counts the
// omitted ones as its span event does. Spans carry the same attributes,
// status and case spans whatever the choice; a span ends no earlier than
// its last event or record.
func WithEvents(e Events) Option {
	return optionFunc(func(c config) config {
		if e >= EventsSpan && e <= EventsBoth {
			c.events = e
		}
		return c
	})
}

// carriedEvents returns the span events and the log records of plans, as
// cfg asks.
func carriedEvents(plans []runPlan, cfg config) (events, records []Event) {
	if cfg.events.Spans() {
		events = spanEvents(plans, cfg)
	}
	if cfg.events.Logs() {
		records = logEvents(plans, cfg)
	}
	return events, records
}

// logEvents returns the events of plans as log records take them: each
// run's test.run event followed by every one of its test.case events (or
// the first WithMaxCaseEvents of them), stamped as span events are.
func logEvents(plans []runPlan, cfg config) []Event {
	caseEvents := make([][]Event, len(plans))
	for i := range plans {
		p := &plans[i]
		n := len(p.cases)
		if cfg.capCases {
			n = min(n, cfg.maxCaseEvents)
		}
		evs := make([]Event, n)
		for j := range evs {
			evs[j] = caseEvent(p, p.cases[j])
		}
		caseEvents[i] = evs
	}
	return joinEvents(plans, caseEvents)
}

// Logs returns the Records of spans (see WithEvents) as pdata logs under
// res (nil: an empty resource), in one scope named ScopeName whose schema
// URL is semconv.SchemaURL: one log record per event, in order. A record's
// event name (LogRecord.EventName), timestamp and attributes are the
// event's; its trace id, span id and sampled flag are those of the span
// that carries the run; its observed timestamp is its timestamp too, so
// that exporting the same runs again gives the same records. It has no
// body and no severity. When no span has records, the logs are empty (no
// resource logs).
func Logs(spans []Span, res *resource.Resource) plog.Logs {
	ld := plog.NewLogs()
	n := 0
	for i := range spans {
		n += len(spans[i].Records)
	}
	if n == 0 {
		return ld
	}
	rl := ld.ResourceLogs().AppendEmpty()
	if res != nil {
		rl.SetSchemaUrl(res.SchemaURL())
		putAttributes(rl.Resource().Attributes(), res.Attributes())
	}
	sl := rl.ScopeLogs().AppendEmpty()
	sl.Scope().SetName(ScopeName)
	sl.SetSchemaUrl(semconv.SchemaURL)
	sl.LogRecords().EnsureCapacity(n)
	for i := range spans {
		s := &spans[i]
		flags := plog.DefaultLogRecordFlags.WithIsSampled(s.TraceFlags.IsSampled())
		for _, e := range s.Records {
			lr := sl.LogRecords().AppendEmpty()
			lr.SetEventName(e.Name)
			lr.SetTimestamp(timestamp(e.Time))
			lr.SetObservedTimestamp(timestamp(e.Time))
			lr.SetTraceID(pcommon.TraceID(s.TraceID))
			lr.SetSpanID(pcommon.SpanID(s.SpanID))
			lr.SetFlags(flags)
			putAttributes(lr.Attributes(), e.Attrs)
		}
	}
	return ld
}
