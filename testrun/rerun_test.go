package testrun_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// runners is the real runners' sample projects and their reports.
const runners = "../testdata/runners"

func readRun(t *testing.T, paths ...string) *testrun.Run {
	t.Helper()
	r, err := report.ReadRun(paths)
	require.NoError(t, err)
	require.NotNil(t, r.Counts)
	return r
}

func failure(t *testing.T, r *testrun.Run, id string) testrun.Failure {
	t.Helper()
	for _, f := range r.Failures {
		if f.ID == id {
			return f
		}
	}
	t.Fatalf("no failure %q in %v", id, r.Failures)
	return testrun.Failure{}
}

// TestHeadlineRealReports: the one line a summary shows for a failure is
// the assertion, not gotestsum's and go-junit-report's "Failed" nor the
// runner's framing lines, for every dialect whose report says more.
func TestHeadlineRealReports(t *testing.T) {
	tests := []struct {
		report, id, want string
	}{
		{"go/reports/gotestsum.xml", "example.com/runnersample/calc::TestFailure", "calc_test.go:18: total mismatch: want 5 got 4"},
		{"go/reports/gotestsum.xml", "example.com/runnersample/calc::TestOuter/inner/deeper_fails", "calc_test.go:58: nested comparison: [1 2] != [1 3]"},
		{"go/reports/gotestsum.xml", "example.com/runnersample/calc::TestOuter", ""},
		{"go/reports/gotestsum.xml", "example.com/runnersample/crash::TestPanics", "panic: assignment to entry in nil map [recovered, repanicked]"},
		{"go/reports/go-junit-report.xml", "example.com/runnersample/calc::TestFailure", "calc_test.go:18: total mismatch: want 5 got 4"},
		{"go/reports/go-junit-report.xml", "example.com/runnersample/crash::TestPanics", ""},
		{"pytest/reports/pytest-xunit2.xml", "test_sample::test_failure_with_message", "AssertionError: total mismatch: want 3 got 4"},
		{"pytest/reports/pytest-xunit1.xml", "test_sample::test_error_in_setup", `failed on setup with "RuntimeError: fixture could not open the resource"`},
		{"jest/reports/jest-junit.xml", " fails with a message:: fails with a message", "Error: expect(received).toEqual(expected) // deep equality"},
		{"vitest/reports/vitest-junit.xml", "sample.test.js::fails with a message", "totals differ: expected { total: 4 } to deeply equal { total: 3 }"},
		{"maven/reports/TEST-calc.CalcTest.xml", "calc.CalcTest::failsWithMessage", "total mismatch expected:<3> but was:<4>"},
		{"phpunit/reports/phpunit-junit.xml", "CalcTest::testFailsWithMessage", "total mismatch"},
		{"phpunit/reports/phpunit-junit.xml", `CalcTest::testSeparator with data set "fails"`, "Failed asserting that two strings are not identical."},
		{"playwright/reports/playwright-junit.xml", "sample.spec.js::fails with a message", "totals differ"},
	}
	for _, tt := range tests {
		t.Run(tt.report+" "+tt.id, func(t *testing.T) {
			r := readRun(t, filepath.Join(runners, tt.report))
			f := failure(t, r, tt.id)
			assert.Equal(t, tt.want, testrun.Headline(f.ID, f.Message), "message: %q", f.Message)
		})
	}
}

func TestHeadlineClips(t *testing.T) {
	long := ""
	for range testrun.MaxHeadline + 10 {
		long += "é"
	}
	h := testrun.Headline("a::b", "Failed\n"+long)
	assert.Equal(t, testrun.MaxHeadline, len([]rune(h)))
	assert.Equal(t, "…", string([]rune(h)[testrun.MaxHeadline-1:]))
}

