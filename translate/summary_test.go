package translate_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

var (
	runStart = time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	runEnd   = runStart.Add(2 * time.Minute)
)

// passing is a complete run whose tests all passed.
func passing(id string) *testrun.Run {
	return &testrun.Run{
		ID: id, Kind: testrun.KindAfterTurn, Command: "go test ./...", Status: testrun.StatusSuccess, Complete: true,
		StartedAt: runStart, EndedAt: runEnd,
		Counts: &testrun.Counts{Total: 40, Passed: 40},
	}
}

// failingRun is a complete run with failed tests and errors, in this order.
func failingRun(id string, failed, errored int) *testrun.Run {
	r := passing(id)
	r.Status = testrun.StatusFailure
	r.Counts = &testrun.Counts{Total: 40, Passed: 40 - failed - errored, Failed: failed, Errors: errored}
	r.Cases = map[string]testrun.Outcome{}
	for i := range failed + errored {
		o := testrun.OutcomeFailed
		if i >= failed {
			o = testrun.OutcomeError
		}
		tid := fmt.Sprintf("%s::test_%02d", id, i)
		r.Cases[tid] = o
		r.Failures = append(r.Failures, testrun.Failure{ID: tid, Outcome: o, Message: "boom"})
	}
	return r
}

func jobSpan(t *testing.T, runs ...*testrun.Run) translate.Span {
	t.Helper()
	spans, err := translate.JobSpans(translate.Job{ID: "job-1"}, runs, translate.WithClock(fixedClock))
	require.NoError(t, err)
	require.Len(t, spans, 1)
	return spans[0]
}

func spanAttrs(s translate.Span) map[attribute.Key]any {
	m := make(map[attribute.Key]any, len(s.Attrs))
	for _, kv := range s.Attrs {
		m[kv.Key] = kv.Value.AsInterface()
	}
	return m
}

// TestSpanStatus: a span is Error, with a short description, when one of
// its runs failed, timed out, was aborted or is incomplete; a passing run
// leaves it Unset (never Ok).
func TestSpanStatus(t *testing.T) {
	exit2 := 2
	tests := []struct {
		name string
		runs func() []*testrun.Run
		code codes.Code
		desc string
	}{
		{"passing run: unset", func() []*testrun.Run { return []*testrun.Run{passing("p")} }, codes.Unset, ""},
		{"failed and errors", func() []*testrun.Run { return []*testrun.Run{failingRun("f", 2, 1)} }, codes.Error, "2 failed, 1 error of 40"},
		{"failed only", func() []*testrun.Run { return []*testrun.Run{failingRun("f", 3, 0)} }, codes.Error, "3 failed of 40"},
		{"errors only", func() []*testrun.Run { return []*testrun.Run{failingRun("f", 0, 2)} }, codes.Error, "2 errors of 40"},
		{"timed out with all passed", func() []*testrun.Run {
			r := passing("t")
			r.Status = testrun.StatusTimedOut
			return []*testrun.Run{r}
		}, codes.Error, "timed out"},
		{"aborted with failures", func() []*testrun.Run {
			r := failingRun("a", 1, 0)
			r.Status = testrun.StatusAborted
			return []*testrun.Run{r}
		}, codes.Error, "aborted; 1 failed of 40"},
		{"failure that no report explains", func() []*testrun.Run {
			r := passing("x")
			r.Status = testrun.StatusFailure
			r.ExitCode = &exit2
			return []*testrun.Run{r}
		}, codes.Error, "failed with exit code 2"},
		{"failure without exit code", func() []*testrun.Run {
			r := passing("x")
			r.Status = testrun.StatusFailure
			return []*testrun.Run{r}
		}, codes.Error, "failed"},
		{"incomplete: first reason, redacted, on one line", func() []*testrun.Run {
			r := passing("i")
			r.Complete = false
			r.IncompleteReasons = []string{"report a.xml:\n  refused (password=hunter2)", "second"}
			return []*testrun.Run{r}
		}, codes.Error, "incomplete: report a.xml: refused (password=[REDACTED])"},
		{"incomplete without reason", func() []*testrun.Run {
			r := passing("i")
			r.Complete = false
			return []*testrun.Run{r}
		}, codes.Error, "incomplete"},
		{"no report, unknown status", func() []*testrun.Run {
			return []*testrun.Run{{ID: "n", IncompleteReasons: []string{"no test report was written"}}}
		}, codes.Error, "incomplete: no test report was written"},
		{"several runs: error when any is", func() []*testrun.Run {
			return []*testrun.Run{passing("p1"), failingRun("f", 2, 0), passing("p2")}
		}, codes.Error, "1 of 3 runs: 2 failed of 40"},
		{"several failing runs", func() []*testrun.Run {
			r := passing("t")
			r.Status = testrun.StatusTimedOut
			return []*testrun.Run{failingRun("f", 1, 1), r}
		}, codes.Error, "2 of 2 runs: 1 failed, 1 error of 40 | timed out"},
		{"several passing runs: unset", func() []*testrun.Run {
			return []*testrun.Run{passing("p1"), passing("p2")}
		}, codes.Unset, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := jobSpan(t, tt.runs()...)
			assert.Equal(t, tt.code, s.Status)
			assert.Equal(t, tt.desc, s.StatusDescription)

			// The pdata form carries it.
			ps := translate.Traces([]translate.Span{s}, nil).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			want := ptrace.StatusCodeUnset
			if tt.code == codes.Error {
				want = ptrace.StatusCodeError
			}
			assert.Equal(t, want, ps.Status().Code())
			assert.Equal(t, tt.desc, ps.Status().Message())
		})
	}
}

