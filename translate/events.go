package translate

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// Event is one span event, independent of the SDK and of pdata. Traces
// writes it into pdata.
type Event struct {
	Name  string
	Time  time.Time
	Attrs []attribute.KeyValue
}

// RunEvents returns the events of one run: its test.run event followed by
// its test.case events, capped by WithMaxCaseEvents and WithMaxEventBytes.
// The test.run event is at the run's end and each test.case event one
// EventStep after the previous event.
func RunEvents(run *testrun.Run, opts ...Option) ([]Event, error) {
	cfg := newConfig(opts)
	plans, err := planRuns([]*testrun.Run{run}, cfg, cfg.now())
	if err != nil {
		return nil, err
	}
	return spanEvents(plans, cfg), nil
}

// CaseIDs lists the ids of the tests that get a test.case event when runs
// are exported, before any cap, each once, in the order of the events:
// for each run in turn, its failures as the run lists them, then its other
// failing ids sorted, then its flaky tests that passed, sorted. Nil runs
// are passed over. These are the tests whose flakiness scores
// WithFlakiness can use.
func CaseIDs(runs ...*testrun.Run) []string {
	var ids []string
	seen := map[string]bool{}
	for _, r := range runs {
		if r == nil {
			continue
		}
		for _, c := range caseList(r, false) {
			if !seen[c.id] {
				seen[c.id] = true
				ids = append(ids, c.id)
			}
		}
	}
	return ids
}

// runPlan is one validated run with its resolved times and the ordered list
// of tests that deserve a test.case event.
type runPlan struct {
	run        *testrun.Run
	start, end time.Time
	cases      []caseRef
	// compare reports whether the comparison with the base is available;
	// newFailures then holds the ids testrun.NewFailures returned.
	compare     bool
	newFailures map[string]bool
	// flakiness are the scores of WithFlakiness, by test id.
	flakiness map[string]testrun.Flakiness
	// unlisted counts the failing tests the run counts but does not name
	// (it keeps the first DefaultMaxCasesKept cases): they get no event,
	// and the test.run event counts them as omitted.
	unlisted int
}

type caseRef struct {
	id      string
	outcome testrun.Outcome // failing outcome, or "" for a flaky test that passed
	flaky   bool
	message string
	// file and line are where the report says the test is written; ""
	// and 0 when it does not say.
	file string
	line int
}

// planRuns validates runs and orders their test cases. now stands in for
// the times of a run whose end and start are both unknown.
func planRuns(runs []*testrun.Run, cfg config, now time.Time) ([]runPlan, error) {
	if len(runs) == 0 {
		return nil, fmt.Errorf("%w: no runs to export", ErrInvalid)
	}
	plans := make([]runPlan, len(runs))
	seen := make(map[string]bool, len(runs))
	for i, r := range runs {
		if err := validate(r); err != nil {
			return nil, err
		}
		// Ids derive from the run's id: two runs of one id would give two
		// different events and case spans the same ids.
		if seen[r.ID] {
			return nil, fmt.Errorf("%w: run %q given twice: its spans would share their ids", ErrInvalid, r.ID)
		}
		seen[r.ID] = true
		cases := caseList(r, true)
		for j := range cases {
			if m := cases[j].message; m != "" {
				// Redacted and clipped again (a run file may come from
				// anywhere; both are idempotent), then its first
				// MaxEventMessageRunes characters; Clip leaves valid UTF-8.
				cases[j].message = head(testrun.Clip(cfg.redactor.Redact(m), testrun.DefaultMaxMessageRunes), MaxEventMessageRunes)
			}
		}
		start, end := runTimes(r, now)
		p := runPlan{run: r, start: start, end: end, cases: cases, flakiness: cfg.flakiness}
		if r.Counts != nil {
			named := 0
			for _, c := range cases {
				if c.outcome.Failing() {
					named++
				}
			}
			p.unlisted = max(0, r.Counts.Failed+r.Counts.Errors-named)
		}
		if cfg.base != nil {
			// The comparison rule lives once, in testrun.NewFailures.
			if ids, err := testrun.NewFailures(cfg.base, r); err == nil {
				p.compare = true
				p.newFailures = make(map[string]bool, len(ids))
				for _, id := range ids {
					p.newFailures[id] = true
				}
			}
		}
		plans[i] = p
	}
	return plans, nil
}

