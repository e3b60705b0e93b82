package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSummaryFailureLines: from the real runners' reports, read in their
// sample projects, each failure's line in the summary says what failed
// (the assertion, not "Failed"), and the next line gives the command that
// reruns that test alone, quoted for the shell.
func TestSummaryFailureLines(t *testing.T) {
	runners, err := filepath.Abs(filepath.Join("..", "..", "testdata", "runners"))
	require.NoError(t, err)
	tests := []struct {
		project, report string
		want            []string
	}{
		{"go", "reports/gotestsum.xml", []string{
			"  failed example.com/runnersample/calc::TestFailure — calc_test.go:18: total mismatch: want 5 got 4\n" +
				"         rerun: go test -count=1 -run '^TestFailure$' ./calc\n",
			"  failed example.com/runnersample/calc::TestOuter/inner/deeper_fails — calc_test.go:58: nested comparison: [1 2] != [1 3]\n" +
				"         rerun: go test -count=1 -run '^TestOuter$/^inner$/^deeper_fails$' ./calc\n",
			"  failed example.com/runnersample/calc::TestOuter\n         rerun: go test -count=1 -run '^TestOuter$' ./calc\n",
		}},
		{"go", "reports/go-junit-report.xml", []string{
			"  failed example.com/runnersample/calc::TestFailure — calc_test.go:18: total mismatch: want 5 got 4\n" +
				"         rerun: go test -count=1 -run '^TestFailure$' ./calc\n",
		}},
		{"pytest", "reports/pytest-xunit2.xml", []string{
			"  failed test_sample::test_failure_with_message — AssertionError: total mismatch: want 3 got 4\n" +
				"         rerun: pytest test_sample.py::test_failure_with_message\n",
			"  failed test_sample.TestOuter.TestInner::test_inner_fails — ",
			"         rerun: pytest test_sample.py::TestOuter::TestInner::test_inner_fails\n",
		}},
		{"jest", "reports/jest-junit.xml", []string{
			"  failed  fails with a message:: fails with a message — Error: expect(received).toEqual(expected) // deep equality\n" +
				"         rerun: npx jest -t '^fails with a message$'\n",
			"         rerun: npx jest -t '^outer inner fails in inner$'\n",
		}},
		{"maven", "reports/TEST-calc.CalcTest.xml", []string{
			"  failed calc.CalcTest::failsWithMessage — total mismatch expected:<3> but was:<4>\n  ",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.project+"/"+tt.report, func(t *testing.T) {
			t.Chdir(filepath.Join(runners, tt.project))
			code, _, stderr := runCmd(t, "parse", tt.report)
			require.Equal(t, exitOK, code, stderr)
			for _, w := range tt.want {
				assert.Contains(t, stderr, w)
			}
			if tt.project == "maven" {
				assert.NotContains(t, stderr, "rerun:", "no command where the runner takes no test id")
			}
		})
	}
	t.Run("pytest outside its project", func(t *testing.T) {
		code, _, stderr := runCmd(t, "parse", filepath.Join(runners, "pytest", "reports", "pytest-xunit2.xml"))
		require.Equal(t, exitOK, code, stderr)
		assert.Contains(t, stderr, "AssertionError: total mismatch")
		assert.NotContains(t, stderr, "rerun:", "the file is not here: no command rather than a wrong path")
	})
}
