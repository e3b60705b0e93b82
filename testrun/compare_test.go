package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func buildRun(t *testing.T, execs ...Execution) *Run {
	t.Helper()
	b := NewBuilder(WithRedactor(NewRedactor(nil)))
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(execs))}, execs, nil)
	r := b.Build()
	buildRuns++
	r.ID, r.Kind = fmt.Sprintf("run-%d", buildRuns), KindBase
	return r
}

// buildRuns numbers the runs buildRun makes: two runs are never one.
var buildRuns int

func TestNewFailures(t *testing.T) {
	base := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomePassed, ""), exec("s", "c", OutcomeError, ""))
	after := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""), exec("s", "d", OutcomeFailed, ""))

	got, err := NewFailures(base, after)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "d"}, got)

	again := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""), exec("s", "d", OutcomeFailed, ""))
	got, err = NewFailures(after, again)
	require.NoError(t, err)
	assert.Equal(t, []string{}, got, "an exact comparison with nothing new is an empty list, not nil")

	// The after run as its own base, or a base the rules do not trust,
	// would excuse anything.
	_, err = NewFailures(after, after)
	assert.ErrorIs(t, err, ErrComparisonUnavailable)
	assert.ErrorContains(t, err, "the same run")
	for _, kind := range []Kind{KindGate, ""} {
		untrusted := buildRun(t, exec("s", "b", OutcomeError, ""), exec("s", "d", OutcomeFailed, ""))
		untrusted.Kind = kind
		_, err = NewFailures(untrusted, after)
		assert.ErrorIs(t, err, ErrComparisonUnavailable, "kind %q", kind)
		assert.ErrorContains(t, err, "not trusted, so it is no baseline")
	}

	incomplete := buildRun(t, exec("s", "a", OutcomePassed, ""))
	incomplete.Complete = false
	for name, pair := range map[string][2]*Run{
		"base incomplete":     {incomplete, after},
		"after incomplete":    {base, incomplete},
		"base without counts": {NewBuilder().Build(), after},
		"nil base":            {nil, after},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := NewFailures(pair[0], pair[1])
			assert.Nil(t, got)
			assert.True(t, errors.Is(err, ErrComparisonUnavailable), "%v", err)
		})
	}

	t.Run("failing ids not listed whole", func(t *testing.T) {
		r := buildRun(t, exec("s", "a", OutcomeFailed, ""))
		r.Failures, r.Cases = nil, map[string]Outcome{}
		_, err := FailingIDs(r)
		assert.True(t, errors.Is(err, ErrComparisonUnavailable))
	})
}

func rate(f float64) *float64 { return &f }

