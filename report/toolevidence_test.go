package report_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

func fileSum(t *testing.T, path string) (string, int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), int64(len(b))
}

func count(n int) *int { return &n }

// toolResult is a tool's JSON result claiming passed, failed and skipped
// for the JUnit file at path.
func toolResult(t *testing.T, path string, passed, failed, skipped int) []byte {
	t.Helper()
	sum, _ := fileSum(t, path)
	b, err := json.Marshal(map[string]any{"ok": true, "returncode": 0, "failed": failed, "passed": passed, "skipped": skipped,
		"junit_sha256": sum, "junit_path": filepath.Base(path), "cmd": []string{"pytest"}})
	require.NoError(t, err)
	return b
}

func TestToolEvidence(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}

	// A tool that ran nothing: the file parses, and holds no test case.
	for name, body := range map[string]string{
		"no suite":                               `<testsuites/>`,
		"a suite whose attributes count 5 tests": `<testsuite name="pkg" tests="5" failures="0" errors="0"></testsuite>`,
	} {
		t.Run(name, func(t *testing.T) {
			p := write(strings.ReplaceAll(name, " ", "-")+".xml", body)
			ev := report.ToolEvidence(p, dir)
			assert.Empty(t, ev.Err)
			sum, size := fileSum(t, p)
			assert.Equal(t, sum, ev.SHA256)
			assert.Equal(t, size, ev.Bytes)
			assert.Equal(t, count(0), ev.Total, "the attributes are not test cases")
			assert.Equal(t, count(0), ev.Failing)

			v := testrun.CheckToolResult(toolResult(t, p, 0, 0, 0), ev)
			assert.False(t, v.Accepted, "a tool that ran nothing is not 0 failures")
			assert.Contains(t, strings.Join(v.Reasons, "\n"), "holds no test case")
			v = testrun.CheckToolResult(toolResult(t, p, 2, 3, 0), ev)
			assert.False(t, v.Accepted, "nor what its attributes claim")
		})
	}

	t.Run("a real runner's report (pytest xunit2)", func(t *testing.T) {
		p := filepath.Join(moduleRoot(t), "testdata", "runners", "pytest", "reports", "pytest-xunit2.xml")
		ev := report.ToolEvidence(p, filepath.Dir(p))
		require.Empty(t, ev.Err)
		sum, size := fileSum(t, p)
		assert.Equal(t, sum, ev.SHA256)
		assert.Equal(t, size, ev.Bytes)
		// pytest's own suite attributes: tests="18" failures="5" errors="1" skipped="2".
		assert.Equal(t, count(18), ev.Total)
		assert.Equal(t, count(10), ev.Passed)
		assert.Equal(t, count(6), ev.Failing)
		assert.Equal(t, count(2), ev.Skipped)
	})

	t.Run("a real passing report is accepted, and only with its own counts", func(t *testing.T) {
		p := filepath.Join(moduleRoot(t), "testdata", "runners", "ant", "reports", "TEST-calc.SeparatorTest.xml")
		ev := report.ToolEvidence(p, filepath.Dir(p))
		require.Empty(t, ev.Err)
		assert.Equal(t, count(3), ev.Total)
		v := testrun.CheckToolResult(toolResult(t, p, 3, 0, 0), ev)
		assert.True(t, v.Accepted, "%q", v.Reasons)
		v = testrun.CheckToolResult(toolResult(t, p, 999, 0, 0), ev)
		assert.Equal(t, []string{"the JUnit file has 3 passed tests, the result says passed 999"}, v.Reasons)
		v = testrun.CheckToolResult(toolResult(t, p, 2, 0, 1), ev)
		assert.False(t, v.Accepted)
		assert.Contains(t, v.Reasons, "the JUnit file has 0 skipped tests, the result says skipped 1")
	})

	t.Run("unreadable files leave every count unknown", func(t *testing.T) {
		for name, tc := range map[string]struct{ path, err string }{
			"missing":  {filepath.Join(dir, "gone.xml"), "does not exist"},
			"coverage": {filepath.Join(moduleRoot(t), "testdata", "runners", "pytest", "reports", "coverage.xml"), "is a coverage report"},
			"go test -json, whatever its name": {write("g.xml", `{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"pass","Package":"p","Elapsed":0}
`), "is a go test -json stream"},
			"broken": {write("broken.xml", `<testsuite><testcase name="a">`), ""},
		} {
			t.Run(name, func(t *testing.T) {
				ev := report.ToolEvidence(tc.path, dir)
				require.NotEmpty(t, ev.Err)
				assert.Contains(t, ev.Err, tc.err)
				assert.Nil(t, ev.Total)
				assert.Nil(t, ev.Passed)
				assert.Nil(t, ev.Failing)
				assert.Nil(t, ev.Skipped)
				assert.False(t, testrun.CheckToolResult(toolResult(t, write("any.xml", "x"), 0, 0, 0), ev).Accepted)
			})
		}
	})

	t.Run("empty", func(t *testing.T) {
		ev := report.ToolEvidence(write("empty.xml", ""), dir)
		assert.Empty(t, ev.Err)
		assert.Zero(t, ev.Bytes)
		assert.Nil(t, ev.Total)
	})
}
