package translate_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// attrMap returns an event's attributes by key, failing on a duplicate key.
func attrMap(t testing.TB, ev translate.Event) map[attribute.Key]attribute.Value {
	t.Helper()
	m := make(map[attribute.Key]attribute.Value, len(ev.Attrs))
	for _, kv := range ev.Attrs {
		_, dup := m[kv.Key]
		require.False(t, dup, "duplicate attribute %s", kv.Key)
		m[kv.Key] = kv.Value
	}
	return m
}

func fixture(t testing.TB, name string) *testrun.Run {
	return readRun(t, filepath.Join("testdata", name, "run.json"))
}

func TestRunEventTypes(t *testing.T) {
	// Every attribute of the test.run and test.case events (README) with its type, on the richest runs.
	run := fixture(t, "failures")
	cov := fixture(t, "coverage")
	grader := fixture(t, "grader")
	evs, err := translate.RunEvents(run)
	require.NoError(t, err)
	require.Equal(t, semconv.EventTestRun, evs[0].Name)
	m := attrMap(t, evs[0])
	want := map[attribute.Key]attribute.Type{
		semconv.TestSuiteNameKey:      attribute.STRING,
		semconv.TestSuiteRunStatusKey: attribute.STRING,
		semconv.TestTotalKey:          attribute.INT64,
		semconv.TestPassedKey:         attribute.INT64,
		semconv.TestFailedKey:         attribute.INT64,
		semconv.TestErrorsKey:         attribute.INT64,
		semconv.TestSkippedKey:        attribute.INT64,
		semconv.TestFlakyCountKey:     attribute.INT64,
		semconv.TestCompleteKey:       attribute.BOOL,
		semconv.TestRunIDKey:          attribute.STRING,
		semconv.TestRunKindKey:        attribute.STRING,
		semconv.TestExitCodeKey:       attribute.INT64,
		semconv.TestRunTrustedKey:     attribute.BOOL,
		semconv.TestRunCountedKey:     attribute.BOOL,
		semconv.VCSRefHeadRevisionKey: attribute.STRING,
		semconv.RunIDKey:              attribute.STRING,
	}
	for k, typ := range want {
		require.Contains(t, m, k)
		assert.Equal(t, typ, m[k].Type(), "type of %s", k)
	}
	assert.Len(t, m, len(want), "no other attribute")
	assert.Equal(t, "pytest -q tests", m[semconv.TestSuiteNameKey].AsString())
	assert.Equal(t, "failure", m[semconv.TestSuiteRunStatusKey].AsString())
	assert.Equal(t, int64(12), m[semconv.TestTotalKey].AsInt64())
	assert.Equal(t, int64(7), m[semconv.TestPassedKey].AsInt64())
	assert.Equal(t, int64(3), m[semconv.TestFailedKey].AsInt64())
	assert.Equal(t, int64(1), m[semconv.TestErrorsKey].AsInt64())
	assert.Equal(t, int64(1), m[semconv.TestSkippedKey].AsInt64())
	assert.Equal(t, int64(2), m[semconv.TestFlakyCountKey].AsInt64())
	assert.True(t, m[semconv.TestCompleteKey].AsBool())
	assert.Equal(t, "run-7f3a", m[semconv.TestRunIDKey].AsString())
	assert.Equal(t, "after_turn", m[semconv.TestRunKindKey].AsString())
	assert.Equal(t, int64(1), m[semconv.TestExitCodeKey].AsInt64())
	assert.Equal(t, run.Trusted(), m[semconv.TestRunTrustedKey].AsBool())
	assert.Equal(t, run.Counted(), m[semconv.TestRunCountedKey].AsBool())
	assert.Equal(t, run.Commit, m[semconv.VCSRefHeadRevisionKey].AsString())
	assert.Equal(t, "agent-run-311", m[semconv.RunIDKey].AsString())
	assert.Equal(t, run.EndedAt, evs[0].Time)

	evs, err = translate.RunEvents(cov)
	require.NoError(t, err)
	m = attrMap(t, evs[0])
	require.Contains(t, m, semconv.TestCoverageLineRate)
	assert.Equal(t, attribute.FLOAT64, m[semconv.TestCoverageLineRate].Type())
	assert.InDelta(t, 0.8125, m[semconv.TestCoverageLineRate].AsFloat64(), 0)

	evs, err = translate.RunEvents(grader)
	require.NoError(t, err)
	m = attrMap(t, evs[0])
	assert.Equal(t, "isolated", m[semconv.TestRunGradeKey].AsString())
	assert.True(t, m[semconv.TestRunTrustedKey].AsBool())
}

