package textout

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func ptr[T any](v T) *T { return &v }

// failedRun is a gotestsum run with two failures (one message carries an
// escape sequence, as a hostile report may write), a flaky test, an
// expected test that never ran and a coverage report.
func failedRun() *testrun.Run {
	return &testrun.Run{
		ID: "after-1", Kind: testrun.KindAfterTurn, Command: "gotestsum", Status: testrun.StatusFailure, ExitCode: ptr(1),
		StartedAt: t0, EndedAt: t0.Add(1500 * time.Millisecond),
		Counts: &testrun.Counts{Total: 5, Passed: 2, Failed: 1, Errors: 1, Skipped: 1, Flaky: 1},
		Failures: []testrun.Failure{
			{ID: "example.com/app/calc::TestSum", Outcome: testrun.OutcomeFailed, Message: "AssertionError: assert 3 == 4\x1b[2J"},
			{ID: "example.com/app/db::TestDB", Outcome: testrun.OutcomeError, Message: "ConnectionError: refused"},
		},
		Flaky:             []string{"tests/test_c.py::test_retry"},
		NotRun:            &testrun.NotRun{Count: 1, IDs: []string{"tests/test_d.py::test_gone"}},
		IncompleteReasons: []string{"1 expected test never ran"},
		Coverage:          &testrun.Coverage{LineRate: ptr(0.8125), LinesCovered: ptr(int64(13)), LinesValid: ptr(int64(16))},
		Reports:           []testrun.ReportInfo{{Path: "pytest.xml", Dialect: "gotestsum", Tests: ptr(5)}, {Path: "coverage.xml", Dialect: "cobertura", Error: "malformed"}},
	}
}

func comparison() testrun.Comparison {
	return testrun.Comparison{
		BaseID: "base-1", AfterID: "after-1", Available: true,
		NewFailures:   []testrun.Failure{failedRun().Failures[0]},
		BaseFailures:  []testrun.Failure{failedRun().Failures[1]},
		Fixed:         []string{"tests/test_e.py::test_fixed"},
		Flaky:         []testrun.FlakyMark{{ID: "tests/test_c.py::test_retry", OnList: ptr(true)}},
		CoverageDelta: ptr(-0.0125),
		OutputFailures: []testrun.OutputFailure{
			{ID: "TestOther", Runner: "go", Line: "--- FAIL: TestOther (0.00s)"},
		},
	}
}

func entry(id string, first time.Time, sightings int64) testrun.FlakyEntry {
	return testrun.FlakyEntry{
		Repository: "hangar-dev/app", Environment: "default", TestID: id, FirstSeen: first, LastSeen: first.Add(time.Hour),
		How: []testrun.FlakyHow{testrun.FlakyRunnerRetry, testrun.FlakySameTree}, Sightings: sightings,
		Seen: []testrun.FlakySeen{{How: testrun.FlakyRunnerRetry, Runs: []string{"r1"}, At: first}, {How: testrun.FlakySameTree, Runs: []string{"r1", "r2"}, At: first.Add(time.Hour)}},
	}
}

