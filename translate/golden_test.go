package translate_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/golden"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

var update = flag.Bool("update", false, "rewrite the expected traces (expected.yaml) under testdata")

// fixedClock stands in for the export time of runs without any time.
var fixedClock = func() time.Time { return time.Date(2025, 11, 11, 0, 0, 0, 0, time.UTC) }

// testResource is the resource of the golden traces.
func testResource() *resource.Resource {
	return resource.NewWithAttributes(semconv.SchemaURL, semconv.ServiceNameKey.String("testresults"))
}

// testParent is the remote parent of the parent case.
func testParent(t testing.TB) trace.SpanContext {
	t.Helper()
	tid, err := trace.TraceIDFromHex("4bf92f3577b34da6a3ce929d0e0e4736")
	require.NoError(t, err)
	sid, err := trace.SpanIDFromHex("00f067aa0ba902b7")
	require.NoError(t, err)
	ts, err := trace.ParseTraceState("vendor=abc")
	require.NoError(t, err)
	return trace.NewSpanContext(trace.SpanContextConfig{
		TraceID: tid, SpanID: sid, TraceFlags: trace.FlagsSampled, TraceState: ts, Remote: true,
	})
}

func readRun(t testing.TB, path string) *testrun.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r testrun.Run
	require.NoError(t, json.Unmarshal(b, &r), path)
	return &r
}

type goldenCase struct {
	name string
	// runs are files of testdata/<name> on the job span; turns, when set,
	// make a session export instead.
	runs  []string
	turns map[int][]string
	job   translate.Job
	base  string
	opts  func(t testing.TB) []translate.Option
}

var goldenCases = []goldenCase{
	{name: "failures", runs: []string{"run.json"}, job: translate.Job{ID: "job-42"}},
	{name: "flaky", runs: []string{"run.json"}, job: translate.Job{ID: "job-43"}},
	{name: "errors", runs: []string{"run.json"}, job: translate.Job{ID: "job-44"}},
	{name: "coverage", runs: []string{"run.json"}, job: translate.Job{ID: "job-45"}},
	{name: "grader", runs: []string{"run.json"}, job: translate.Job{ID: "job-46"}},
	{name: "grader_lower", runs: []string{"run.json"}, job: translate.Job{ID: "job-47"}},
	{name: "incomplete", runs: []string{"run.json"}, job: translate.Job{ID: "job-48"}},
	{name: "not_run", runs: []string{"run.json"}, job: translate.Job{ID: "job-54"}},
	{name: "new_failure", runs: []string{"run.json"}, base: "base.json", job: translate.Job{ID: "job-49"}},
	{name: "base_incomplete", runs: []string{"run.json"}, base: "base.json", job: translate.Job{ID: "job-50"}},
	{name: "capped", runs: []string{"run.json"}, opts: func(testing.TB) []translate.Option {
		return []translate.Option{translate.WithMaxCaseEvents(4)}
	}},
	{name: "provision", runs: []string{"run.json"}, job: translate.Job{ID: "job-49", Provision: true}},
	{name: "session", turns: map[int][]string{2: {"turn2a.json", "turn2b.json"}, 1: {"turn1.json"}}},
	{name: "parent", runs: []string{"run.json"}, job: translate.Job{ID: "job-51"}, opts: func(t testing.TB) []translate.Option {
		return []translate.Option{translate.WithParent(testParent(t))}
	}},
	{name: "no_times", runs: []string{"run.json"}},
	{name: "case_spans_failed", runs: []string{"run.json"}, job: translate.Job{ID: "job-52"}, opts: func(testing.TB) []translate.Option {
		return []translate.Option{translate.WithCaseSpans(translate.CaseSpansFailed)}
	}},
	{name: "case_spans_all", runs: []string{"run.json"}, job: translate.Job{ID: "job-53"}, opts: func(testing.TB) []translate.Option {
		return []translate.Option{translate.WithCaseSpans(translate.CaseSpansAll)}
	}},
	{name: "flakiness", runs: []string{"run.json"}, job: translate.Job{ID: "job-55"}, opts: func(testing.TB) []translate.Option {
		return []translate.Option{translate.WithFlakiness(goldenScores)}
	}},
	{name: "case_spans_session", turns: map[int][]string{1: {"turn1.json"}}, opts: func(testing.TB) []translate.Option {
		return []translate.Option{translate.WithCaseSpans(translate.CaseSpansFailed)}
	}},
}