func TestRunEventOmits(t *testing.T) {
	exit0 := 0
	zero := 0.0
	tests := []struct {
		name    string
		run     testrun.Run
		absent  []attribute.Key
		present map[attribute.Key]any
	}{
		{
			name: "nothing known but the id",
			run:  testrun.Run{ID: "r1"},
			absent: []attribute.Key{
				semconv.TestSuiteNameKey, semconv.TestSuiteRunStatusKey, semconv.TestTotalKey,
				semconv.TestPassedKey, semconv.TestFailedKey, semconv.TestErrorsKey, semconv.TestSkippedKey,
				semconv.TestFlakyCountKey, semconv.TestCoverageLineRate, semconv.TestRunKindKey,
				semconv.TestRunGradeKey, semconv.TestCaseEventsOmitted, semconv.TestExitCodeKey,
				semconv.VCSRefHeadRevisionKey, semconv.RunIDKey, semconv.TestNotRunKey,
			},
			present: map[attribute.Key]any{
				semconv.TestRunIDKey: "r1", semconv.TestCompleteKey: false,
				semconv.TestRunTrustedKey: false, semconv.TestRunCountedKey: false,
			},
		},
		{
			name: "a zero exit code and a zero line rate are known values",
			run: testrun.Run{ID: "r2", Kind: testrun.KindBase, ExitCode: &exit0,
				Coverage: &testrun.Coverage{LineRate: &zero}},
			present: map[attribute.Key]any{
				semconv.TestExitCodeKey: int64(0), semconv.TestCoverageLineRate: 0.0,
				// No counts: a test.run without valid counts is neither
				// trusted nor counted, as the processor judges it.
				semconv.TestRunTrustedKey: false, semconv.TestRunCountedKey: false,
			},
		},

		{
			name:   "coverage without a line rate",
			run:    testrun.Run{ID: "r3", Coverage: &testrun.Coverage{}},
			absent: []attribute.Key{semconv.TestCoverageLineRate},
		},
		{
			name: "a gate run is neither trusted nor counted",
			run: testrun.Run{ID: "r4", Kind: testrun.KindGate, Complete: true,
				Counts: &testrun.Counts{Total: 1, Passed: 1}},
			present: map[attribute.Key]any{
				semconv.TestRunTrustedKey: false, semconv.TestRunCountedKey: false, semconv.TestTotalKey: int64(1),
			},
		},
		{
			name: "a grader below isolated is not trusted and has its grade",
			run:  testrun.Run{ID: "r5", Kind: testrun.KindGrader, Grade: "container", Complete: true, Counts: &testrun.Counts{Total: 1, Passed: 1}},
			present: map[attribute.Key]any{
				semconv.TestRunGradeKey: "container", semconv.TestRunTrustedKey: false, semconv.TestRunCountedKey: false,
			},
		},
		{
			name: "checked against the expected tests, all ran: a known 0",
			run: testrun.Run{ID: "r7", Kind: testrun.KindAttempt, Complete: true,
				Counts: &testrun.Counts{Total: 2, Passed: 2}, NotRun: &testrun.NotRun{}},
			present: map[attribute.Key]any{semconv.TestNotRunKey: int64(0), semconv.TestRunCountedKey: true},
		},
		{
			name: "expected tests that never ran: their count, and the run not counted",
			run: testrun.Run{ID: "r8", Kind: testrun.KindAttempt, IncompleteReasons: []string{testrun.NotRunReason(3)},
				Counts: &testrun.Counts{Total: 2, Passed: 2}, NotRun: &testrun.NotRun{Count: 3, IDs: []string{"a::x", "a::y", "a::z"}}},
			present: map[attribute.Key]any{
				semconv.TestNotRunKey: int64(3), semconv.TestCompleteKey: false, semconv.TestRunCountedKey: false,
			},
		},
		{
			name: "counted: trusted, tests ran, complete",
			run: testrun.Run{ID: "r6", Kind: testrun.KindAttempt, Complete: true,
				Counts: &testrun.Counts{Total: 2, Passed: 2}},
			present: map[attribute.Key]any{semconv.TestRunTrustedKey: true, semconv.TestRunCountedKey: true},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			evs, err := translate.RunEvents(&tt.run, translate.WithClock(fixedClock))
			require.NoError(t, err)
			require.Len(t, evs, 1)
			m := attrMap(t, evs[0])
			for _, k := range tt.absent {
				assert.NotContains(t, m, k)
			}
			for k, v := range tt.present {
				require.Contains(t, m, k)
				assert.Equal(t, v, m[k].AsInterface(), "value of %s", k)
			}
		})
	}
}