// validate refuses a run without id, and whatever testrun.Run.Validate
// refuses (the run's JSON form is checked the same way).
func validate(r *testrun.Run) error {
	if r == nil {
		return fmt.Errorf("%w: nil run", ErrInvalid)
	}
	if r.ID == "" {
		return fmt.Errorf("%w: run without id", ErrInvalid)
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("%w: run %q: %w", ErrInvalid, r.ID, err)
	}
	return nil
}

// otherFailing bounds how many failing ids r's cases hold beyond those
// listed (its failures, each failing), -1 when unknown: unless r is
// validated. A valid run's cases hold no more failing ids than failed +
// errors, so the bound is that less the listed ids that are failing cases.
func otherFailing(r *testrun.Run, validated bool, listed map[string]bool) int {
	switch {
	case !validated:
		return -1
	case r.Counts == nil:
		return 0 // and so no cases
	}
	n := r.Counts.Failed + r.Counts.Errors
	for id := range listed {
		if r.Cases[id].Failing() {
			n--
		}
	}
	return min(n, len(r.Cases))
}

// runTimes resolves a run's span interval. The end is EndedAt, else
// StartedAt, else now; the start is StartedAt, else the end (an unknown
// start adds no duration), and never after the end.
func runTimes(r *testrun.Run, now time.Time) (start, end time.Time) {
	switch {
	case !r.EndedAt.IsZero():
		end = r.EndedAt
	case !r.StartedAt.IsZero():
		end = r.StartedAt
	default:
		end = now
	}
	start = end
	if !r.StartedAt.IsZero() && r.StartedAt.Before(end) {
		start = r.StartedAt
	}
	return start, end
}

// caseList orders the tests of a run that get a test.case event: the
// failures in Failures order first, then the other failing ids of Cases
// sorted, then the flaky ids that passed, sorted. validated says r passed
// testrun.Run.Validate: its cases then hold no more failing ids than
// failed + errors, so that when its failures already name that many
// failing cases, Cases is not walked for others (a run whose failures
// were not capped, a run without failures).
func caseList(r *testrun.Run, validated bool) []caseRef {
	var flaky map[string]bool
	if len(r.Flaky) > 0 {
		flaky = make(map[string]bool, len(r.Flaky))
		for _, id := range r.Flaky {
			flaky[id] = true
		}
	}
	listed := make(map[string]bool, len(r.Failures))
	cases := make([]caseRef, 0, len(r.Failures))
	for _, f := range r.Failures {
		if listed[f.ID] {
			continue
		}
		listed[f.ID] = true
		cases = append(cases, caseRef{id: f.ID, outcome: f.Outcome, flaky: f.Flaky || flaky[f.ID], message: f.Message, file: f.File, line: f.Line})
	}
	var failing []string
	if others := otherFailing(r, validated, listed); others != 0 {
		failing = make([]string, 0, max(0, others))
		for id, o := range r.Cases {
			if o.Failing() && !listed[id] {
				failing = append(failing, id)
			}
		}
	}
	slices.Sort(failing)
	cases = slices.Grow(cases, len(failing))
	for _, id := range failing {
		cases = append(cases, caseRef{id: id, outcome: r.Cases[id], flaky: flaky[id]})
	}
	var passed []string
	for id := range flaky {
		if !listed[id] && !r.Cases[id].Failing() {
			passed = append(passed, id)
		}
	}
	slices.Sort(passed)
	for _, id := range passed {
		cases = append(cases, caseRef{id: id, flaky: true})
	}
	return cases
}

// spanEvents applies the per-run cap and the span's byte budget and returns
// the events of plans in order: each run's test.run event followed by its
// test.case events.
func spanEvents(plans []runPlan, cfg config) []Event {
	// Reserve room for every test.run event, sized as if it carried the
	// largest omitted count, then spend the rest on test.case events.
	budget := cfg.maxEventBytes
	for i := range plans {
		budget -= EventSize(runEvent(&plans[i], math.MaxInt64))
	}
	// The runs share what is left in turns, one event each per round, so
	// that the first run cannot take it all: every run keeps its first
	// failures. A run stops at its cap or at the first event that no longer
	// fits (its events stay the first ones, in order).
	caseEvents := make([][]Event, len(plans))
	limits := make([]int, len(plans))
	for i := range plans {
		limits[i] = min(len(plans[i].cases), cfg.maxCaseEvents)
		caseEvents[i] = make([]Event, 0, limits[i])
	}
	for active := true; active; {
		active = false
		for i := range plans {
			p := &plans[i]
			n := len(caseEvents[i])
			if n >= limits[i] {
				continue
			}
			ev := caseEvent(p, p.cases[n])
			size := EventSize(ev)
			if size > budget {
				limits[i] = n
				continue
			}
			budget -= size
			caseEvents[i] = append(caseEvents[i], ev)
			active = true
		}
	}
	return joinEvents(plans, caseEvents)
}

