package translate

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// Span is one span of an export, independent of the SDK and of pdata.
// Traces writes it into pdata.
type Span struct {
	Name    string
	TraceID trace.TraceID
	SpanID  trace.SpanID
	// ParentSpanID is the parent's span id: another span of the export or
	// the remote parent; zero for a root span.
	ParentSpanID trace.SpanID
	// RemoteParent is true when the parent is the remote parent given with
	// WithParent.
	RemoteParent bool
	// TraceFlags and TraceState are the span's: the remote parent's, with
	// the sampled flag set.
	TraceFlags trace.TraceFlags
	TraceState trace.TraceState
	Start, End time.Time
	Attrs      []attribute.KeyValue
	// Events are the span events of the runs the span carries (with
	// EventsSpan or EventsBoth, see WithEvents), within the span's limits.
	Events []Event
	// Records are the same events as log records take them (with
	// EventsLog or EventsBoth): every test.case a run keeps, beyond the
	// span's limits. Logs writes them; Traces leaves them out.
	Records []Event
	// Status is codes.Error when one of the span's runs failed, timed out,
	// was aborted or is incomplete, with StatusDescription saying how in a
	// few words; codes.Unset otherwise (a passing run leaves the status to
	// whoever owns the span, as instrumentation should).
	Status            codes.Code
	StatusDescription string
}

// Job is the job a job export puts its runs on.
type Job struct {
	// ID is the job id (hangar.job.id); optional. Without it, the ids are
	// derived from the ids of the runs, in order.
	ID string
	// Provision puts the runs on the job's provisioning span
	// (semconv.SpanJobProvision), where the base run belongs, instead of
	// its verification span (semconv.SpanJobVerify).
	Provision bool
}

// Session is a session export: a session span with one child span per turn.
type Session struct {
	// ID is the session id (hangar.session.id); required.
	ID string
	// Turns are the session's turns, each with its runs.
	Turns []Turn
}

// Turn is one turn of a session and the runs that checked it.
type Turn struct {
	// Number is the turn's number (hangar.session.turn), 0 or more.
	Number int
	Runs   []*testrun.Run
}

// JobSpans returns the spans of a job export: first the job's verification
// span (or its provisioning span) carrying the events of runs, in order,
// then its case spans, if WithCaseSpans asks for them. The span runs from
// the earliest start to the latest end of the runs, or to its last event or
// case span's end when that is later (see EventStep). Its status and its
// summary attributes say how the runs went (see Span.Status and package
// doc).
func JobSpans(job Job, runs []*testrun.Run, opts ...Option) ([]Span, error) {
	cfg := newConfig(opts)
	plans, err := planRuns(runs, cfg, cfg.now())
	if err != nil {
		return nil, err
	}
	// The job's trace comes from the job id; the span also from the runs it
	// carries, so that two exports of different runs for one job never
	// give two different spans the same id.
	key := runKey(runs)
	if job.ID != "" {
		key = []string{"job", job.ID}
	}
	name := semconv.SpanJobVerify
	if job.Provision {
		name = semconv.SpanJobProvision
	}
	s := newSpan(cfg, name, key, runKey(runs)...)
	if job.ID != "" {
		s.Attrs = []attribute.KeyValue{semconv.JobIDKey.String(valid(job.ID))}
	}
	children := carryRuns(&s, plans, cfg)
	return append([]Span{s}, children...), nil
}

// carryRuns makes s the span of the runs planned: it spans them, carries
// their events (or log records) and their summary, and ends no earlier
// than the case spans it returns, its children.
func carryRuns(s *Span, plans []runPlan, cfg config) []Span {
	s.Start, s.End = interval(plans)
	s.Events, s.Records = carriedEvents(plans, cfg)
	s.End = coverEvents(coverEvents(s.End, s.Events), s.Records)
	summarize(s, plans, cfg)
	children := caseSpans(s, plans, cfg)
	s.End = caseSpanEnd(s.End, children)
	return children
}