func TestRunTimes(t *testing.T) {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(90 * time.Second)
	tests := []struct {
		name               string
		started, ended     time.Time
		wantStart, wantEnd time.Time
	}{
		{"both known", t0, t1, t0, t1},
		{"end unknown: the start stands for both", t0, time.Time{}, t0, t0},
		{"start unknown: no duration", time.Time{}, t1, t1, t1},
		{"both unknown: the clock", time.Time{}, time.Time{}, fixedClock(), fixedClock()},
		{"start after end: no duration", t1, t0, t0, t0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &testrun.Run{ID: "r", StartedAt: tt.started, EndedAt: tt.ended}
			spans, err := translate.JobSpans(translate.Job{}, []*testrun.Run{run}, translate.WithClock(fixedClock))
			require.NoError(t, err)
			assert.Equal(t, tt.wantStart, spans[0].Start)
			assert.Equal(t, tt.wantEnd, spans[0].End)
			assert.Equal(t, tt.wantEnd, spans[0].Events[0].Time)
		})
	}
}

// caseNames returns the test.case names of evs, in order.
func caseNames(t testing.TB, evs []translate.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Name == semconv.EventTestCase {
			out = append(out, attrMap(t, ev)[semconv.TestCaseNameKey].AsString())
		}
	}
	return out
}