// joinEvents returns each run's test.run event, saying how many of its
// cases caseEvents leaves out, followed by its caseEvents, stamped.
func joinEvents(plans []runPlan, caseEvents [][]Event) []Event {
	total := 0
	kept := make([]int, len(plans))
	for i := range plans {
		kept[i] = len(caseEvents[i])
		total += 1 + kept[i]
	}
	out := make([]Event, 0, total)
	for i := range plans {
		p := &plans[i]
		out = append(out, runEvent(p, int64(len(p.cases)-kept[i]+p.unlisted)))
		out = append(out, caseEvents[i]...)
	}
	stamp(plans, kept, out)
	return out
}

// EventStep is the time between two consecutive events of one run: its
// test.run event is at the run's end, its test.case events follow one
// EventStep apart, in order.
const EventStep = time.Microsecond

// stamp gives the events of plans (as joinEvents orders them, kept[i]
// test.case events for plans[i]) distinct
// times, so that a viewer that orders events by time shows each run's
// test.run event first and its failures in order, whatever it does with
// equal times. A run's events start at its end, one EventStep apart; runs
// whose events would overlap (runs that end together, or within a few
// microseconds) are laid one after the other, in the order of their ends,
// then of their position. The times depend on the runs only, never on the
// clock, so that replaying an export gives the same events.
func stamp(plans []runPlan, kept []int, events []Event) {
	type block struct{ first, n int }
	blocks := make([]block, len(plans))
	at := 0
	for i := range plans {
		blocks[i] = block{first: at, n: 1 + kept[i]}
		at += blocks[i].n
	}
	order := make([]int, len(plans))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return plans[a].end.Compare(plans[b].end) })
	var next time.Time
	for k, i := range order {
		t := plans[i].end
		if k > 0 && t.Before(next) {
			t = next
		}
		b := blocks[i]
		for j := range b.n {
			events[b.first+j].Time = t.Add(time.Duration(j) * EventStep)
		}
		next = t.Add(time.Duration(b.n) * EventStep)
	}
}

// lastEventTime is the latest time of events, or the zero time.
func lastEventTime(events []Event) time.Time {
	var last time.Time
	for _, e := range events {
		if e.Time.After(last) {
			last = e.Time
		}
	}
	return last
}

var runStatus = map[testrun.Status]attribute.KeyValue{
	testrun.StatusSuccess:  semconv.TestSuiteRunStatusSuccess,
	testrun.StatusFailure:  semconv.TestSuiteRunStatusFailure,
	testrun.StatusTimedOut: semconv.TestSuiteRunStatusTimedOut,
	testrun.StatusAborted:  semconv.TestSuiteRunStatusAborted,
}

