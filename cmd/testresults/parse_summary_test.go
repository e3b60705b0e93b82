package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSummary(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good")
	require.NoError(t, os.Mkdir(good, 0o755))
	writeReport(t, good, "junit.xml", junitDoc)
	empty := writeReport(t, dir, "empty.xml", "")
	missing := filepath.Join(dir, "nope")
	evil := writeReport(t, dir, "evil\x1b[2J.xml", "")

	tests := []struct {
		name    string
		args    []string
		want    []string
		wantNot []string
	}{
		{
			name: "incomplete run",
			args: []string{"parse", good, empty, missing},
			want: []string{
				"incomplete (3 reports, 2 refused or partly read)",
				"3 tests: 1 passed, 1 failed, 0 errors, 1 skipped",
				"failed pkg.T::bad",
				"incomplete: " + empty + ": ",
				"incomplete: " + missing + ": ",
			},
		},
		{
			name:    "complete run",
			args:    []string{"parse", good},
			want:    []string{"complete (1 report, 0 refused or partly read)", "3 tests: 1 passed"},
			wantNot: []string{"incomplete"},
		},
		{
			name:    "names escaped",
			args:    []string{"parse", good, evil},
			want:    []string{`evil\x1b[2J.xml`},
			wantNot: []string{"\x1b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCmd(t, tt.args...)
			require.Equal(t, exitOK, code, stderr)
			var run map[string]any
			require.NoError(t, json.Unmarshal([]byte(out), &run), "stdout holds only the run")
			for _, w := range tt.want {
				assert.Contains(t, stderr, w)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, stderr, w)
			}
			reasons, _ := run["incomplete_reasons"].([]any)
			for _, r := range reasons {
				assert.Contains(t, stderr, "incomplete: "+escapeControl(r.(string)), "every reason is on stderr")
			}

			for _, q := range []string{"-q", "--quiet"} {
				qcode, qout, qerr := runCmd(t, append([]string{tt.args[0], q}, tt.args[1:]...)...)
				assert.Equal(t, code, qcode)
				assert.Equal(t, out, qout, "%s leaves stdout as it was", q)
				assert.Empty(t, qerr, "%s silences the summary", q)
			}
		})
	}
}

// The summary goes to stderr also when nothing could be read, beside the
// reasons parse already gave there.
func TestParseSummaryNothingRead(t *testing.T) {
	dir := t.TempDir()
	empty := writeReport(t, dir, "empty.xml", "")
	code, out, stderr := runCmd(t, "parse", empty)
	require.Equal(t, exitRejected, code)
	assert.NotEmpty(t, out)
	assert.Contains(t, stderr, "no test counts: nothing was counted")
	assert.Contains(t, stderr, "incomplete: "+empty)
}

// TestParseSummaryNotRun: the summary names the first expected tests that
// never ran, escaped, and counts the rest.
func TestParseSummaryNotRun(t *testing.T) {
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	var b strings.Builder
	b.WriteString("pkg.T::ok\npkg.T::evil\x1b[2J\n")
	for i := range 300 {
		fmt.Fprintf(&b, "pkg.U::never_%03d\n", i)
	}
	expected := writeReport(t, dir, "expected.txt", b.String())
	code, _, stderr := runCmd(t, "parse", "--expect-ids", expected, report)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "not run pkg.T::evil\\x1b[2J\n")
	assert.NotContains(t, stderr, "\x1b")
	assert.Contains(t, stderr, "not run pkg.U::never_008\n")
	assert.NotContains(t, stderr, "never_009", "the first ten are named")
	assert.Contains(t, stderr, "... 291 more expected tests that never ran (not_run in the run on stdout)")
	assert.Contains(t, stderr, "incomplete: 301 expected tests never ran")
}