func TestCaseEvents(t *testing.T) {
	run := &testrun.Run{
		ID: "r", Kind: testrun.KindAfterTurn, Complete: true,
		Counts: &testrun.Counts{Total: 8, Passed: 4, Failed: 3, Errors: 1, Flaky: 3},
		Failures: []testrun.Failure{
			{ID: "z::first", Outcome: testrun.OutcomeFailed, Message: "boom"},
			{ID: "a::second", Outcome: testrun.OutcomeError, Message: "", Flaky: true},
		},
		Cases: map[string]testrun.Outcome{
			"z::first": testrun.OutcomeFailed, "a::second": testrun.OutcomeError,
			"m::third": testrun.OutcomeFailed, "b::fourth": testrun.OutcomeFailed,
			"p::pass": testrun.OutcomePassed, "q::flaky": testrun.OutcomePassed,
			"c::flaky": testrun.OutcomePassed, "s::skip": testrun.OutcomeSkipped,
		},
		Flaky: []string{"q::flaky", "b::fourth", "c::flaky"},
	}
	evs, err := translate.RunEvents(run, translate.WithClock(fixedClock))
	require.NoError(t, err)
	// Failures first in their order, then other failing ids sorted, then
	// flaky ids that passed sorted; passing and skipped tests are not listed.
	assert.Equal(t, []string{"z::first", "a::second", "b::fourth", "m::third", "c::flaky", "q::flaky"}, caseNames(t, evs))

	want := []map[attribute.Key]any{
		{semconv.TestCaseNameKey: "z::first", semconv.TestCaseResultStatusKey: "fail", semconv.TestOutcomeKey: "failed",
			semconv.TestFlakyKey: false, semconv.TestMessageKey: "boom"},
		{semconv.TestCaseNameKey: "a::second", semconv.TestCaseResultStatusKey: "fail", semconv.TestOutcomeKey: "error",
			semconv.TestFlakyKey: true},
		{semconv.TestCaseNameKey: "b::fourth", semconv.TestCaseResultStatusKey: "fail", semconv.TestOutcomeKey: "failed",
			semconv.TestFlakyKey: true},
		{semconv.TestCaseNameKey: "m::third", semconv.TestCaseResultStatusKey: "fail", semconv.TestOutcomeKey: "failed",
			semconv.TestFlakyKey: false},
		{semconv.TestCaseNameKey: "c::flaky", semconv.TestCaseResultStatusKey: "pass", semconv.TestFlakyKey: true},
		{semconv.TestCaseNameKey: "q::flaky", semconv.TestCaseResultStatusKey: "pass", semconv.TestFlakyKey: true},
	}
	for i, w := range want {
		ev := evs[i+1]
		assert.Equal(t, semconv.EventTestCase, ev.Name)
		// The test.run event is at the run's end (here the clock), each
		// test.case event one step later than the one before.
		assert.Equal(t, fixedClock().Add(time.Duration(i+1)*translate.EventStep), ev.Time, "event %d", i)
		got := map[attribute.Key]any{}
		for k, v := range attrMap(t, ev) {
			got[k] = v.AsInterface()
		}
		assert.Equal(t, w, got, "event %d", i)
	}
}

// TestCaseEventsOtherFailing: the failing cases that failures do not name
// get their events whether failures name every failing case (none are
// left), name ids that cases do not hold (which leave room for others), or
// are capped, and the same ids are what CaseIDs lists.
func TestCaseEventsOtherFailing(t *testing.T) {
	for _, tt := range []struct {
		name     string
		counts   testrun.Counts
		failures []string
		cases    map[string]testrun.Outcome
		want     []string
	}{
		{"all named", testrun.Counts{Total: 3, Passed: 1, Failed: 2}, []string{"b", "a"},
			map[string]testrun.Outcome{"a": testrun.OutcomeFailed, "b": testrun.OutcomeFailed, "c": testrun.OutcomePassed}, []string{"b", "a"}},
		{"a named id not in cases", testrun.Counts{Total: 2, Passed: 1, Failed: 1}, []string{"x"},
			map[string]testrun.Outcome{"b": testrun.OutcomeFailed, "c": testrun.OutcomePassed}, []string{"x", "b"}},
		{"capped", testrun.Counts{Total: 4, Passed: 1, Failed: 2, Errors: 1}, []string{"d"},
			map[string]testrun.Outcome{"d": testrun.OutcomeFailed, "c": testrun.OutcomeError, "a": testrun.OutcomeFailed, "b": testrun.OutcomePassed}, []string{"d", "a", "c"}},
		{"none failing", testrun.Counts{Total: 1, Passed: 1}, nil,
			map[string]testrun.Outcome{"a": testrun.OutcomePassed}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.counts
			run := &testrun.Run{ID: "r", Kind: testrun.KindAfterTurn, Complete: true, Counts: &c, Cases: tt.cases}
			for _, id := range tt.failures {
				run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed})
			}
			require.NoError(t, run.Validate())
			evs, err := translate.RunEvents(run, translate.WithClock(fixedClock))
			require.NoError(t, err)
			if tt.want == nil {
				assert.Empty(t, caseNames(t, evs))
			} else {
				assert.Equal(t, tt.want, caseNames(t, evs))
			}
			if tt.want == nil {
				assert.Empty(t, translate.CaseIDs(run))
			} else {
				assert.Equal(t, tt.want, translate.CaseIDs(run))
			}
		})
	}
}