// goldenScores are the flakiness scores of the flakiness case: a test with
// evidence and a full flip window, one scored without evidence over one
// run (no rate is written for either part), a flaky test that passed, and
// a test the run does not hold (no event to carry it).
var goldenScores = map[string]testrun.Flakiness{
	"tests/test_api.py::test_login_expired_token": {Runs: 50, FlakyTrees: 3, FailureRate: 0.3125, Evidence: 14, Flips: 7, FlipRate: 7.0 / 49, FlipWindowRuns: 50, Flaky: true},
	"tests/test_db.py::test_migrate":              {Runs: 1, FailureRate: 0.5, FlipWindowRuns: 1},
	"tests/test_cache.py::test_ttl":               {Runs: 4, Retries: 1, FailureRate: 0.5, Evidence: 2, Flips: 2, FlipRate: 2.0 / 3, FlipWindowRuns: 4, Flaky: true},
	"tests/test_gone.py::test_removed":            {Runs: 9, FailureRate: 0.1, Evidence: 8, FlipWindowRuns: 9},
}

// goldenSpans translates the case's runs into neutral spans.
func goldenSpans(t testing.TB, c goldenCase) []translate.Span {
	t.Helper()
	dir := filepath.Join("testdata", c.name)
	opts := []translate.Option{translate.WithClock(fixedClock)}
	if c.base != "" {
		opts = append(opts, translate.WithBase(readRun(t, filepath.Join(dir, c.base))))
	}
	if c.opts != nil {
		opts = append(opts, c.opts(t)...)
	}
	if c.turns != nil {
		s := translate.Session{ID: "session-" + c.name}
		// Turns are given out of order on purpose: the export sorts them.
		for n := len(c.turns); n >= 1; n-- {
			turn := translate.Turn{Number: n}
			for _, f := range c.turns[n] {
				turn.Runs = append(turn.Runs, readRun(t, filepath.Join(dir, f)))
			}
			s.Turns = append(s.Turns, turn)
		}
		spans, err := translate.SessionSpans(s, opts...)
		require.NoError(t, err)
		return spans
	}
	var runs []*testrun.Run
	for _, f := range c.runs {
		runs = append(runs, readRun(t, filepath.Join(dir, f)))
	}
	spans, err := translate.JobSpans(c.job, runs, opts...)
	require.NoError(t, err)
	return spans
}

func TestGolden(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			actual := translate.Traces(goldenSpans(t, c), testResource())
			path := filepath.Join("testdata", c.name, "expected.yaml")
			if *update {
				require.NoError(t, golden.WriteTracesToFile(path, actual))
			}
			expected, err := golden.ReadTraces(path)
			require.NoError(t, err)
			require.NoError(t, ptracetest.CompareTraces(expected, actual))
			assertFlags(t, expected, actual)
		})
	}
}

// assertFlags checks the span flags, which CompareTraces leaves out.
func assertFlags(t *testing.T, expected, actual ptrace.Traces) {
	t.Helper()
	e := allSpans(expected)
	a := allSpans(actual)
	require.Len(t, a, len(e))
	for i := range e {
		assert.Equal(t, e[i].Flags(), a[i].Flags(), "flags of span %s", e[i].Name())
	}
}

func allSpans(td ptrace.Traces) []ptrace.Span {
	var out []ptrace.Span
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				out = append(out, s)
			}
		}
	}
	return out
}

// TestGoldenDeterministic translates every case twice: same traces, ids
// included.
func TestGoldenDeterministic(t *testing.T) {
	for _, c := range goldenCases {
		t.Run(c.name, func(t *testing.T) {
			first := translate.Traces(goldenSpans(t, c), testResource())
			second := translate.Traces(goldenSpans(t, c), testResource())
			require.NoError(t, ptracetest.CompareTraces(first, second))
			for _, s := range allSpans(first) {
				assert.False(t, s.TraceID().IsEmpty())
				assert.False(t, s.SpanID().IsEmpty())
			}
		})
	}
}