// TestGolden: each rendering, as people read it, against
// testdata/CASE/expected.txt (go test ./textout -update rewrites them).
func TestGolden(t *testing.T) {
	unavailable := testrun.Comparison{BaseID: "base-1", AfterID: "after-1", Unavailable: `after: run "after-1" is incomplete`}
	for name, render := range map[string]func(*bytes.Buffer){
		"run_failed": func(b *bytes.Buffer) {
			cmp := comparison()
			Summary{W: term.NewWriter(b)}.Run(RunResult{Run: failedRun(), Comparison: &cmp, Notes: []string{"PYTEST_ADDOPTS already names a JUnit file"},
				Results: "/reports/after-1/TEST-RESULTS.json", ResultsSHA256: "abc123", Where: "TEST-RESULTS.json"})
		},
		"run_colour": func(b *bytes.Buffer) {
			w := term.NewWriter(b)
			w.Color = true
			Summary{W: w, Color: true}.Run(RunResult{Run: failedRun(), Comparison: &unavailable, Where: "TEST-RESULTS.json"})
		},
		"run_nothing_counted": func(b *bytes.Buffer) {
			r := &testrun.Run{ID: "r", Status: testrun.StatusTimedOut, StartedAt: t0, EndedAt: t0.Add(time.Second),
				Coverage: &testrun.Coverage{Reason: "totals only beside line reports"}}
			Summary{W: term.NewWriter(b)}.Run(RunResult{Run: r, Where: "TEST-RESULTS.json"})
		},
		"parsed": func(b *bytes.Buffer) {
			Summary{W: term.NewWriter(b)}.Parsed(failedRun())
			Summary{W: term.NewWriter(b)}.Refused(errors.New("1 of 2 reports refused"), failedRun())
		},
		"comparison": func(b *bytes.Buffer) {
			Comparison(term.NewWriter(b), comparison(), failedRun())
		},
		"comparison_unavailable": func(b *bytes.Buffer) { Comparison(term.NewWriter(b), unavailable, failedRun()) },
		"paired": func(b *bytes.Buffer) {
			p := &testrun.Paired{ParentRuns: []string{"p1", "p2"}, PatchRuns: []string{"q1", "q2"}, Decision: testrun.DecisionReject, Unchanged: 7,
				Broken: []testrun.TestVerdict{{ID: "t::broken", Parent: []testrun.Outcome{testrun.OutcomePassed, testrun.OutcomePassed}, Patch: []testrun.Outcome{testrun.OutcomeFailed, testrun.OutcomeFailed}}},
				Frozen: []testrun.TestVerdict{{ID: "t::frozen", Parent: []testrun.Outcome{testrun.OutcomePassed, testrun.OutcomeFailed}, Patch: []testrun.Outcome{"", testrun.OutcomePassed}, Reason: "the parent runs disagree"}}}
			Paired(b, p)
			for _, l := range Frozen(p) {
				b.WriteString(l + "\n")
			}
		},
		"paired_invalid": func(b *bytes.Buffer) {
			Paired(b, &testrun.Paired{ParentRuns: []string{"p1", "p2"}, PatchRuns: []string{"q1", "q2"}, Decision: testrun.DecisionInvalid, Invalid: "fixture pin changed: data.csv"})
		},
		"flaky_check": func(b *bytes.Buffer) {
			e := entry("t::a", t0.Add(-48*time.Hour), 3)
			late := entry("t::b", t0.Add(time.Hour), 1)
			c := FlakyCheck{Run: "r", JobStart: t0, Failures: []FlakyCheckFailure{{ID: "t::a", Excused: true, Entry: &e}, {ID: "t::b", Entry: &late}, {ID: "t::c"}}}
			c.Write(b)
			FlakyCheck{Run: "r2", Transient: true, Failures: c.Failures[:1]}.Write(b)
			FlakyCheck{Run: "r3"}.Write(b)
			FlakyCheck{Run: "r4", Unknown: `run "r4" is incomplete`}.Write(b)
		},
		"flaky_list": func(b *bytes.Buffer) {
			FlakyEntries(b, []testrun.FlakyEntry{entry("t::a", t0, 2)})
			FlakyEntries(b, nil)
			FlakyList(b, []FlakyListEntry{
				{FlakyEntry: entry("t::a", t0, 2), Score: ScoreOf(testrun.Flakiness{FailureRate: 0.3125, Evidence: 12, Flips: 7, FlipRate: 7.0 / 49, FlipWindowRuns: 50})},
				{FlakyEntry: entry("t::new", t0, 1), Score: ScoreOf(testrun.Flakiness{FailureRate: 0.5, FlipWindowRuns: 3})},
				{FlakyEntry: entry("t::unscored", t0, 1)},
			})
			FlakyList(b, nil)
			FlakySummary(b, []testrun.FlakyRepoSummary{{Repository: "hangar-dev/app", Tests: 4, Worst: entry("t::a", t0, 9)}})
			FlakySummary(b, nil)
			FlakyRecords(b, []FlakyRecord{
				{Run: "r1", Recorded: true, Observed: 12, Flaky: map[string][]testrun.FlakyHow{"t::b": {testrun.FlakySameTree}, "t::a": {testrun.FlakyRunnerRetry}}},
				{Run: "g1", Reason: "run \"g1\" is a gate run"},
			})
		},
		"quarantine": func(b *bytes.Buffer) {
			e := testrun.QuarantineEntry{Repository: "hangar-dev/app", TestID: "t::a", Owner: "ana", Reason: "races the cache", Expires: t0.Add(72 * time.Hour)}
			QuarantineAdded(b, e, false)
			one := e
			one.Environment, one.TestID, one.Expires = "linux", "t::b", t0.Add(-time.Hour)
			QuarantineAdded(b, one, true)
			b.WriteString(QuarantineRemoved("hangar-dev/app", "", "t::a", true))
			b.WriteString(QuarantineRemoved("hangar-dev/app", "linux", "t::gone", false) + "\n")
			QuarantineList(b, []testrun.QuarantineEntry{e, one}, t0)
			QuarantineList(b, nil, t0)
		},
		"tool_verdict": func(b *bytes.Buffer) {
			ToolVerdict(b, testrun.ToolVerdict{Accepted: true})
			ToolVerdict(b, testrun.ToolVerdict{Reasons: []string{"junit_path: no such file", "passed 3 != the report's 2"}})
		},
		"pair": func(b *bytes.Buffer) { pairText(term.NewWriter(b)) },
		"verification": func(b *bytes.Buffer) {
			w := term.NewWriter(b)
			require.NoError(t, Verification(w, "0123456789abcdef0123456789abcdef01234567", "PASSED", 1, nil))
			require.NoError(t, Verification(w, "0123456789abcdef0123456789abcdef01234567", "", 0,
				[]string{"the signature does not verify", "report \"a\x1b[2J.xml\" was changed"}))
		},
		"run_line": func(b *bytes.Buffer) {
			b.WriteString(RunLine(failedRun(), 1, "/runs/patch-1") + "\n")
			b.WriteString(RunLine(&testrun.Run{Status: testrun.StatusAborted, StartedAt: t0, EndedAt: t0}, 130, "/runs/patch-2") + "\n")
		},
	} {
		t.Run(name, func(t *testing.T) {
			var b bytes.Buffer
			render(&b)
			path := filepath.Join("testdata", name, "expected.txt")
			if *update {
				require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
				require.NoError(t, os.WriteFile(path, b.Bytes(), 0o644))
			}
			want, err := os.ReadFile(path)
			require.NoError(t, err, "go test ./textout -update writes it")
			assert.Equal(t, string(want), b.String())
			assert.NotContains(t, b.String(), "\x1b[2J", "a report's escape sequence never reaches the terminal")
		})
	}
}

