package translate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

func TestParseCaseSpans(t *testing.T) {
	for _, c := range []translate.CaseSpans{translate.CaseSpansNone, translate.CaseSpansFailed, translate.CaseSpansAll} {
		got, err := translate.ParseCaseSpans(c.String())
		require.NoError(t, err)
		assert.Equal(t, c, got)
	}
	for _, s := range []string{"", "Failed", "some", "failing"} {
		_, err := translate.ParseCaseSpans(s)
		assert.ErrorIs(t, err, translate.ErrInvalid, s)
	}
}

func caseSpansOf(t *testing.T, mode translate.CaseSpans, runs ...*testrun.Run) (translate.Span, []translate.Span) {
	t.Helper()
	spans, err := translate.JobSpans(translate.Job{ID: "job-cases"}, runs, translate.WithClock(fixedClock), translate.WithCaseSpans(mode))
	require.NoError(t, err)
	require.NotEmpty(t, spans)
	return spans[0], spans[1:]
}

func TestCaseSpansModes(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	tests := []struct {
		mode  translate.CaseSpans
		names []string
	}{
		{translate.CaseSpansNone, nil},
		// The order of the test.case events: failures, then flaky tests.
		{translate.CaseSpansFailed, []string{"tests/test_api.py::test_login", "tests/test_db.py::test_migrate", "tests/test_api.py::test_retry"}},
		// Then every other case, sorted.
		{translate.CaseSpansAll, []string{"tests/test_api.py::test_login", "tests/test_db.py::test_migrate", "tests/test_api.py::test_retry",
			"tests/test_api.py::test_logout", "tests/test_ui.py::test_render", "tests/test_util.py::test_slug"}},
	}
	for _, tt := range tests {
		t.Run(tt.mode.String(), func(t *testing.T) {
			parent, children := caseSpansOf(t, tt.mode, r)
			var names []string
			ids := map[trace.SpanID]bool{parent.SpanID: true}
			for i, s := range children {
				assert.Equal(t, r.StartedAt.Add(time.Duration(i)*translate.EventStep), s.Start, "one step apart, in order")
				names = append(names, s.Name)
				assert.Equal(t, parent.TraceID, s.TraceID)
				assert.Equal(t, parent.SpanID, s.ParentSpanID)
				assert.False(t, s.RemoteParent)
				assert.Empty(t, s.Events, "a case span carries attributes, not events")
				assert.False(t, ids[s.SpanID], "span ids are unique")
				ids[s.SpanID] = true
				assert.False(t, s.End.Before(s.Start))
				assert.False(t, s.End.After(parent.End), "the parent covers its case spans")
			}
			assert.Equal(t, tt.names, names)
		})
	}
}

func TestCaseSpanAttributes(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	_, children := caseSpansOf(t, translate.CaseSpansAll, r)
	byName := map[string]translate.Span{}
	for _, s := range children {
		byName[s.Name] = s
	}
	type want struct {
		status   codes.Code
		desc     string
		result   string // "" when absent
		outcome  string
		flaky    bool
		message  string
		duration time.Duration // -1: unknown
	}
	for name, w := range map[string]want{
		"tests/test_api.py::test_login":  {codes.Error, "failed", "fail", "failed", false, "AssertionError: 401 != 200", 1250 * time.Millisecond},
		"tests/test_db.py::test_migrate": {codes.Error, "error", "fail", "error", false, "fixture 'db' not found", 3 * time.Millisecond},
		"tests/test_api.py::test_retry":  {codes.Unset, "", "pass", "passed", true, "", 7750 * time.Millisecond},
		"tests/test_api.py::test_logout": {codes.Unset, "", "pass", "passed", false, "", 500 * time.Millisecond},
		"tests/test_ui.py::test_render":  {codes.Unset, "", "", "skipped", false, "", 0},
		"tests/test_util.py::test_slug":  {codes.Unset, "", "pass", "passed", false, "", -1},
	} {
		t.Run(name, func(t *testing.T) {
			s, ok := byName[name]
			require.True(t, ok)
			a := spanAttrs(s)
			assert.Equal(t, w.status, s.Status)
			assert.Equal(t, w.desc, s.StatusDescription)
			assert.Equal(t, name, a[semconv.TestCaseNameKey])
			if w.result == "" {
				assert.NotContains(t, a, semconv.TestCaseResultStatusKey, "semconv has no status for a skipped test")
			} else {
				assert.Equal(t, w.result, a[semconv.TestCaseResultStatusKey])
			}
			assert.Equal(t, "pytest -q", a[semconv.TestSuiteNameKey])
			assert.Equal(t, w.outcome, a[semconv.TestOutcomeKey])
			assert.Equal(t, w.flaky, a[semconv.TestFlakyKey])
			assert.Equal(t, "run-cases-01", a[semconv.TestRunIDKey])
			if w.message == "" {
				assert.NotContains(t, a, semconv.TestMessageKey)
			} else {
				assert.Equal(t, w.message, a[semconv.TestMessageKey])
			}
			assert.False(t, s.Start.Before(r.StartedAt), "a case span starts with its run")
			assert.Less(t, s.Start.Sub(r.StartedAt), 6*translate.EventStep)
			if w.duration < 0 {
				assert.Equal(t, s.Start, s.End)
				assert.Equal(t, true, a[semconv.TestDurationUnknownKey], "a zero length that is not a measurement says so")
			} else {
				assert.Equal(t, w.duration, s.End.Sub(s.Start))
				assert.NotContains(t, a, semconv.TestDurationUnknownKey)
			}
			assert.NotContains(t, a, semconv.TestRunTrustedKey, "trust is the run's, on its event")
		})
	}
}

