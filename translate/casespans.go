package translate

import (
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// CaseSpans says which test cases of a run also become spans of their own,
// children of the span that carries the run (see WithCaseSpans).
type CaseSpans int

const (
	// CaseSpansNone exports no case span: the runs are events only.
	CaseSpansNone CaseSpans = iota
	// CaseSpansFailed exports a span for each test that has a test.case
	// event's reason to be shown: failing and flaky tests.
	CaseSpansFailed
	// CaseSpansAll exports a span for every test case the run keeps.
	CaseSpansAll
)

// MaxCaseSpanNameRunes is how many characters of a test id a case span's
// name holds; test.case.name carries the whole id.
const MaxCaseSpanNameRunes = 200

var caseSpansNames = [...]string{CaseSpansNone: "none", CaseSpansFailed: "failed", CaseSpansAll: "all"}

// String is the name ParseCaseSpans reads.
func (c CaseSpans) String() string {
	if c >= 0 && int(c) < len(caseSpansNames) {
		return caseSpansNames[c]
	}
	return fmt.Sprintf("CaseSpans(%d)", int(c))
}

// ParseCaseSpans reads none, failed or all.
func ParseCaseSpans(s string) (CaseSpans, error) {
	for i, name := range caseSpansNames {
		if s == name {
			return CaseSpans(i), nil
		}
	}
	return CaseSpansNone, fmt.Errorf("%w: case spans %q (want none, failed or all)", ErrInvalid, s)
}

// WithCaseSpans adds a child span per test case to the span that carries
// each run (default CaseSpansNone). A case span is named by the test id
// (its first MaxCaseSpanNameRunes characters), so that a trace view lists
// the tests by name; it carries test.case.name, test.case.result.status
// (pass or fail; none for a skipped test), test.suite.name,
// hangar.test.outcome, hangar.test.flaky and hangar.test.run.id, and for a
// failure hangar.test.message, hangar.test.new_failure, code.file.path and
// code.line.number as its test.case event does, and the flakiness score
// of WithFlakiness. A failing test's span has
// status Error. Spans come in the order of the test.case events (failures
// first), then, for CaseSpansAll, the other tests sorted by id; the first
// starts at the run's start and each next one EventStep later, so that
// viewers, which order spans by start, list them in that order. Each lasts the duration its report states
// (Run.Durations); where the report states none, it lasts nothing and says
// so with hangar.test.duration_unknown. Its id derives from its parent
// span, the run and the test id: exporting the same runs again gives the
// same spans.
func WithCaseSpans(c CaseSpans) Option {
	return optionFunc(func(cfg config) config {
		if c >= CaseSpansNone && c <= CaseSpansAll {
			cfg.caseSpans = c
		}
		return cfg
	})
}

// caseSpans returns the case spans of plans, children of parent.
func caseSpans(parent *Span, plans []runPlan, cfg config) []Span {
	if cfg.caseSpans == CaseSpansNone {
		return nil
	}
	var spans []Span
	for i := range plans {
		p := &plans[i]
		refs := p.cases
		if cfg.caseSpans == CaseSpansAll {
			refs = allCases(p)
		}
		spans = slices.Grow(spans, len(refs))
		for j, c := range refs {
			spans = append(spans, caseSpan(parent, p, c, p.start.Add(time.Duration(j)*EventStep)))
		}
	}
	return spans
}

// allCases is p.cases followed by the run's other kept cases, sorted by id.
func allCases(p *runPlan) []caseRef {
	r := p.run
	listed := make(map[string]bool, len(p.cases))
	for _, c := range p.cases {
		listed[c.id] = true
	}
	rest := make([]string, 0, max(0, len(r.Cases)-len(listed)))
	for id := range r.Cases {
		if !listed[id] {
			rest = append(rest, id)
		}
	}
	slices.Sort(rest)
	out := slices.Grow(slices.Clone(p.cases), len(rest))
	for _, id := range rest {
		out = append(out, caseRef{id: id, outcome: r.Cases[id]})
	}
	return out
}

// caseSpan is the span of c, starting at start.
func caseSpan(parent *Span, p *runPlan, c caseRef, start time.Time) Span {
	r := p.run
	outcome := c.outcome
	if outcome == "" {
		// a flaky test that passed in the end
		outcome = testrun.OutcomePassed
	}
	id := valid(c.id)
	s := Span{
		Name:         head(id, MaxCaseSpanNameRunes),
		TraceID:      parent.TraceID,
		SpanID:       deriveSpanID(semconv.EventTestCase, parent.SpanID.String(), "run", r.ID, "case", c.id),
		ParentSpanID: parent.SpanID,
		TraceFlags:   parent.TraceFlags,
		TraceState:   parent.TraceState,
		Start:        start,
		End:          start,
	}
	attrs := make([]attribute.KeyValue, 0, 16)
	attrs = append(attrs, semconv.TestCaseNameKey.String(id))
	switch {
	case outcome.Failing():
		attrs = append(attrs, semconv.TestCaseResultStatusFail)
		s.Status, s.StatusDescription = codes.Error, string(outcome)
	case outcome == testrun.OutcomePassed:
		attrs = append(attrs, semconv.TestCaseResultStatusPass)
	}
	if r.Command != "" {
		attrs = append(attrs, semconv.TestSuiteNameKey.String(valid(r.Command)))
	}
	attrs = append(attrs,
		semconv.TestOutcomeKey.String(string(outcome)),
		semconv.TestFlakyKey.Bool(c.flaky),
		semconv.TestRunIDKey.String(valid(r.ID)),
	)
	if outcome.Failing() && p.compare {
		attrs = append(attrs, semconv.TestNewFailureKey.Bool(p.newFailures[c.id]))
	}
	if c.message != "" {
		attrs = append(attrs, semconv.TestMessageKey.String(c.message))
	}
	attrs = c.appendLocation(attrs)
	if d, ok := r.Durations[c.id]; ok {
		s.End = start.Add(min(d, testrun.MaxCaseDuration))
	} else {
		attrs = append(attrs, semconv.TestDurationUnknownKey.Bool(true))
	}
	s.Attrs = p.appendFlakiness(attrs, c.id)
	return s
}

// caseSpanEnd is the latest end of spans, or end when that is later.
func caseSpanEnd(end time.Time, spans []Span) time.Time {
	for i := range spans {
		if spans[i].End.After(end) {
			end = spans[i].End
		}
	}
	return end
}