// SessionSpans returns the spans of a session export: the session span first,
// then one span per turn in turn order, each the session span's child and
// carrying the events of its turn's runs, then the turns' case spans, if
// WithCaseSpans asks for them.
func SessionSpans(session Session, opts ...Option) ([]Span, error) {
	cfg := newConfig(opts)
	if session.ID == "" {
		return nil, fmt.Errorf("%w: session without id", ErrInvalid)
	}
	if len(session.Turns) == 0 {
		return nil, fmt.Errorf("%w: session %q without turns", ErrInvalid, session.ID)
	}
	turns := slices.Clone(session.Turns)
	slices.SortStableFunc(turns, func(a, b Turn) int { return a.Number - b.Number })
	now := cfg.now()
	// The session span's id also covers every turn and run of this export:
	// exporting turns one at a time gives one session span per export (in
	// the session's trace) rather than one id for spans that differ.
	var exported []string
	for _, t := range turns {
		exported = append(exported, "turn", strconv.Itoa(t.Number))
		exported = append(exported, runKey(t.Runs)...)
	}
	root := newSpan(cfg, semconv.SpanSession, []string{"session", session.ID}, exported...)
	root.Attrs = []attribute.KeyValue{semconv.SessionIDKey.String(valid(session.ID))}
	spans := make([]Span, 1, 1+len(turns))
	var cases []Span // the turns' case spans, after the turns
	for i, t := range turns {
		if t.Number < 0 {
			return nil, fmt.Errorf("%w: session %q: turn %d: negative number", ErrInvalid, session.ID, t.Number)
		}
		if i > 0 && turns[i-1].Number == t.Number {
			return nil, fmt.Errorf("%w: session %q: turn %d given twice", ErrInvalid, session.ID, t.Number)
		}
		plans, err := planRuns(t.Runs, cfg, now)
		if err != nil {
			return nil, fmt.Errorf("%w (session %q, turn %d)", err, session.ID, t.Number)
		}
		n := strconv.Itoa(t.Number)
		s := Span{
			Name:       semconv.SpanTurn,
			TraceID:    root.TraceID,
			SpanID:     deriveSpanID(append([]string{semconv.SpanTurn, "session", session.ID, "turn", n}, runKey(t.Runs)...)...),
			TraceFlags: root.TraceFlags,
			TraceState: root.TraceState,
			Attrs: []attribute.KeyValue{
				semconv.SessionIDKey.String(valid(session.ID)),
				semconv.TurnKey.Int(t.Number),
			},
		}
		s.ParentSpanID = root.SpanID
		children := carryRuns(&s, plans, cfg)
		cases = append(cases, children...)
		if i == 0 || s.Start.Before(root.Start) {
			root.Start = s.Start
		}
		if i == 0 || s.End.After(root.End) {
			root.End = s.End
		}
		spans = append(spans, s)
	}
	spans[0] = root
	return append(spans, cases...), nil
}

// newSpan returns a span named name whose ids derive from key: a root span,
// or the child of the remote parent of cfg, whose trace it joins.
// runKey lists the ids of runs, in order, for deriving ids.
func runKey(runs []*testrun.Run) []string {
	key := make([]string, 0, 1+len(runs))
	key = append(key, "runs")
	for _, r := range runs {
		if r != nil {
			key = append(key, r.ID)
		}
	}
	return key
}

// newSpan starts a span whose trace id derives from key (unless a parent
// gives it) and whose span id derives from its name, key and extra.
func newSpan(cfg config, name string, key []string, extra ...string) Span {
	s := Span{
		Name:       name,
		SpanID:     deriveSpanID(append(append([]string{name}, key...), extra...)...),
		TraceFlags: trace.FlagsSampled,
	}
	if p := cfg.parent; p.IsValid() {
		s.TraceID = p.TraceID()
		s.ParentSpanID = p.SpanID()
		s.RemoteParent = true
		s.TraceFlags = p.TraceFlags().WithSampled(true)
		s.TraceState = p.TraceState()
	} else {
		s.TraceID = deriveTraceID(key...)
	}
	return s
}

// coverEvents returns end, or the time of the last of events when that is
// later: a run's test.case events follow its end by a few microseconds (see
// EventStep), and a span contains its events.
func coverEvents(end time.Time, events []Event) time.Time {
	if last := lastEventTime(events); last.After(end) {
		return last
	}
	return end
}

// interval is the earliest start and the latest end of plans.
func interval(plans []runPlan) (start, end time.Time) {
	for i, p := range plans {
		if i == 0 || p.start.Before(start) {
			start = p.start
		}
		if i == 0 || p.end.After(end) {
			end = p.end
		}
	}
	return start, end
}