// TestCaseSpansNewFailure: with a base run, a failing case span says
// whether the failure is new, as its event does.
func TestCaseSpansNewFailure(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	base := readRun(t, "testdata/case_spans_failed/run.json")
	base.ID = "base"
	base.Kind = testrun.KindBase
	base.Cases["tests/test_api.py::test_login"] = testrun.OutcomePassed
	base.Failures = base.Failures[1:]
	base.Counts.Failed, base.Counts.Passed = 0, 4
	require.NoError(t, base.Validate())
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{r}, translate.WithBase(base), translate.WithCaseSpans(translate.CaseSpansFailed))
	require.NoError(t, err)
	got := map[string]any{}
	for _, s := range spans[1:] {
		if v, ok := spanAttrs(s)[semconv.TestNewFailureKey]; ok {
			got[s.Name] = v
		}
	}
	assert.Equal(t, map[string]any{"tests/test_api.py::test_login": true, "tests/test_db.py::test_migrate": false}, got)
}

// TestCaseSpanIDs: the same runs give the same case spans; another parent
// (another job) gives other ids.
func TestCaseSpanIDs(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	_, a := caseSpansOf(t, translate.CaseSpansAll, r)
	_, b := caseSpansOf(t, translate.CaseSpansAll, r)
	assert.Equal(t, a, b)
	spans, err := translate.JobSpans(translate.Job{ID: "other-job"}, []*testrun.Run{r}, translate.WithCaseSpans(translate.CaseSpansAll))
	require.NoError(t, err)
	for i, s := range spans[1:] {
		assert.NotEqual(t, a[i].SpanID, s.SpanID)
		assert.Equal(t, a[i].Name, s.Name)
	}
}

// TestCaseSpansCoverLongCases: a run without times still holds its case
// spans: the parent ends no earlier than its longest case.
func TestCaseSpansCoverLongCases(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	r.StartedAt, r.EndedAt = time.Time{}, time.Time{}
	parent, children := caseSpansOf(t, translate.CaseSpansFailed, r)
	assert.Equal(t, fixedClock(), parent.Start)
	// test_retry is third: it starts 2 steps after the run.
	assert.Equal(t, parent.Start.Add(2*translate.EventStep+7750*time.Millisecond), parent.End)
	for _, s := range children {
		assert.False(t, s.End.After(parent.End))
	}
}

func TestCaseSpansSession(t *testing.T) {
	r := readRun(t, "testdata/case_spans_failed/run.json")
	spans, err := translate.SessionSpans(translate.Session{ID: "s", Turns: []translate.Turn{{Number: 1, Runs: []*testrun.Run{r}}}},
		translate.WithCaseSpans(translate.CaseSpansFailed))
	require.NoError(t, err)
	require.Len(t, spans, 2+3)
	root, turn := spans[0], spans[1]
	assert.Equal(t, semconv.SpanTurn, turn.Name)
	for _, s := range spans[2:] {
		assert.Equal(t, turn.SpanID, s.ParentSpanID, "case spans hang under their turn")
		assert.False(t, s.End.After(root.End))
	}
}

// TestCaseSpanNameBounded: the name holds the start of a long id (valid
// UTF-8), test.case.name the whole id.
func TestCaseSpanNameBounded(t *testing.T) {
	r := failingRun("r", 1, 0)
	long := ""
	for range 300 {
		long += "é"
	}
	r.Cases = map[string]testrun.Outcome{long: testrun.OutcomeFailed}
	r.Failures = []testrun.Failure{{ID: long, Outcome: testrun.OutcomeFailed}}
	_, children := caseSpansOf(t, translate.CaseSpansFailed, r)
	require.Len(t, children, 1)
	assert.Equal(t, translate.MaxCaseSpanNameRunes, len([]rune(children[0].Name)))
	assert.Equal(t, long, spanAttrs(children[0])[attribute.Key(semconv.TestCaseNameKey)])
}