func TestCompare(t *testing.T) {
	base := buildRun(t,
		exec("s", "a", OutcomeFailed, "a broke"),
		exec("s", "b", OutcomePassed, ""),
		exec("s", "c", OutcomeError, "c errored"),
		exec("s", "f", OutcomePassed, ""),
	)
	base.ID = "base-1"
	base.Coverage = &Coverage{LineRate: rate(0.8)}
	after := buildRun(t,
		exec("s", "a", OutcomeFailed, "a still broken"),
		exec("s", "b", OutcomeError, "b now errors"),
		exec("s", "c", OutcomePassed, ""),
		exec("s", "d", OutcomeFailed, "d is new"),
		exec("s1", "f", OutcomeFailed, "flip"), exec("s1", "f", OutcomePassed, ""),
	)
	after.ID = "after-1"
	after.Coverage = &Coverage{LineRate: rate(0.85)}

	c := Compare(base, after, WithFlakyList([]string{"f"}))
	require.True(t, c.Available, c.Unavailable)
	assert.NoError(t, c.Err())
	assert.Empty(t, c.Unavailable)
	assert.Equal(t, []Failure{
		{ID: "b", Outcome: OutcomeError, Message: "b now errors"},
		{ID: "d", Outcome: OutcomeFailed, Message: "d is new"},
	}, c.NewFailures)
	assert.Equal(t, []Failure{
		{ID: "a", Outcome: OutcomeFailed, Message: "a broke"},
		{ID: "c", Outcome: OutcomeError, Message: "c errored"},
	}, c.BaseFailures)
	assert.Equal(t, []string{"c"}, c.Fixed)
	on := true
	assert.Equal(t, []FlakyMark{{ID: "f", OnList: &on}}, c.Flaky)
	require.NotNil(t, c.CoverageDelta)
	assert.Equal(t, 0.05, *c.CoverageDelta, "rounded to 6 decimals, not 0.04999…")

	b, err := json.Marshal(c)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"base_id": "base-1", "after_id": "after-1",
		"available": true, "unavailable_reason": null,
		"new_failures": [
			{"id": "b", "outcome": "error", "message": "b now errors", "flaky": false},
			{"id": "d", "outcome": "failed", "message": "d is new", "flaky": false}],
		"base_failures": [
			{"id": "a", "outcome": "failed", "message": "a broke", "flaky": false},
			{"id": "c", "outcome": "error", "message": "c errored", "flaky": false}],
		"fixed": ["c"],
		"flaky": [{"id": "f", "on_list": true}],
		"coverage_delta": 0.05,
		"output_failures": null
	}`, string(b))

	t.Run("no flaky list: on_list is null", func(t *testing.T) {
		c := Compare(base, after)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"flaky":[{"id":"f","on_list":null}]`)
	})

	t.Run("nothing new is an exact empty list", func(t *testing.T) {
		twin := *after
		twin.ID = "twin"
		c := Compare(&twin, after)
		require.True(t, c.Available)
		assert.Equal(t, []Failure{}, c.NewFailures)
		assert.Equal(t, []string{}, c.Fixed)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		assert.Contains(t, string(b), `"new_failures":[]`)
		assert.Contains(t, string(b), `"coverage_delta":0,`)
	})

	t.Run("new failure listed only among cases has a null message", func(t *testing.T) {
		a := buildRun(t, exec("s", "a", OutcomeFailed, "a"), exec("s", "z", OutcomeFailed, "z"))
		a.Failures = a.Failures[:1] // the first 200 only: z is in cases
		c := Compare(base, a)
		require.True(t, c.Available, c.Unavailable)
		assert.Equal(t, []Failure{{ID: "z", Outcome: OutcomeFailed}}, c.NewFailures)
		b, err := json.Marshal(c)
		require.NoError(t, err)
		assert.Contains(t, string(b), `{"id":"z","outcome":"failed","message":null,"flaky":false}`)
	})

	incomplete := buildRun(t, exec("s", "a", OutcomePassed, ""))
	incomplete.ID = "inc"
	incomplete.Complete = false
	incomplete.IncompleteReasons = []string{"limit"}
	noCounts := NewBuilder().Build()
	noCounts.ID = "empty"
	unlisted := buildRun(t, exec("s", "a", OutcomeFailed, ""))
	unlisted.ID = "unlisted"
	unlisted.Failures, unlisted.Cases = nil, map[string]Outcome{}
	for _, tc := range []struct {
		name        string
		base, after *Run
		reason      string
		baseKnown   bool
	}{
		{"base incomplete", incomplete, after, `base: testrun: comparison unavailable: run "inc" is incomplete`, false},
		{"after incomplete", base, incomplete, `after: testrun: comparison unavailable: run "inc" is incomplete`, true},
		{"base without counts", noCounts, after, `run "empty" has no counts`, false},
		{"after without counts", base, noCounts, `run "empty" has no counts`, true},
		{"after failing ids not whole", base, unlisted, `run "unlisted" lists 0 failing ids but counts 1`, true},
		{"no base", nil, after, "base: testrun: comparison unavailable: no run", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := Compare(tc.base, tc.after)
			assert.False(t, c.Available)
			assert.Contains(t, c.Unavailable, tc.reason)
			assert.True(t, errors.Is(c.Err(), ErrComparisonUnavailable))
			assert.Nil(t, c.NewFailures, "never an empty list that reads as nothing new")
			assert.Nil(t, c.Fixed)
			assert.Equal(t, tc.baseKnown, c.BaseFailures != nil)
			b, err := json.Marshal(c)
			require.NoError(t, err)
			assert.Contains(t, string(b), `"available":false`)
			assert.Contains(t, string(b), `"new_failures":null`)
			assert.Contains(t, string(b), `"fixed":null`)
		})
	}

	t.Run("coverage delta needs both rates", func(t *testing.T) {
		a := *after
		a.Coverage = &Coverage{}
		assert.Nil(t, Compare(base, &a).CoverageDelta)
		a.Coverage = nil
		assert.Nil(t, Compare(base, &a).CoverageDelta)
	})
}

func readSample(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "output", name))
	require.NoError(t, err)
	return b
}

// The samples are real output: pytest 7.2, go test (Go 1.26), cargo test
// and jest 29 run over small suites with failing tests.
func TestScanOutputSamples(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"pytest.txt", []string{"tests/test_a.py::test_bad", "tests/test_a.py::TestGroup::test_inner", "tests/test_a.py::test_param[2]", "tests/test_a.py::test_fixture_error"}},
		{"pytest-verbose.txt", []string{"tests/test_a.py::test_bad", "tests/test_a.py::TestGroup::test_inner", "tests/test_a.py::test_param[2]", "tests/test_a.py::test_fixture_error"}},
		{"go.txt", []string{"TestBad", "TestSub", "TestSub/broken_case"}},
		{"go-verbose.txt", []string{"TestBad", "TestSub", "TestSub/broken_case"}},
		{"cargo.txt", []string{"tests::bad"}},
		{"jest.txt", []string{"math › breaks badly", "top level fails"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			var ids []string
			for _, f := range ScanOutput(readSample(t, tc.file)) {
				ids = append(ids, f.ID)
				assert.NotEmpty(t, f.Runner)
				assert.NotEmpty(t, f.Line)
			}
			assert.Equal(t, tc.want, ids)
		})
	}
}