func TestWords(t *testing.T) {
	assert.Equal(t, "1 test", Quantity(1, "test"))
	assert.Equal(t, "0 errors", Quantity(0, "error"))
	assert.Equal(t, "", ListTail(nil))
	ids := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"}
	assert.Equal(t, ": a, b, c, d, e, f, g, h, i, j, and 2 more", ListTail(ids))
	assert.Equal(t, "passed,missing", Outcomes([]testrun.Outcome{testrun.OutcomePassed, ""}))
}

func TestNewFlakyCheckAndListEntries(t *testing.T) {
	e := entry("t::a", t0, 2)
	c := NewFlakyCheck("r", t0, testrun.Excusal{Failures: []testrun.ExcusedFailure{{ID: "t::a", Excused: true}, {ID: "t::b"}}},
		map[string]testrun.FlakyEntry{"t::a": e})
	require.Len(t, c.Failures, 2)
	assert.Equal(t, &e, c.Failures[0].Entry)
	assert.True(t, c.Failures[0].Excused)
	assert.Nil(t, c.Failures[1].Entry, "a failure off the list has no entry")
	assert.True(t, c.Failed(), "one failure is not excused")
	assert.NotNil(t, NewFlakyCheck("r", t0, testrun.Excusal{}, nil).Failures, "no failure is an empty list in JSON, not null")

	list := FlakyListEntries([]testrun.FlakyEntry{e, entry("t::b", t0, 1)}, []*testrun.Flakiness{{FailureRate: 0.5, Evidence: 4}, nil})
	require.Len(t, list, 2)
	assert.Equal(t, "fails 50% of 4 · 0 flips/0", list[0].Score.String())
	assert.Nil(t, list[1].Score)
}

// TestToolVerdictWord: the gate's verdict in a few words counts its
// reasons in good English.
func TestToolVerdictWord(t *testing.T) {
	assert.Equal(t, "accepted", ToolVerdictWord(testrun.ToolVerdict{Accepted: true}))
	assert.Equal(t, "rejected (1 reason)", ToolVerdictWord(testrun.ToolVerdict{Reasons: []string{"a"}}))
	assert.Equal(t, "rejected (2 reasons)", ToolVerdictWord(testrun.ToolVerdict{Reasons: []string{"a", "b"}}))
}