func TestMessage(t *testing.T) {
	long := strings.Repeat("é", 600)
	tests := []struct {
		name, message, want string
	}{
		{"short", "assert 1 == 2", "assert 1 == 2"},
		{"first 512 characters, not bytes", long, strings.Repeat("é", translate.MaxEventMessageRunes)},
		{"exactly 512", strings.Repeat("x", 512), strings.Repeat("x", 512)},
		{"invalid UTF-8 is replaced", "bad \xff byte", "bad \uFFFD byte"},
		{"redacted again on export", "login password=hunter2 with Bearer abcdefghijkl key AKIAIOSFODNN7EXAMPLE",
			"login password=[REDACTED] with Bearer [REDACTED] key [REDACTED]"},
		{"already redacted stays the same", "password=[REDACTED] ok", "password=[REDACTED] ok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := &testrun.Run{ID: "r", Counts: &testrun.Counts{Total: 1, Failed: 1},
				Failures: []testrun.Failure{{ID: "a", Outcome: testrun.OutcomeFailed, Message: tt.message}}}
			evs, err := translate.RunEvents(run, translate.WithClock(fixedClock), translate.WithRedactor(testrun.NewRedactor(nil)))
			require.NoError(t, err)
			got := attrMap(t, evs[1])[semconv.TestMessageKey].AsString()
			assert.Equal(t, tt.want, got)
			assert.True(t, utf8.ValidString(got))
			assert.LessOrEqual(t, utf8.RuneCountInString(got), translate.MaxEventMessageRunes)
		})
	}
}

func TestInvalidUTF8Everywhere(t *testing.T) {
	run := &testrun.Run{ID: "r\xfe", Command: "go test \xff", Commit: "c\xc3", AgentRunID: "a\xff", Grade: "g\xff",
		Counts: &testrun.Counts{Total: 1, Failed: 1}, Cases: map[string]testrun.Outcome{"t\xff": testrun.OutcomeFailed}}
	evs, err := translate.RunEvents(run, translate.WithClock(fixedClock))
	require.NoError(t, err)
	for _, ev := range evs {
		for _, kv := range ev.Attrs {
			if kv.Value.Type() == attribute.STRING {
				assert.True(t, utf8.ValidString(kv.Value.AsString()), "%s", kv.Key)
			}
		}
	}
}