func TestScanOutputBounds(t *testing.T) {
	t.Run("only the last MiB is read", func(t *testing.T) {
		var b strings.Builder
		b.WriteString("--- FAIL: TestEarly (0.00s)\n")
		for b.Len() < MaxOutputBytes {
			b.WriteString("ok  \tsome/package\t0.01s\n")
		}
		b.WriteString("--- FAIL: TestLate (0.00s)\n")
		got := ScanOutput([]byte(b.String()))
		require.Len(t, got, 1)
		assert.Equal(t, "TestLate", got[0].ID)
	})
	t.Run("long lines are skipped", func(t *testing.T) {
		line := "FAILED a.py::" + strings.Repeat("x", MaxOutputLine)
		got := ScanOutput([]byte(line + "\nFAILED a.py::t\n"))
		require.Len(t, got, 1)
		assert.Equal(t, "a.py::t", got[0].ID)
	})
	t.Run("at most MaxOutputFailures", func(t *testing.T) {
		var b strings.Builder
		for i := range MaxOutputFailures + 50 {
			b.WriteString("test t" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "_" + itoa(i) + " ... FAILED\n")
		}
		assert.Len(t, ScanOutput([]byte(b.String())), MaxOutputFailures)
	})
	t.Run("colour and CRLF", func(t *testing.T) {
		got := ScanOutput([]byte("\x1b[31m--- FAIL: TestRed (0.01s)\x1b[0m\r\n"))
		require.Len(t, got, 1)
		assert.Equal(t, "TestRed", got[0].ID)
	})
	t.Run("jest notices name no test", func(t *testing.T) {
		assert.Empty(t, ScanOutput([]byte("● Validation Warning:\n● Deprecation Warning:\n")))
	})
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}

func TestCompareOutputFallback(t *testing.T) {
	// The reports (a JUnit file of one runner) agree: nothing new. A
	// second runner wrote no report; only its output tells.
	base := buildRun(t, exec("s", "tests.test_a::test_ok", OutcomePassed, ""))
	after := buildRun(t, exec("s", "tests.test_a::test_ok", OutcomePassed, ""))
	goOut := readSample(t, "go.txt")
	pyOut := readSample(t, "pytest.txt")

	for _, tc := range []struct {
		name              string
		baseOut, afterOut []byte
		after             *Run
		available         bool
		reason            []string
	}{
		{name: "after's output names failures the base's did not", baseOut: []byte("ok  \tpkg\t0.1s\n"), afterOut: goOut, after: after,
			reason: []string{`"TestBad" (go line "--- FAIL: TestBad (0.00s)")`, `"TestSub/broken_case"`}},
		{name: "same failures in both outputs", baseOut: goOut, afterOut: goOut, after: after, available: true},
		{name: "no base output: every named failure is unexplained", baseOut: nil, afterOut: []byte("test tests::bad ... FAILED\n"), after: after,
			reason: []string{`"tests::bad" (cargo line "test tests::bad ... FAILED")`}},
		{name: "clean output", baseOut: nil, afterOut: []byte("all good\n"), after: after, available: true},
		{name: "the reports explain the named failure (pytest id vs JUnit id)", baseOut: nil, afterOut: pyOut,
			after: func() *Run {
				// The same failures in both reports: not new, and the
				// output's names are explained by after's reports.
				return buildRun(t,
					exec("s", "tests.test_a::test_bad", OutcomeFailed, ""),
					exec("s", "tests.test_a.TestGroup::test_inner", OutcomeFailed, ""),
					exec("s", "tests.test_a::test_param[2]", OutcomeFailed, ""),
					exec("s", "tests.test_a::test_fixture_error", OutcomeError, ""))
			}(), available: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := base
			if tc.available && tc.after != after {
				twin := *tc.after // same failures on both sides
				twin.ID = "twin"
				b = &twin
			}
			c := Compare(b, tc.after, WithOutput(tc.baseOut, tc.afterOut))
			assert.Equal(t, tc.available, c.Available, c.Unavailable)
			if tc.available {
				assert.Equal(t, []Failure{}, c.NewFailures)
				assert.Empty(t, c.OutputFailures)
				return
			}
			assert.Nil(t, c.NewFailures, "never reads as no new failures")
			assert.NotEmpty(t, c.OutputFailures)
			for _, r := range tc.reason {
				assert.Contains(t, c.Unavailable, r)
			}
			assert.True(t, errors.Is(c.Err(), ErrComparisonUnavailable))
		})
	}

	t.Run("the reason names three tests and counts the rest", func(t *testing.T) {
		out := "--- FAIL: TestA (0.00s)\n--- FAIL: TestB (0.00s)\n--- FAIL: TestC (0.00s)\n--- FAIL: TestD (0.00s)\n--- FAIL: TestE (0.00s)\n"
		c := Compare(base, after, WithOutput(nil, []byte(out)))
		require.False(t, c.Available)
		assert.Contains(t, c.Unavailable, `"TestC"`)
		assert.NotContains(t, c.Unavailable, `"TestD"`)
		assert.Contains(t, c.Unavailable, "and 2 more")
		assert.Len(t, c.OutputFailures, 5)
	})

	t.Run("reported new failures are not hidden by the fallback", func(t *testing.T) {
		a := buildRun(t, exec("s", "tests.test_a::test_ok", OutcomeFailed, "x"))
		c := Compare(base, a, WithOutput(nil, goOut))
		require.True(t, c.Available)
		assert.Len(t, c.NewFailures, 1)
		assert.Len(t, c.OutputFailures, 3, "still listed for the reader")
	})
}

