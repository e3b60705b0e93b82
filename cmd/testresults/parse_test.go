package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/clidoc"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// TestParseUsageNamesLimits: the usage text states the limits the report
// package enforces, so a changed constant cannot leave the text behind.
func TestParseUsageNamesLimits(t *testing.T) {
	limits := fmt.Sprintf("limits per\nreport: %d MiB, %d elements, %d levels, %d cases; per run: %d reports,\n%d MiB.\n",
		report.DefaultMaxBytes>>20, report.DefaultMaxElements, report.DefaultMaxDepth, report.DefaultMaxCasesPerReport,
		report.DefaultMaxFiles, report.DefaultMaxRunBytes>>20)
	assert.Contains(t, clidoc.Help("parse"), limits)
}

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, Env{
		Stdin:   bytes.NewReader(nil),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
	})
	return code, out.String(), errb.String()
}

func writeReport(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const junitDoc = `<?xml version="1.0"?>
<testsuites><testsuite name="pkg">
<testcase classname="pkg.T" name="ok"/>
<testcase classname="pkg.T" name="bad"><failure message="expected 1, got 2 token=abc123secret">trace</failure></testcase>
<testcase classname="pkg.T" name="skip"><skipped/></testcase>
</testsuite></testsuites>`

func TestParseJSON(t *testing.T) {
	dir := t.TempDir()
	p := writeReport(t, dir, "junit.xml", junitDoc)
	code, out, stderr := runCmd(t, "parse", "--kind", "base", "--commit", "0123abcd", "--exit-code", "1", "--command", "go test ./...", p)
	require.Equal(t, exitOK, code, stderr)

	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for _, k := range []string{"id", "kind", "grade", "command", "status", "exit_code", "commit", "tree", "agent_run_id",
		"started_at", "ended_at", "counts", "complete", "incomplete_reasons", "trusted", "counted", "failures", "cases",
		"flaky", "coverage", "reports"} {
		assert.Contains(t, got, k)
	}
	assert.Equal(t, "base", got["kind"])
	assert.Equal(t, "failure", got["status"])
	assert.EqualValues(t, 1, got["exit_code"])
	assert.Equal(t, "0123abcd", got["commit"])
	assert.Equal(t, "go test ./...", got["command"])
	assert.Equal(t, true, got["complete"])
	assert.Equal(t, true, got["trusted"])
	assert.Equal(t, true, got["counted"])
	assert.Nil(t, got["grade"])
	assert.Nil(t, got["coverage"])
	assert.Equal(t, map[string]any{"total": 3.0, "passed": 1.0, "failed": 1.0, "errors": 0.0, "skipped": 1.0, "flaky": 0.0}, got["counts"])
	failures := got["failures"].([]any)
	require.Len(t, failures, 1)
	f := failures[0].(map[string]any)
	assert.Equal(t, "pkg.T::bad", f["id"])
	assert.NotContains(t, f["message"], "abc123secret", "messages are redacted")
	reports := got["reports"].([]any)
	require.Len(t, reports, 1)
	r := reports[0].(map[string]any)
	assert.Equal(t, "junit", r["dialect"])
	assert.Len(t, r["sha256"], 64)
	assert.EqualValues(t, 3, r["tests"])

	// The same reports give the same run id.
	code, out2, _ := runCmd(t, "parse", p)
	require.Equal(t, exitOK, code)
	var again map[string]any
	require.NoError(t, json.Unmarshal([]byte(out2), &again))
	assert.Equal(t, got["id"], again["id"])
	assert.Len(t, got["id"], 32)
	assert.Nil(t, again["kind"])
	assert.Equal(t, false, again["counted"])
}

func TestParsePartialSet(t *testing.T) {
	dir := t.TempDir()
	good := writeReport(t, dir, "good.xml", junitDoc)
	bad := writeReport(t, dir, "bad.xml", `<!DOCTYPE r [<!ENTITY x "y">]><testsuite/>`)
	code, out, _ := runCmd(t, "parse", "--kind", "base", good, bad)
	require.Equal(t, exitOK, code)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, false, got["complete"])
	assert.Equal(t, false, got["counted"])
	assert.Len(t, got["incomplete_reasons"], 1)
}

func TestParseExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := writeReport(t, dir, "good.xml", junitDoc)
	hostile := writeReport(t, dir, "bomb.xml", `<!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;">]><testsuite>&b;</testsuite>`)
	pom := writeReport(t, dir, "pom.xml", `<project><modelVersion>4.0.0</modelVersion></project>`)
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"ok", []string{good}, exitOK},
		{"help", []string{"--help"}, exitOK},
		{"no path", nil, exitUsage},
		{"unknown flag", []string{"--nope", good}, exitUsage},
		{"unknown kind", []string{"--kind", "nightly", good}, exitUsage},
		{"grade without grader", []string{"--kind", "base", "--grade", "isolated", good}, exitUsage},
		{"grader with grade", []string{"--kind", "grader", "--grade", "isolated", good}, exitOK},
		{"bad commit", []string{"--commit", "main", good}, exitUsage},
		{"bad exit code", []string{"--exit-code", "300", good}, exitUsage},
		{"every input refused", []string{hostile}, exitRejected},
		{"only a non-report", []string{pom}, exitRejected},
		{"missing file", []string{filepath.Join(dir, "nope.xml")}, exitRejected},
		{"empty folder", []string{t.TempDir()}, exitRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCmd(t, append([]string{"parse"}, tt.args...)...)
			assert.Equal(t, tt.want, code, "stdout %.200s\nstderr %.300s", out, stderr)
			switch tt.want {
			case exitUsage:
				assert.Contains(t, stderr, "Usage: testresults parse")
			case exitRejected:
				assert.NotEmpty(t, stderr)
				var got map[string]any
				require.NoError(t, json.Unmarshal([]byte(out), &got), "the run is still printed")
				assert.Equal(t, false, got["counted"])
			}
		})
	}
}

func TestParseFlags(t *testing.T) {
	fs, o := newParseFlags()
	require.NoError(t, fs.Parse([]string{"--kind", "grader", "--grade", "isolated", "--id", "r1", "a.xml"}))
	assert.Equal(t, "grader", string(o.d.Kind))
	assert.Equal(t, "isolated", o.d.Grade)
	assert.Equal(t, "r1", o.d.ID)
	assert.Equal(t, []string{"a.xml"}, fs.Args())
}

func TestParseMetadataFlags(t *testing.T) {
	dir := t.TempDir()
	p := writeReport(t, dir, "junit.xml", junitDoc)
	code, out, stderr := runCmd(t, "parse", "--kind", "rerun", "--exit-code", "137", "--status", "timed_out",
		"--tree", "tree-digest", "--agent-run-id", "agent-7",
		"--started-at", "2026-01-02T03:04:05Z", "--ended-at", "2026-01-02T03:05:05.5Z", p)
	require.Equal(t, exitOK, code, stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "timed_out", got["status"], "--status wins over the status --exit-code implies")
	assert.EqualValues(t, 137, got["exit_code"])
	assert.Equal(t, "tree-digest", got["tree"])
	assert.Equal(t, "agent-7", got["agent_run_id"])
	assert.Equal(t, "2026-01-02T03:04:05Z", got["started_at"])
	assert.Equal(t, "2026-01-02T03:05:05.5Z", got["ended_at"])

	for name, args := range map[string][]string{
		"bad status":       {"--status", "maybe"},
		"bad time":         {"--started-at", "yesterday"},
		"end before start": {"--started-at", "2026-01-02T03:04:05Z", "--ended-at", "2026-01-02T03:04:04Z"},
	} {
		code, _, _ := runCmd(t, append(append([]string{"parse"}, args...), p)...)
		assert.Equal(t, exitUsage, code, name)
	}
}