func TestStatusDescriptionBounded(t *testing.T) {
	var runs []*testrun.Run
	for i := range 30 {
		r := passing(fmt.Sprintf("r%d", i))
		r.Complete = false
		r.IncompleteReasons = []string{strings.Repeat("é", 500) + "\xff"}
		runs = append(runs, r)
	}
	s := jobSpan(t, runs...)
	assert.Equal(t, codes.Error, s.Status)
	assert.Equal(t, translate.StatusDescriptionLength, utf8.RuneCountInString(s.StatusDescription))
	assert.True(t, utf8.ValidString(s.StatusDescription))
	assert.True(t, strings.HasPrefix(s.StatusDescription, "30 of 30 runs: incomplete: éé"), s.StatusDescription)
}

// TestSessionStatus: each turn span has its own status; the session span
// carries no run and stays Unset (a viewer marks the trace as failing from
// the turn).
func TestSessionStatus(t *testing.T) {
	spans, err := translate.SessionSpans(translate.Session{ID: "s", Turns: []translate.Turn{
		{Number: 1, Runs: []*testrun.Run{passing("p")}},
		{Number: 2, Runs: []*testrun.Run{failingRun("f", 1, 0)}},
	}})
	require.NoError(t, err)
	require.Len(t, spans, 3)
	assert.Equal(t, codes.Unset, spans[0].Status)
	assert.Equal(t, codes.Unset, spans[1].Status)
	assert.Equal(t, codes.Error, spans[2].Status)
	assert.Equal(t, "1 failed of 40", spans[2].StatusDescription)
	assert.NotContains(t, spanAttrs(spans[0]), semconv.TestTotalKey, "the session span carries no run")
}

