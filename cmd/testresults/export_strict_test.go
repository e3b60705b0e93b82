package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runWith returns the run of exportRun with its first old replaced by new
// (the run unchanged when old is "").
func runWith(t testing.TB, old, new string) string {
	t.Helper()
	b, err := os.ReadFile(exportRun)
	require.NoError(t, err)
	if old == "" {
		return string(b)
	}
	require.Contains(t, string(b), old)
	return strings.Replace(string(b), old, new, 1)
}

const exportCounts = `"counts": {"total": 9, "passed": 4, "failed": 3, "errors": 1, "skipped": 1, "flaky": 2}`

// TestExportRefusesHostileRuns: a run file that is not exactly the run's
// JSON form, or that contradicts itself, is refused with exit 3 and the
// reason on stderr, whether it is a run, stdin or the base run, and nothing
// is exported.
func TestExportRefusesHostileRuns(t *testing.T) {
	clearExportEnv(t)
	tests := []struct {
		name     string
		old, new string
		want     string
	}{
		{"missing counts are not zero", "", `{"id":"x","kind":"after_turn","counts":{"total":5,"passed":5},"complete":true}`,
			`counts: missing "failed", "errors", "skipped", "flaky"`},
		{"count missing", `"errors": 1, `, ``, `counts: missing "errors"`},
		{"count null", `"errors": 1`, `"errors": null`, `counts.errors is null`},
		{"count float", `"passed": 4`, `"passed": 4.0`, `counts.passed is 4.0, want an integer`},
		{"count string", `"passed": 4`, `"passed": "4"`, `counts.passed is a string, want an integer`},
		{"duplicate kind", `"kind": "after_turn"`, `"kind": "gate", "kind": "after_turn"`, `key "kind" given twice`},
		{"case variant of kind", `"kind": "after_turn"`, `"kind": "gate", "KIND": "base"`, `key "KIND" differs only in case from "kind"`},
		{"unknown field", `"id": "run-e2e-1"`, `"id": "run-e2e-1", "verified": true`, `unknown field "verified"`},
		{"case variant of a count", `"passed": 4`, `"passed": 4, "PASSED": 9`, `key "counts.PASSED" differs only in case`},
		{"duplicate in a failure", `"outcome": "error"`, `"outcome": "error", "outcome": "passed"`, `key "failures[2].outcome" given twice`},
		{"unknown field in a report", `"tests": 9, `, `"tests": 9, "trusted": true, `, `unknown field "reports[0].trusted"`},
		{"case variant in coverage", `"line_rate": 0.734`, `"line_rate": 0.734, "LINE_RATE": 1`, `key "coverage.LINE_RATE" differs only in case`},
		{"duplicate case id", `"tests/test_users.py::test_sso": "skipped"`, `"tests/test_users.py::test_sso": "skipped", "tests/test_users.py::test_sso": "passed"`, `given twice`},
		{"trusted missing", `"trusted": true,`, ``, `missing "trusted"`},
		{"counted missing", `"counted": true,`, ``, `missing "counted"`},
		{"complete with reasons", `"incomplete_reasons": []`, `"incomplete_reasons": ["junit.xml: larger than 8 MiB"]`, `complete is true beside incomplete_reasons`},
		{"complete with a refused report", `"tests": 9, "error": null`, `"tests": 9, "error": "larger than 8 MiB"`, `complete is true beside report "pytest.xml" refused`},
		{"more failing cases than counted", `"tests/test_users.py::test_sso": "skipped"`, `"tests/test_users.py::test_sso": "error"`, `cases hold 5 failing ids, more than failed + errors (4)`},
		{"failures without counts", exportCounts, `"counts": null`, `counts are null but failures, cases or flaky are not empty`},
		{"forged trusted", `"kind": "after_turn"`, `"kind": "gate"`, `forged`},
		{"forged counted", `"counted": true`, `"counted": false`, `forged`},
		{"invalid UTF-8", `"command": "pytest`, "\"command\": \"\xffpytest", `not valid UTF-8`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := tt.new
			if tt.old != "" {
				body = runWith(t, tt.old, tt.new)
			}
			path := filepath.Join(t.TempDir(), "run.json")
			require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
			for _, args := range [][]string{{path}, {"-"}, {"--base-run", path, exportRun}} {
				out := filepath.Join(t.TempDir(), "out.json")
				code, stdout, stderr := exportCmd(t, nil, body, append([]string{"--format", "otel", "-o", out}, args...)...)
				assert.Equal(t, exitRejected, code, "%v: %s", args, stderr)
				assert.Contains(t, stderr, "invalid run", args)
				assert.Contains(t, stderr, tt.want, args)
				assert.Empty(t, stdout, args)
				assert.NoFileExists(t, out, "nothing is exported")
			}
		})
	}
}

// TestExportReadsExactForm is the control of TestExportRefusesHostileRuns:
// the unchanged run, given the same three ways, exports.
func TestExportReadsExactForm(t *testing.T) {
	clearExportEnv(t)
	body := runWith(t, "", "")
	for _, args := range [][]string{{exportRun}, {"-"}, {"--base-run", exportBase, exportRun}} {
		out := filepath.Join(t.TempDir(), "out.json")
		code, _, stderr := exportCmd(t, nil, body, append([]string{"--format", "otel", "-o", out}, args...)...)
		assert.Equal(t, exitOK, code, "%v: %s", args, stderr)
		assert.FileExists(t, out)
	}
}