// TestParseWorkDir: pytest-cov writes Cobertura (names under its <source>)
// and lcov (names under the folder it ran in) for one run; told where the
// check ran, parse merges them per line into coverage.py's own totals.
func TestParseWorkDir(t *testing.T) {
	reports := filepath.Join("..", "..", "testdata", "runners", "pytest-cov", "reports")
	code, out, stderr := runCmd(t, "parse", "--work-dir", "/tmp/testresults-runners/pytest-cov", reports)
	require.Equal(t, exitOK, code, stderr)
	var got struct {
		Coverage struct {
			Covered int64 `json:"lines_covered"`
			Valid   int64 `json:"lines_valid"`
		} `json:"coverage"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, int64(15), got.Coverage.Covered, "coverage.py's report says 15 of 22")
	assert.Equal(t, int64(22), got.Coverage.Valid)
}

// collectionError is the real pytest project whose test_parse.py fails to
// import (testdata/runners/pytest-collection-error/COMMAND).
var collectionError = filepath.Join("..", "..", "testdata", "runners", "pytest-collection-error")

// TestParseExpectIDs: pytest writes a module it could not import as one
// error test and none of the tests in it; checked against every test of
// the project, the run lists those that never ran and is not counted.
func TestParseExpectIDs(t *testing.T) {
	expected := filepath.Join(collectionError, "expected-ids.txt")
	testCalc := []string{"test_calc.TestRounding::test_rounds_half_to_even", "test_calc::test_adds", "test_calc::test_skipped", "test_calc::test_subtracts"}
	testParse := []string{"test_parse.TestParseErrors::test_rejects_letters", "test_parse::test_parses_float", "test_parse::test_parses_int"}
	for _, tt := range []struct {
		report string
		total  int
		notRun []string
	}{
		// pytest's default: the collection error interrupts the session.
		{"pytest-interrupted.xml", 1, append(append([]string{}, testCalc...), testParse...)},
		// --continue-on-collection-errors: only the broken module's tests are missing.
		{"pytest-continued.xml", 5, testParse},
	} {
		t.Run(tt.report, func(t *testing.T) {
			report := filepath.Join(collectionError, "reports", tt.report)
			code, out, stderr := runCmd(t, "parse", "--kind", "after_turn", report)
			require.Equal(t, exitOK, code, stderr)
			var plain map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &plain))
			assert.Equal(t, true, plain["counted"], "without the expected tests, the report alone reads as a counted run")
			assert.NotContains(t, plain, "not_run")
			assert.NotContains(t, plain, "not_run_count")
			assert.Equal(t, "error", plain["cases"].(map[string]any)["test_parse"], "the collection error is an error test, as pytest wrote it")

			code, out, stderr = runCmd(t, "parse", "--kind", "after_turn", "--expect-ids", expected, report)
			require.Equal(t, exitOK, code, stderr)
			var got struct {
				Counts            map[string]int `json:"counts"`
				Complete          bool           `json:"complete"`
				Counted           bool           `json:"counted"`
				IncompleteReasons []string       `json:"incomplete_reasons"`
				NotRun            []string       `json:"not_run"`
				NotRunCount       int            `json:"not_run_count"`
				Cases             map[string]string
			}
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, tt.notRun, got.NotRun)
			assert.Equal(t, len(tt.notRun), got.NotRunCount)
			assert.False(t, got.Complete)
			assert.False(t, got.Counted, "tests that never ran are never a smaller green run")
			assert.Equal(t, []string{testrun.NotRunReason(len(tt.notRun))}, got.IncompleteReasons)
			assert.Equal(t, tt.total, got.Counts["total"], "the counts are the report's, not the expected tests'")
			assert.Equal(t, 1, got.Counts["errors"])
			for _, id := range tt.notRun {
				assert.Contains(t, stderr, "not run "+id)
			}
			assert.Contains(t, stderr, "incomplete: "+testrun.NotRunReason(len(tt.notRun)))
			_, err := testrun.ReadRun(strings.NewReader(out))
			require.NoError(t, err, "the strict reader reads it back")
		})
	}
}

// TestParseExpectIDsAllRan: a run that ran every expected test says so with
// an empty not_run, and stays complete and counted. The expected tests may
// also be given as a run's JSON form: its cases.
func TestParseExpectIDsAllRan(t *testing.T) {
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	code, base, stderr := runCmd(t, "parse", "-q", "--kind", "base", report)
	require.Equal(t, exitOK, code, stderr)
	for name, body := range map[string]string{
		"lines":    "pkg.T::ok\n\npkg.T::bad\r\npkg.T::skip\n",
		"run JSON": base,
	} {
		t.Run(name, func(t *testing.T) {
			expected := writeReport(t, dir, "expected", body)
			code, out, stderr := runCmd(t, "parse", "--kind", "after_turn", "--expect-ids", expected, report)
			require.Equal(t, exitOK, code, stderr)
			var got map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &got))
			assert.Equal(t, []any{}, got["not_run"])
			assert.Equal(t, float64(0), got["not_run_count"])
			assert.Equal(t, true, got["complete"])
			assert.Equal(t, true, got["counted"])
			assert.NotContains(t, stderr, "not run")
		})
	}
}

func TestParseExpectIDsUsage(t *testing.T) {
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	noCases := writeReport(t, dir, "run.json", `{"id":"r","kind":null,"grade":null,"command":null,"status":null,"exit_code":null,"commit":null,"tree":null,"agent_run_id":null,"started_at":null,"ended_at":null,"counts":null,"complete":false,"incomplete_reasons":["no test report was read"],"trusted":false,"counted":false,"failures":null,"cases":null,"flaky":null,"coverage":null,"reports":[]}`)
	for name, tt := range map[string]struct {
		args []string
		want string
	}{
		"empty flag":        {[]string{"--expect-ids", ""}, "--expect-ids is empty"},
		"missing file":      {[]string{"--expect-ids", filepath.Join(dir, "nope")}, "no such file"},
		"empty file":        {[]string{"--expect-ids", writeReport(t, dir, "empty", "\n\n")}, "no test id"},
		"run without cases": {[]string{"--expect-ids", noCases}, `the run "r" has no cases`},
		"a folder":          {[]string{"--expect-ids", dir}, "--expect-ids"},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCmd(t, append(append([]string{"parse"}, tt.args...), report)...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, out, "nothing is read before the expected tests are")
			assert.Contains(t, stderr, tt.want)
		})
	}
}

// TestParseExpectIDsPastTheCap: a run of more cases than it keeps
// (testrun.DefaultMaxCasesKept) still tells exactly which expected tests
// never ran: those that ran but whose cases were not kept are not listed.
func TestParseExpectIDsPastTheCap(t *testing.T) {
	b := newBigReport(t)
	code, out, stderr := runCmd(t, "parse", "-q", "--kind", "after_turn", "--expect-ids", b.expected, b.report)
	require.Equal(t, exitOK, code, stderr)
	got, err := testrun.ReadRun(strings.NewReader(out))
	require.NoError(t, err, "the strict reader reads it back")
	b.check(t, got)
}

// bigReport is a JUnit report of more cases than a run keeps, and a file
// of expected tests: two that ran (the first case, kept, and the last,
// past the cap) and two that never ran.
type bigReport struct {
	report, expected string
	n                int
	last             string
	never            []string
}

func newBigReport(t *testing.T) *bigReport {
	t.Helper()
	dir := t.TempDir()
	b := &bigReport{n: testrun.DefaultMaxCasesKept + 50}
	var doc strings.Builder
	doc.WriteString(`<?xml version="1.0"?>` + "\n" + `<testsuite name="big">` + "\n")
	for i := range b.n {
		fmt.Fprintf(&doc, "<testcase classname=\"pkg.T\" name=\"t%06d\"/>\n", i)
	}
	doc.WriteString("</testsuite>\n")
	b.report = writeReport(t, dir, "junit.xml", doc.String())
	b.last = fmt.Sprintf("pkg.T::t%06d", b.n-1)
	b.never = []string{"pkg.T::gone", fmt.Sprintf("pkg.T::t%06d", b.n)}
	b.expected = writeReport(t, dir, "expected.txt", strings.Join(append([]string{"pkg.T::t000000", b.last}, b.never...), "\n"))
	return b
}

// check asserts that got lists exactly the expected tests that never ran.
func (b *bigReport) check(t *testing.T, got *testrun.Run) {
	t.Helper()
	require.Equal(t, b.n, got.Counts.Total)
	require.Len(t, got.Cases, testrun.DefaultMaxCasesKept, "the cases are capped")
	require.NotContains(t, got.Cases, b.last, "an expected test that ran is past the cap")
	assert.Equal(t, &testrun.NotRun{Count: 2, IDs: b.never}, got.NotRun)
	assert.Equal(t, []string{testrun.NotRunReason(2)}, got.IncompleteReasons)
	assert.False(t, got.Complete)
}

// TestRunExpectIDsPastTheCap: run, too, names exactly the expected tests
// that never ran on a run of more cases than it keeps; and a check that
// could not start, or whose reports are off, ran none of them.
func TestRunExpectIDsPastTheCap(t *testing.T) {
	b := newBigReport(t)
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runInProc(t, nil, "-q", "--out", out, "--expect-ids", b.expected, "--", "cp", b.report, filepath.Join(out, "junit.xml"))
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(filepath.Join(out, "TEST-RESULTS.json"))
	require.NoError(t, err)
	got, err := testrun.ReadRun(bytes.NewReader(data))
	require.NoError(t, err, "the strict reader reads it back")
	b.check(t, got)

	for name, tt := range map[string]struct {
		vars   map[string]string
		argv   []string
		code   int
		reason string
	}{
		"not started": {nil, []string{filepath.Join(t.TempDir(), "no-such-check")}, 127, "no-such-check"},
		"reports off": {map[string]string{"HANGAR_TEST_REPORTS": "off"}, []string{"true"}, exitOK, "off"},
		"no report":   {nil, []string{"true"}, exitOK, "no report found"},
	} {
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out")
			args := append([]string{"-q", "--out", out, "--expect-ids", b.expected, "--"}, tt.argv...)
			code, _, stderr := runInProc(t, tt.vars, args...)
			require.Equal(t, tt.code, code, stderr)
			got := readResults(t, out)
			assert.Equal(t, []any{"pkg.T::gone", "pkg.T::t000000", "pkg.T::t020049", "pkg.T::t020050"}, got["not_run"])
			assert.Equal(t, float64(4), got["not_run_count"])
			assert.Equal(t, false, got["complete"])
			reasons := fmt.Sprint(got["incomplete_reasons"])
			assert.Contains(t, reasons, tt.reason)
			assert.Equal(t, 1, strings.Count(reasons, testrun.NotRunReason(4)), "the reason once: %s", reasons)
		})
	}
}

// TestParseRecordEnvironment: parse --record stores the run for --env's
// environment, the default one without it, and a run already stored for
// another environment is refused (exit 3), as run's and flaky's records
// are.
func TestParseRecordEnvironment(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HANGAR_STORE": filepath.Join(dir, "store.db"), "HOME": dir}
	xml := writeReport(t, dir, "after.xml", afterReport)
	code, _, errs := runCmdEnv(t, vars, "parse", "-q", "--record", "--repo", "acme/api", "--env", "linux", "--id", "on-linux", xml)
	require.Equal(t, exitOK, code, errs)
	code, _, errs = runCmdEnv(t, vars, "parse", "-q", "--record", "--repo", "acme/api", "--id", "on-default", xml)
	require.Equal(t, exitOK, code, errs)

	st, err := store.Open(context.Background(), vars["HANGAR_STORE"])
	require.NoError(t, err)
	defer st.Close()
	for id, want := range map[string]string{"on-linux": "linux", "on-default": store.DefaultEnvironment} {
		sr, err := st.Run(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, want, sr.Environment, id)
		assert.Equal(t, "acme/api", sr.Repo, id)
	}

	code, _, errs = runCmdEnv(t, vars, "parse", "-q", "--record", "--repo", "acme/api", "--env", "macos", "--id", "on-linux", xml)
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, errs, `stored for environment "linux", not "macos"`)
}
