package report_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// summaryCount reads the number a runner's own summary gives for key (the
// first match of pattern, whose group holds the number), 0 when absent.
func summaryCount(t *testing.T, text, pattern string) int64 {
	t.Helper()
	m := regexp.MustCompile(pattern).FindStringSubmatch(text)
	if m == nil {
		return 0
	}
	n, err := strconv.ParseInt(m[1], 10, 64)
	require.NoError(t, err)
	return n
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestPytestCovMatchesCoveragePy: one pytest-cov run writes Cobertura and
// lcov side by side; read as a folder, the run's coverage is coverage.py's
// own total (each line counted once) and its counts are pytest's summary.
func TestPytestCovMatchesCoveragePy(t *testing.T) {
	root := moduleRoot(t)
	dir := filepath.Join(root, "testdata", "runners", "pytest-cov", "reports")
	run, err := report.ReadRun([]string{dir}, report.WithWorkDir("/tmp/testresults-runners/pytest-cov"))
	require.NoError(t, err)
	assert.True(t, run.Complete, "%q", run.IncompleteReasons)

	// coverage report: "TOTAL   22   7   68%" (statements, missed).
	total := regexp.MustCompile(`(?m)^TOTAL\s+(\d+)\s+(\d+)\s`).FindStringSubmatch(readText(t, filepath.Join(dir, "coverage-report.txt")))
	require.NotNil(t, total)
	stmts, _ := strconv.ParseInt(total[1], 10, 64)
	missed, _ := strconv.ParseInt(total[2], 10, 64)
	require.NotNil(t, run.Coverage)
	require.NotNil(t, run.Coverage.LinesValid)
	assert.Equal(t, stmts, *run.Coverage.LinesValid)
	assert.Equal(t, stmts-missed, *run.Coverage.LinesCovered)
	assert.EqualValues(t, 22, stmts)
	assert.EqualValues(t, 15, stmts-missed)

	// pytest -q: "1 failed, 4 passed, 1 skipped in 0.32s".
	out := readText(t, filepath.Join(dir, "pytest-output.txt"))
	require.NotNil(t, run.Counts)
	assert.EqualValues(t, summaryCount(t, out, `(\d+) passed`), run.Counts.Passed)
	assert.EqualValues(t, summaryCount(t, out, `(\d+) failed`), run.Counts.Failed)
	assert.EqualValues(t, summaryCount(t, out, `(\d+) skipped`), run.Counts.Skipped)
	assert.EqualValues(t, summaryCount(t, out, `(\d+) error`), run.Counts.Errors)

	// Each report alone states the same totals.
	for _, name := range []string{"coverage.xml", "lcov.info"} {
		run, err := report.ReadRun([]string{filepath.Join(dir, name)}, report.WithWorkDir("/tmp/testresults-runners/pytest-cov"))
		require.NoError(t, err)
		require.NotNil(t, run.Coverage.LinesValid, name)
		assert.Equal(t, *run.Coverage.LinesValid, stmts, name)
		assert.Equal(t, *run.Coverage.LinesCovered, stmts-missed, name)
	}
}

// TestNodeTestMatchesItsSummary: node's built-in runner's junit report
// counts as node's own summary does, todo tests (one of them failing)
// counted as skipped.
func TestNodeTestMatchesItsSummary(t *testing.T) {
	root := moduleRoot(t)
	dir := filepath.Join(root, "testdata", "runners", "node-test", "reports")
	run, err := report.ReadRun([]string{filepath.Join(dir, "node-junit.xml")})
	require.NoError(t, err)
	require.NotNil(t, run.Counts)
	spec := readText(t, filepath.Join(dir, "node-spec.txt"))
	assert.EqualValues(t, summaryCount(t, spec, `(?m)^ℹ tests (\d+)`), run.Counts.Total)
	assert.EqualValues(t, summaryCount(t, spec, `(?m)^ℹ pass (\d+)`), run.Counts.Passed)
	assert.EqualValues(t, summaryCount(t, spec, `(?m)^ℹ fail (\d+)`), run.Counts.Failed+run.Counts.Errors)
	assert.EqualValues(t, summaryCount(t, spec, `(?m)^ℹ skipped (\d+)`)+summaryCount(t, spec, `(?m)^ℹ todo (\d+)`), run.Counts.Skipped)
	assert.Equal(t, testrun.OutcomeSkipped, run.Cases["test::todo that fails"], "a failing todo test is an expected failure")
	assert.Equal(t, testrun.OutcomeFailed, run.Cases["test::throws"])
}

// TestCoverageTotalsBesideLines: a report that states only totals cannot
// be merged line by line with another; the run's coverage is then unknown,
// with the reason, and the run stays complete.
func TestCoverageTotalsBesideLines(t *testing.T) {
	dir := t.TempDir()
	totals := filepath.Join(dir, "coverage.xml")
	require.NoError(t, os.WriteFile(totals, []byte(`<coverage line-rate="0.5" lines-covered="1" lines-valid="2"><packages/></coverage>`), 0o644))
	lines := filepath.Join(dir, "lcov.info")
	require.NoError(t, os.WriteFile(lines, []byte("SF:a.py\nDA:1,1\nDA:2,0\nend_of_record\n"), 0o644))

	run, err := report.ReadRun([]string{totals})
	require.NoError(t, err)
	require.NotNil(t, run.Coverage.LinesValid, "alone, the totals are taken as stated")
	assert.EqualValues(t, 2, *run.Coverage.LinesValid)

	run, err = report.ReadRun([]string{totals, lines})
	require.NoError(t, err)
	require.NotNil(t, run.Coverage)
	assert.Nil(t, run.Coverage.LineRate)
	assert.Nil(t, run.Coverage.LinesCovered)
	assert.Nil(t, run.Coverage.LinesValid)
	assert.Contains(t, run.Coverage.Reason, totals+" states only coverage totals")
	assert.True(t, run.Complete, "unknown coverage is not an incomplete run")
	assert.Empty(t, run.IncompleteReasons)
}

// TestPytestTeardownErrorsAreErrors: a fixture teardown that fails after
// the test skipped, passed or failed is an error of that test, as pytest
// counts it (its summary's "3 errors"); pytest writes the one after a skip
// as <skipped> beside <error>, and no error is lost to the skip.
func TestPytestTeardownErrorsAreErrors(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "testdata", "runners", "pytest-teardown", "reports")
	run, err := report.ReadRun([]string{filepath.Join(dir, "pytest.xml")})
	require.NoError(t, err)
	require.NotNil(t, run.Counts)
	out := readText(t, filepath.Join(dir, "pytest-output.txt"))
	assert.EqualValues(t, summaryCount(t, out, `(\d+) errors in`), run.Counts.Errors)
	assert.Equal(t, map[string]testrun.Outcome{
		"test_teardown::test_skipped_then_teardown_error": testrun.OutcomeError,
		"test_teardown::test_passes_then_teardown_error":  testrun.OutcomeError,
		"test_teardown::test_fails_then_teardown_error":   testrun.OutcomeError,
		"test_teardown::test_passes":                      testrun.OutcomePassed,
		"test_teardown::test_expected_failure":            testrun.OutcomeSkipped,
	}, run.Cases)
	assert.True(t, run.Complete)
}