// runEvent builds the test.run event of p. Unknown values are omitted,
// never written as zero or "".
func runEvent(p *runPlan, omitted int64) Event {
	r := p.run
	attrs := make([]attribute.KeyValue, 0, 20)
	if r.Command != "" {
		attrs = append(attrs, semconv.TestSuiteNameKey.String(valid(r.Command)))
	}
	if kv, ok := runStatus[r.Status]; ok {
		attrs = append(attrs, kv)
	}
	if c := r.Counts; c != nil {
		attrs = append(attrs,
			semconv.TestTotalKey.Int64(int64(c.Total)),
			semconv.TestPassedKey.Int64(int64(c.Passed)),
			semconv.TestFailedKey.Int64(int64(c.Failed)),
			semconv.TestErrorsKey.Int64(int64(c.Errors)),
			semconv.TestSkippedKey.Int64(int64(c.Skipped)),
			semconv.TestFlakyCountKey.Int64(int64(c.Flaky)),
		)
	}
	attrs = append(attrs, semconv.TestCompleteKey.Bool(r.Complete))
	if r.NotRun != nil {
		attrs = append(attrs, semconv.TestNotRunKey.Int64(int64(r.NotRun.Count)))
	}
	if c := r.Coverage; c != nil && c.LineRate != nil {
		attrs = append(attrs, semconv.TestCoverageLineRate.Float64(*c.LineRate))
	}
	attrs = append(attrs, semconv.TestRunIDKey.String(valid(r.ID)))
	if r.Kind != "" {
		attrs = append(attrs, semconv.TestRunKindKey.String(string(r.Kind)))
	}
	if r.Kind == testrun.KindGrader && r.Grade != "" {
		attrs = append(attrs, semconv.TestRunGradeKey.String(valid(r.Grade)))
	}
	if omitted > 0 {
		attrs = append(attrs, semconv.TestCaseEventsOmitted.Int64(omitted))
	}
	if r.ExitCode != nil {
		attrs = append(attrs, semconv.TestExitCodeKey.Int64(int64(*r.ExitCode)))
	}
	attrs = append(attrs,
		semconv.TestRunTrustedKey.Bool(r.EventTrusted()),
		semconv.TestRunCountedKey.Bool(r.Counted()),
	)
	if r.Commit != "" {
		attrs = append(attrs, semconv.VCSRefHeadRevisionKey.String(valid(r.Commit)))
	}
	if r.AgentRunID != "" {
		attrs = append(attrs, semconv.RunIDKey.String(valid(r.AgentRunID)))
	}
	return Event{Name: semconv.EventTestRun, Time: p.end, Attrs: attrs}
}

// caseEvent builds the test.case event of c.
func caseEvent(p *runPlan, c caseRef) Event {
	attrs := make([]attribute.KeyValue, 0, 12)
	attrs = append(attrs, semconv.TestCaseNameKey.String(valid(c.id)))
	if c.outcome.Failing() {
		attrs = append(attrs,
			semconv.TestCaseResultStatusFail,
			semconv.TestOutcomeKey.String(string(c.outcome)),
		)
	} else {
		attrs = append(attrs, semconv.TestCaseResultStatusPass)
	}
	attrs = append(attrs, semconv.TestFlakyKey.Bool(c.flaky))
	if p.compare {
		attrs = append(attrs, semconv.TestNewFailureKey.Bool(p.newFailures[c.id]))
	}
	if c.message != "" {
		attrs = append(attrs, semconv.TestMessageKey.String(c.message))
	}
	attrs = c.appendLocation(attrs)
	attrs = p.appendFlakiness(attrs, c.id)
	return Event{Name: semconv.EventTestCase, Time: p.end, Attrs: attrs}
}

// appendFlakiness appends the hangar.test.flakiness.* attributes of the
// score WithFlakiness gave for id, if any: the failure rate only when
// some evidence backs it, the flip rate only over two runs or more.
func (p *runPlan) appendFlakiness(attrs []attribute.KeyValue, id string) []attribute.KeyValue {
	f, ok := p.flakiness[id]
	if !ok {
		return attrs
	}
	if f.Evidence > 0 {
		attrs = append(attrs, semconv.TestFlakinessFailureRateKey.Float64(f.FailureRate))
	}
	attrs = append(attrs, semconv.TestFlakinessEvidenceKey.Int(f.Evidence))
	if f.FlipWindowRuns > 1 {
		attrs = append(attrs, semconv.TestFlakinessFlipRateKey.Float64(f.FlipRate))
	}
	return append(attrs, semconv.TestFlakinessFlipWindowRunsKey.Int(f.FlipWindowRuns))
}

// appendLocation appends code.file.path and code.line.number where the
// report says c is written, each only when known.
func (c *caseRef) appendLocation(attrs []attribute.KeyValue) []attribute.KeyValue {
	if c.file != "" {
		attrs = append(attrs, semconv.CodeFilePathKey.String(valid(c.file)))
	}
	if c.line > 0 {
		attrs = append(attrs, semconv.CodeLineNumberKey.Int(c.line))
	}
	return attrs
}

// valid returns s with invalid UTF-8 replaced: protobuf strings must be
// valid UTF-8, and one bad byte would fail the whole export.
func valid(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// head returns the first n characters of s.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