// TestSpanSummaryAttrs: the span repeats its runs' suite name, counts and
// completeness; the trust flags stay on the test.run events, for the
// processor to write on spans.
func TestSpanSummaryAttrs(t *testing.T) {
	other := failingRun("o", 1, 0)
	other.Command = "pytest"
	noCounts := passing("n")
	noCounts.Counts = nil
	noCounts.Complete = false
	tests := []struct {
		name string
		runs []*testrun.Run
		want map[attribute.Key]any
	}{
		{"one run", []*testrun.Run{failingRun("f", 2, 1)}, map[attribute.Key]any{
			semconv.JobIDKey: "job-1", semconv.TestSuiteNameKey: "go test ./...",
			semconv.TestTotalKey: int64(40), semconv.TestPassedKey: int64(37), semconv.TestFailedKey: int64(2),
			semconv.TestErrorsKey: int64(1), semconv.TestSkippedKey: int64(0), semconv.TestFlakyCountKey: int64(0),
			semconv.TestCompleteKey:  true,
			semconv.TestFailedIDsKey: []string{"f::test_00", "f::test_01", "f::test_02"},
		}},
		{"passing run: no failed ids", []*testrun.Run{passing("p")}, map[attribute.Key]any{
			semconv.JobIDKey: "job-1", semconv.TestSuiteNameKey: "go test ./...",
			semconv.TestTotalKey: int64(40), semconv.TestPassedKey: int64(40), semconv.TestFailedKey: int64(0),
			semconv.TestErrorsKey: int64(0), semconv.TestSkippedKey: int64(0), semconv.TestFlakyCountKey: int64(0),
			semconv.TestCompleteKey: true,
		}},
		{"several runs, one command: sums", []*testrun.Run{passing("p"), failingRun("f", 1, 0)}, map[attribute.Key]any{
			semconv.JobIDKey: "job-1", semconv.TestSuiteNameKey: "go test ./...",
			semconv.TestTotalKey: int64(80), semconv.TestPassedKey: int64(79), semconv.TestFailedKey: int64(1),
			semconv.TestErrorsKey: int64(0), semconv.TestSkippedKey: int64(0), semconv.TestFlakyCountKey: int64(0),
			semconv.TestCompleteKey:  true,
			semconv.TestFailedIDsKey: []string{"f::test_00"},
		}},
		{"several commands: no suite name", []*testrun.Run{passing("p"), other}, map[attribute.Key]any{
			semconv.JobIDKey:     "job-1",
			semconv.TestTotalKey: int64(80), semconv.TestPassedKey: int64(79), semconv.TestFailedKey: int64(1),
			semconv.TestErrorsKey: int64(0), semconv.TestSkippedKey: int64(0), semconv.TestFlakyCountKey: int64(0),
			semconv.TestCompleteKey:  true,
			semconv.TestFailedIDsKey: []string{"o::test_00"},
		}},
		{"a run without counts: no sums, incomplete", []*testrun.Run{other, noCounts}, map[attribute.Key]any{
			semconv.JobIDKey: "job-1", semconv.TestCompleteKey: false,
			semconv.TestFailedIDsKey: []string{"o::test_00"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := jobSpan(t, tt.runs...)
			assert.Equal(t, tt.want, spanAttrs(s))
			m := spanAttrs(s)
			assert.NotContains(t, m, semconv.TestRunTrustedKey)
			assert.NotContains(t, m, semconv.TestRunCountedKey)
		})
	}
}

// TestFailedIDs: hangar.test.failed_ids lists the first failing ids in the
// order of the test.case events, without flaky tests that passed, without
// repeats, bounded in number and length.
func TestFailedIDs(t *testing.T) {
	r := fixture(t, "failures")
	s := jobSpan(t, r)
	ids := spanAttrs(s)[semconv.TestFailedIDsKey]
	var failing []string
	for _, ev := range s.Events {
		m := attrMap(t, ev)
		if ev.Name == semconv.EventTestCase && m[semconv.TestCaseResultStatusKey].AsString() == "fail" {
			failing = append(failing, m[semconv.TestCaseNameKey].AsString())
		}
	}
	assert.Equal(t, failing, ids)
	assert.NotContains(t, ids, "tests/test_cache.py::test_ttl", "a flaky test that passed did not fail")

	many := manyFailures(50, 5)
	long := strings.Repeat("x", 1000)
	delete(many.Cases, many.Failures[0].ID)
	many.Failures[0].ID = long
	many.Cases[long] = testrun.OutcomeFailed
	again := *many // the same failures in a second run
	again.ID = "many-again"
	got := spanAttrs(jobSpan(t, many, &again))[semconv.TestFailedIDsKey].([]string)
	require.Len(t, got, translate.MaxFailedIDs)
	assert.Equal(t, strings.Repeat("x", translate.FailedIDLength), got[0])
	assert.Equal(t, many.Failures[1].ID, got[1])
	assert.Equal(t, many.Failures[translate.MaxFailedIDs-1].ID, got[translate.MaxFailedIDs-1], "the second run's repeats are not listed again")

	_, err := translate.JobSpans(translate.Job{ID: "job-1"}, []*testrun.Run{many, many})
	require.ErrorIs(t, err, translate.ErrInvalid, "one run given twice would give its spans one id twice")
}

// TestEventTimes: each run's test.run event first, then its test.case
// events in order, each at its own time; runs that end together are laid
// one after the other; the span contains every event; replaying gives the
// same times.
func TestEventTimes(t *testing.T) {
	noStart := failingRun("z", 3, 0)
	noStart.StartedAt = time.Time{}
	later := failingRun("l", 1, 0)
	later.EndedAt = runEnd.Add(time.Second)
	tests := []struct {
		name string
		runs []*testrun.Run
		want []time.Time
	}{
		{"one run: at its end, then one step each", []*testrun.Run{failingRun("f", 2, 1)},
			[]time.Time{runEnd, us(runEnd, 1), us(runEnd, 2), us(runEnd, 3)}},
		{"zero duration: the span ends at its last event", []*testrun.Run{noStart},
			[]time.Time{runEnd, us(runEnd, 1), us(runEnd, 2), us(runEnd, 3)}},
		{"two runs ending together: one after the other", []*testrun.Run{failingRun("a", 1, 0), failingRun("b", 2, 0)},
			[]time.Time{runEnd, us(runEnd, 1), us(runEnd, 2), us(runEnd, 3), us(runEnd, 4)}},
		{"runs out of order keep their own ends", []*testrun.Run{later, failingRun("b", 1, 0)},
			[]time.Time{runEnd.Add(time.Second), us(runEnd.Add(time.Second), 1), runEnd, us(runEnd, 1)}},
		{"the later run moves past the earlier one's events", []*testrun.Run{failingRun("a", 3, 0), func() *testrun.Run {
			r := failingRun("b", 1, 0)
			r.EndedAt = us(runEnd, 2)
			return r
		}()}, []time.Time{runEnd, us(runEnd, 1), us(runEnd, 2), us(runEnd, 3), us(runEnd, 4), us(runEnd, 5)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := jobSpan(t, tt.runs...)
			var got []time.Time
			seen := map[time.Time]bool{}
			for _, ev := range s.Events {
				got = append(got, ev.Time)
				assert.False(t, seen[ev.Time], "distinct times")
				seen[ev.Time] = true
				assert.False(t, ev.Time.Before(s.Start), "event before the span")
				assert.False(t, ev.Time.After(s.End), "event after the span")
			}
			assert.Equal(t, tt.want, got)
			assert.Equal(t, slicesMax(tt.want), s.End)
			assert.Equal(t, s, jobSpan(t, tt.runs...), "replaying gives the same span")
		})
	}
}

func us(t time.Time, n int) time.Time { return t.Add(time.Duration(n) * translate.EventStep) }

func slicesMax(ts []time.Time) time.Time {
	m := ts[0]
	for _, t := range ts {
		if t.After(m) {
			m = t
		}
	}
	return m
}