func TestNewFailure(t *testing.T) {
	after := &testrun.Run{
		ID: "after", Complete: true, Counts: &testrun.Counts{Total: 3, Failed: 2, Passed: 1, Flaky: 1},
		Cases: map[string]testrun.Outcome{"old": testrun.OutcomeFailed, "new": testrun.OutcomeFailed, "f": testrun.OutcomePassed},
		Flaky: []string{"f"},
	}
	base := func(mut func(*testrun.Run)) *testrun.Run {
		b := &testrun.Run{
			ID: "base", Kind: testrun.KindBase, Complete: true, Counts: &testrun.Counts{Total: 3, Failed: 1, Passed: 2},
			Cases: map[string]testrun.Outcome{"old": testrun.OutcomeFailed, "new": testrun.OutcomePassed, "f": testrun.OutcomePassed},
		}
		if mut != nil {
			mut(b)
		}
		return b
	}
	tests := []struct {
		name  string
		base  *testrun.Run
		after func(*testrun.Run) *testrun.Run
		want  map[string]any // test id → new_failure, nil when omitted
	}{
		{name: "no base: omitted", want: map[string]any{"old": nil, "new": nil, "f": nil}},
		{name: "complete base", base: base(nil), want: map[string]any{"old": false, "new": true, "f": false}},
		{name: "failing ids of the base only in its failures", base: base(func(b *testrun.Run) {
			b.Cases = nil
			b.Failures = []testrun.Failure{{ID: "old", Outcome: testrun.OutcomeFailed}}
		}), want: map[string]any{"old": false, "new": true, "f": false}},
		{name: "incomplete base: unavailable", base: base(func(b *testrun.Run) { b.Complete = false }),
			want: map[string]any{"old": nil, "new": nil, "f": nil}},
		{name: "base without counts: unavailable", base: base(func(b *testrun.Run) { b.Counts = nil }),
			want: map[string]any{"old": nil, "new": nil, "f": nil}},
		{name: "base failing ids not all known: unavailable", base: base(func(b *testrun.Run) { b.Counts.Failed = 2; b.Counts.Passed = 1 }),
			want: map[string]any{"old": nil, "new": nil, "f": nil}},
		{name: "incomplete run: unavailable", base: base(nil), after: func(r *testrun.Run) *testrun.Run {
			c := *r
			c.Complete = false
			return &c
		}, want: map[string]any{"old": nil, "new": nil, "f": nil}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run := after
			if tt.after != nil {
				run = tt.after(after)
			}
			evs, err := translate.RunEvents(run, translate.WithBase(tt.base), translate.WithClock(fixedClock))
			require.NoError(t, err)
			got := map[string]any{}
			for _, ev := range evs[1:] {
				m := attrMap(t, ev)
				var v any
				if nf, ok := m[semconv.TestNewFailureKey]; ok {
					v = nf.AsBool()
				}
				got[m[semconv.TestCaseNameKey].AsString()] = v
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestCap(t *testing.T) {
	run := manyFailures(5000, 100)
	evs, err := translate.RunEvents(run)
	require.NoError(t, err)
	require.Len(t, evs, 1+translate.DefaultMaxCaseEvents)
	m := attrMap(t, evs[0])
	assert.Equal(t, int64(4000), m[semconv.TestCaseEventsOmitted].AsInt64())
	// The first events are the first failures, in order.
	names := caseNames(t, evs)
	assert.Equal(t, run.Failures[0].ID, names[0])
	assert.Equal(t, run.Failures[999].ID, names[999])

	evs, err = translate.RunEvents(run, translate.WithMaxCaseEvents(10))
	require.NoError(t, err)
	require.Len(t, evs, 11)
	assert.Equal(t, int64(4990), attrMap(t, evs[0])[semconv.TestCaseEventsOmitted].AsInt64())

	evs, err = translate.RunEvents(run, translate.WithMaxCaseEvents(5000))
	require.NoError(t, err)
	require.Len(t, evs, 5001)
	assert.NotContains(t, attrMap(t, evs[0]), semconv.TestCaseEventsOmitted)
}

func TestByteBudget(t *testing.T) {
	run := manyFailures(3000, 3000)
	const budget = 200_000
	evs, err := translate.RunEvents(run, translate.WithMaxCaseEvents(3000), translate.WithMaxEventBytes(budget))
	require.NoError(t, err)
	total := 0
	for _, ev := range evs {
		total += translate.EventSize(ev)
	}
	assert.LessOrEqual(t, total, budget)
	kept := len(evs) - 1
	assert.Greater(t, kept, 0)
	assert.Less(t, kept, 3000)
	assert.Equal(t, int64(3000-kept), attrMap(t, evs[0])[semconv.TestCaseEventsOmitted].AsInt64())

	// The budget is shared by the runs of one span; each run keeps its
	// test.run event and counts what it left out.
	other := manyFailures(3000, 3000)
	other.ID = "other"
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run, other},
		translate.WithMaxCaseEvents(3000), translate.WithMaxEventBytes(budget))
	require.NoError(t, err)
	total = 0
	runs := 0
	cases := 0
	var omitted int64
	for _, ev := range spans[0].Events {
		total += translate.EventSize(ev)
		if ev.Name == semconv.EventTestRun {
			runs++
			omitted += attrMap(t, ev)[semconv.TestCaseEventsOmitted].AsInt64()
		} else {
			cases++
		}
	}
	assert.Equal(t, 2, runs)
	assert.LessOrEqual(t, total, budget)
	assert.Equal(t, int64(6000), omitted+int64(cases))

	// Shared fairly: the first run does not take the whole budget.
	perRun := map[string]int{}
	current := ""
	for _, ev := range spans[0].Events {
		if ev.Name == semconv.EventTestRun {
			current = attrMap(t, ev)[semconv.TestRunIDKey].AsString()
			continue
		}
		perRun[current]++
	}
	assert.Greater(t, perRun["other"], 0, "the second run keeps its first failures")
	assert.InDelta(t, perRun[run.ID], perRun["other"], 1, "equal runs get equal shares")
}

func TestInvalid(t *testing.T) {
	tests := []struct {
		name string
		runs []*testrun.Run
	}{
		{"no runs", nil},
		{"nil run", []*testrun.Run{nil}},
		{"no id", []*testrun.Run{{Kind: testrun.KindBase}}},
		{"unknown kind", []*testrun.Run{{ID: "r", Kind: "nightly"}}},
		{"unknown status", []*testrun.Run{{ID: "r", Status: "crashed"}}},
		{"failure that passed", []*testrun.Run{{ID: "r", Failures: []testrun.Failure{{ID: "a", Outcome: testrun.OutcomePassed}}}}},
		{"unknown outcome", []*testrun.Run{{ID: "r", Cases: map[string]testrun.Outcome{"a": "weird"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := translate.JobSpans(translate.Job{}, tt.runs)
			require.ErrorIs(t, err, translate.ErrInvalid)
			assert.True(t, strings.HasPrefix(err.Error(), "translate: "), err.Error())
		})
	}
	sessions := []struct {
		name string
		s    translate.Session
	}{
		{"no id", translate.Session{Turns: []translate.Turn{{Number: 1, Runs: []*testrun.Run{{ID: "r"}}}}}},
		{"no turns", translate.Session{ID: "s"}},
		{"turn twice", translate.Session{ID: "s", Turns: []translate.Turn{
			{Number: 1, Runs: []*testrun.Run{{ID: "r"}}}, {Number: 1, Runs: []*testrun.Run{{ID: "q"}}}}}},
		{"negative turn", translate.Session{ID: "s", Turns: []translate.Turn{{Number: -1, Runs: []*testrun.Run{{ID: "r"}}}}}},
		{"turn without runs", translate.Session{ID: "s", Turns: []translate.Turn{{Number: 1}}}},
	}
	for _, tt := range sessions {
		t.Run("session "+tt.name, func(t *testing.T) {
			_, err := translate.SessionSpans(tt.s)
			require.ErrorIs(t, err, translate.ErrInvalid)
			assert.True(t, strings.HasPrefix(err.Error(), "translate: "), err.Error())
		})
	}
}

// manyFailures returns a run with n failing tests, every one listed in
// Failures and Cases, with messages of msgLen characters.
func manyFailures(n, msgLen int) *testrun.Run {
	run := &testrun.Run{
		ID: "many", Kind: testrun.KindAfterTurn, Command: "pytest", Status: testrun.StatusFailure, Complete: true,
		StartedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), EndedAt: time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC),
		Counts:   &testrun.Counts{Total: n, Failed: n},
		Cases:    make(map[string]testrun.Outcome, n),
		Failures: make([]testrun.Failure, 0, n),
	}
	msg := strings.Repeat("m", msgLen)
	for i := range n {
		id := fmt.Sprintf("tests/test_mod_%03d.py::TestClass::test_case_%06d", i%500, i)
		run.Cases[id] = testrun.OutcomeFailed
		run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed, Message: msg})
	}
	return run
}

// TestGradeOnlyForGraders: hangar.test.run.grade is for graders only.
func TestGradeOnlyForGraders(t *testing.T) {
	for kind, want := range map[testrun.Kind]bool{testrun.KindGrader: true, testrun.KindBase: false, testrun.KindGate: false} {
		run := &testrun.Run{ID: "r", Kind: kind, Grade: "shared"}
		evs, err := translate.RunEvents(run, translate.WithClock(fixedClock))
		require.NoError(t, err)
		_, ok := attrMap(t, evs[0])[semconv.TestRunGradeKey]
		assert.Equal(t, want, ok, "kind %s", kind)
	}
}