// TestRerunCommandRealReports: the command that reruns one failing test,
// from the real runners' reports, inside their sample projects; none where
// the report does not say enough.
func TestRerunCommandRealReports(t *testing.T) {
	goDir := filepath.Join(runners, "go")
	tests := []struct {
		name    string
		reports []string
		dir, id string
		want    []string
	}{
		{"gotestsum, under the module", []string{"go/reports/gotestsum.xml"}, goDir, "example.com/runnersample/calc::TestFailure",
			[]string{"go", "test", "-count=1", "-run", "^TestFailure$", "./calc"}},
		{"gotestsum subtest", []string{"go/reports/gotestsum.xml"}, goDir, "example.com/runnersample/calc::TestOuter/inner/deeper_fails",
			[]string{"go", "test", "-count=1", "-run", "^TestOuter$/^inner$/^deeper_fails$", "./calc"}},
		{"gotestsum from the package's folder", []string{"go/reports/gotestsum.xml"}, filepath.Join(goDir, "calc"), "example.com/runnersample/crash::TestPanics",
			[]string{"go", "test", "-count=1", "-run", "^TestPanics$", "example.com/runnersample/crash"}},
		{"gotestsum without a repository", []string{"go/reports/gotestsum.xml"}, "", "example.com/runnersample/calc::TestFailure",
			[]string{"go", "test", "-count=1", "-run", "^TestFailure$", "example.com/runnersample/calc"}},
		{"gotestsum outside the module", []string{"go/reports/gotestsum.xml"}, t.TempDir(), "example.com/runnersample/calc::TestFailure",
			[]string{"go", "test", "-count=1", "-run", "^TestFailure$", "example.com/runnersample/calc"}},
		{"go-junit-report", []string{"go/reports/go-junit-report.xml"}, goDir, "example.com/runnersample/calc::TestFlaky",
			[]string{"go", "test", "-count=1", "-run", "^TestFlaky$", "./calc"}},
		{"pytest module", []string{"pytest/reports/pytest-xunit2.xml", "pytest/reports/coverage.xml"}, filepath.Join(runners, "pytest"), "test_sample::test_failure_with_message",
			[]string{"pytest", "test_sample.py::test_failure_with_message"}},
		{"pytest nested classes", []string{"pytest/reports/pytest-xunit1.xml"}, filepath.Join(runners, "pytest"), "test_sample.TestOuter.TestInner::test_inner_fails",
			[]string{"pytest", "test_sample.py::TestOuter::TestInner::test_inner_fails"}},
		{"pytest without the file", []string{"pytest/reports/pytest-xunit2.xml"}, t.TempDir(), "test_sample::test_failure_with_message", nil},
		{"pytest without a repository", []string{"pytest/reports/pytest-xunit2.xml"}, "", "test_sample::test_failure_with_message", nil},
		{"jest", []string{"jest/reports/jest-junit.xml"}, "", "outer inner fails in inner::outer inner fails in inner",
			[]string{"npx", "jest", "-t", "^outer inner fails in inner$"}},
		{"jest top level", []string{"jest/reports/jest-junit.xml"}, "", " fails with a message:: fails with a message",
			[]string{"npx", "jest", "-t", "^fails with a message$"}},
		{"a runner that takes no test id", []string{"maven/reports/TEST-calc.CalcTest.xml"}, "", "calc.CalcTest::failsWithMessage", nil},
		{"reports of two runners", []string{"go/reports/gotestsum.xml", "jest/reports/jest-junit.xml"}, goDir, "example.com/runnersample/calc::TestFailure", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var paths []string
			for _, p := range tt.reports {
				paths = append(paths, filepath.Join(runners, p))
			}
			r := readRun(t, paths...)
			failure(t, r, tt.id)
			assert.Equal(t, tt.want, testrun.RerunCommand(r, tt.id, testrun.WithRepository(tt.dir)))
		})
	}
}

// TestRerunCommandRunsTheTest: the Go command, pasted into a shell in the
// sample module, runs that one test and no other.
func TestRerunCommandRunsTheTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool")
	}
	r := readRun(t, filepath.Join(runners, "go/reports/gotestsum.xml"))
	dir := filepath.Join(runners, "go")
	argv := testrun.RerunCommand(r, "example.com/runnersample/calc::TestOuter/inner/deeper_fails", testrun.WithRepository(dir))
	require.NotNil(t, argv)
	cmd := exec.Command("sh", "-c", testrun.ShellQuote(append(argv, "-v")))
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FLAKY_STATE_DIR="+t.TempDir(), "GOFLAGS=-mod=mod", "GOWORK=off")
	out, _ := cmd.CombinedOutput()
	assert.Contains(t, string(out), "--- FAIL: TestOuter/inner/deeper_fails", "%s", out)
	assert.NotContains(t, string(out), "TestFailure", "only that test ran")
}

// TestRerunCommandRunsThePytestTest: the pytest command, in a copy of the
// sample project, runs that one nested-class test.
func TestRerunCommandRunsThePytestTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs pytest")
	}
	if _, err := exec.LookPath("pytest"); err != nil {
		t.Skip("no pytest")
	}
	dir := t.TempDir()
	for _, f := range []string{"test_sample.py", "calc.py", "pytest.ini"} {
		b, err := os.ReadFile(filepath.Join(runners, "pytest", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), b, 0o644))
	}
	r := readRun(t, filepath.Join(runners, "pytest/reports/pytest-xunit2.xml"))
	argv := testrun.RerunCommand(r, "test_sample.TestOuter.TestInner::test_inner_fails", testrun.WithRepository(dir))
	require.NotNil(t, argv)
	cmd := exec.Command("sh", "-c", testrun.ShellQuote(argv)+" -p no:cacheprovider -p no:randomly")
	cmd.Dir = dir
	out, _ := cmd.CombinedOutput()
	assert.Contains(t, string(out), "1 failed", "%s", out)
	assert.NotContains(t, string(out), "passed", "only that test ran: %s", out)
}

func TestShellQuote(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"go", "test", "-run", "^TestX$", "./pkg"}, `go test -run '^TestX$' ./pkg`},
		{[]string{"pytest", "tests/test_x.py::test_it[a b]"}, `pytest 'tests/test_x.py::test_it[a b]'`},
		{[]string{"npx", "jest", "-t", "^it's$"}, `npx jest -t '^it'\''s$'`},
		{[]string{"echo", ""}, `echo ''`},
		{[]string{"x", "$(rm -rf /)`;|&"}, "x '$(rm -rf /)`;|&'"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, testrun.ShellQuote(tt.argv))
		out, err := exec.Command("sh", "-c", "printf '%s\\n' "+testrun.ShellQuote(tt.argv[1:])).Output()
		if err == nil {
			want := ""
			for _, w := range tt.argv[1:] {
				want += w + "\n"
			}
			assert.Equal(t, want, string(out), "the shell reads back the words")
		}
	}
}