func TestMarshalTestResults(t *testing.T) {
	base := buildRun(t, exec("s", "a", OutcomePassed, ""))
	base.ID = "base"
	after := buildRun(t, exec("s", "a", OutcomeFailed, "broke"), exec("s1", "f", OutcomeFailed, ""), exec("s1", "f", OutcomePassed, ""))
	after.ID = "after"

	plain, err := MarshalTestResults(after, nil)
	require.NoError(t, err)
	own, err := json.Marshal(after)
	require.NoError(t, err)
	assert.JSONEq(t, string(own), string(plain), "without a base it is the run")

	c := Compare(base, after, WithFlakyList(nil))
	b, err := MarshalTestResults(after, &c)
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	assert.Equal(t, "after", doc["id"])
	assert.Equal(t, "base", doc["base_id"])
	assert.NotContains(t, doc, "after_id")
	assert.Equal(t, []any{map[string]any{"id": "a", "outcome": "failed", "message": "broke", "flaky": false}}, doc["new_failures"])
	assert.Equal(t, []any{map[string]any{"id": "f", "on_list": false}}, doc["flaky_on_list"], "the comparison's marks")
	assert.Equal(t, []any{"f"}, doc["flaky"], "the run's own flaky ids stay the run's")
	assert.Contains(t, doc, "counts")
	assert.Contains(t, doc, "coverage_delta")
	rb, err := after.MarshalJSON()
	require.NoError(t, err)
	assert.True(t, bytes.HasPrefix(b, rb[:len(rb)-1]), "the run's exact bytes first, then the comparison's keys")
	want, err := TestResults{Run: after, Comparison: &c}.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(want), string(b), "TestResults' one form")
	_, err = MarshalTestResults(nil, &c)
	assert.ErrorIs(t, err, ErrInvalidRun)
}

// TestCompareUnknowns checks the two answers a comparison must not give
// as "none": new failures of a run that ran nothing, and fixed tests of a
// run whose cases are not all listed.
func TestCompareUnknowns(t *testing.T) {
	base := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeFailed, ""), exec("s", "c", OutcomePassed, ""))
	t.Run("an after run that ran no test", func(t *testing.T) {
		empty := buildRun(t)
		empty.ID = "empty"
		require.True(t, empty.Complete)
		c := Compare(base, empty)
		assert.False(t, c.Available)
		assert.Nil(t, c.NewFailures)
		assert.Nil(t, c.Fixed)
		assert.Contains(t, c.Unavailable, `after: testrun: comparison unavailable: run "empty" ran no test`)
		assert.ErrorIs(t, c.Err(), ErrComparisonUnavailable)
	})
	t.Run("cases dropped: a base failure not failing after is unknown", func(t *testing.T) {
		after := buildRun(t, exec("s", "a", OutcomePassed, ""), exec("s", "b", OutcomeFailed, ""), exec("s", "c", OutcomePassed, ""))
		require.Equal(t, []string{"a"}, Compare(base, after).Fixed)
		after.Cases = nil // what retention leaves
		c := Compare(base, after)
		require.True(t, c.Available, c.Unavailable)
		assert.Empty(t, c.NewFailures)
		assert.Nil(t, c.Fixed, "a may have passed or not run: unknown, not none")
	})
	t.Run("cases dropped: base failures all failing after are known", func(t *testing.T) {
		after := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""))
		after.Cases = nil
		c := Compare(base, after)
		require.True(t, c.Available, c.Unavailable)
		assert.Equal(t, []string{}, c.Fixed)
	})
}
