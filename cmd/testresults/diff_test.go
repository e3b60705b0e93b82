package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

const (
	passed  = testrun.OutcomePassed
	failed  = testrun.OutcomeFailed
	errored = testrun.OutcomeError
)

func TestDiff(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, dir, "base", testrun.KindBase, "T", map[string]testrun.Outcome{"a": failed, "b": passed, "c": passed})
	after := writeRun(t, dir, "after", testrun.KindAfterTurn, "T", map[string]testrun.Outcome{"a": passed, "b": errored, "c": passed}, "f")
	same := writeRun(t, dir, "same", testrun.KindAfterTurn, "T", map[string]testrun.Outcome{"a": failed, "b": passed, "c": passed})

	t.Run("new failures exit 1, with a table for people", func(t *testing.T) {
		code, out, errs := runCmd(t, "diff", base, after)
		assert.Equal(t, exitFailed, code, errs)
		assert.Contains(t, out, "new failures (1):")
		assert.Contains(t, out, "error   b — b broke")
		assert.Contains(t, out, "fixed (1): a")
		assert.Contains(t, out, "flaky (1): f")
		assert.Contains(t, out, "coverage delta: unknown")
	})
	t.Run("--json", func(t *testing.T) {
		code, out, _ := runCmd(t, "diff", "--json", base, after)
		assert.Equal(t, exitFailed, code)
		var doc map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &doc))
		assert.Equal(t, true, doc["available"])
		assert.Equal(t, []any{"a"}, doc["fixed"])
		assert.Len(t, doc["new_failures"], 1)
		assert.Nil(t, doc["coverage_delta"])
	})
	t.Run("nothing new exits 0", func(t *testing.T) {
		code, out, errs := runCmd(t, "diff", base, same)
		assert.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "new failures: none")
	})
	t.Run("unavailable exits 1 with the reason", func(t *testing.T) {
		var r testrun.Run
		data, err := os.ReadFile(same)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &r))
		r.ID, r.Complete, r.IncompleteReasons = "partial", false, []string{"r.xml: limit"}
		data, err = json.Marshal(r)
		require.NoError(t, err)
		partial := filepath.Join(dir, "partial.json")
		require.NoError(t, os.WriteFile(partial, data, 0o644))
		code, out, _ := runCmd(t, "diff", base, partial)
		assert.Equal(t, exitFailed, code)
		assert.Contains(t, out, `comparison unavailable: after: testrun: comparison unavailable: run "partial" is incomplete`)
		code, out, _ = runCmd(t, "diff", "--json", base, partial)
		assert.Equal(t, exitFailed, code)
		assert.Contains(t, out, `"new_failures": null`)
	})
	t.Run("output fallback", func(t *testing.T) {
		outFile := filepath.Join(dir, "after.log")
		require.NoError(t, os.WriteFile(outFile, []byte("=== RUN   TestX\n--- FAIL: TestX (0.01s)\nFAIL\n"), 0o644))
		baseLog := filepath.Join(dir, "base.log")
		require.NoError(t, os.WriteFile(baseLog, []byte("ok\n"), 0o644))
		code, out, _ := runCmd(t, "diff", "--base-output", baseLog, "--after-output", outFile, base, same)
		assert.Equal(t, exitFailed, code)
		assert.Contains(t, out, `the check's output names a failing test that the base's output did not: "TestX" (go line "--- FAIL: TestX (0.01s)")`)
	})
	for name, args := range map[string][]string{
		"one run":           {"diff", base},
		"three runs":        {"diff", base, after, same},
		"base output alone": {"diff", "--base-output", "x", base, after},
		"both from stdin":   {"diff", "-", "-"},
		"unknown flag":      {"diff", "--nope", base, after},
	} {
		t.Run("usage: "+name, func(t *testing.T) {
			code, _, errs := runCmd(t, args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errs, "Usage: testresults diff")
		})
	}
	t.Run("unreadable run exits 3", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		require.NoError(t, os.WriteFile(bad, []byte(`{"id": "x", "counts": {"total": 1}}`), 0o644))
		code, _, errs := runCmd(t, "diff", base, bad)
		assert.Equal(t, exitRejected, code)
		assert.Contains(t, errs, "testresults diff: after:")
		code, _, _ = runCmd(t, "diff", base, filepath.Join(dir, "absent.json"))
		assert.Equal(t, exitRejected, code)
	})
	t.Run("ids from reports cannot drive the terminal", func(t *testing.T) {
		evil := writeRun(t, dir, "evil", testrun.KindAfterTurn, "T", map[string]testrun.Outcome{"a": failed, "b": passed, "c": passed, "x\x1b[2Jy": failed})
		code, out, _ := runCmd(t, "diff", base, evil)
		assert.Equal(t, exitFailed, code)
		assert.NotContains(t, out, "\x1b[2J")
		assert.Contains(t, out, `x\x1b[2Jy`)
	})
	t.Run("help", func(t *testing.T) {
		code, out, _ := runCmd(t, "diff", "--help")
		assert.Equal(t, exitOK, code)
		assert.Contains(t, out, "Exit codes: 0 the comparison is exact")
	})
}

// TestEveryReaderTakesTestResults: the TEST-RESULTS.json that `run
// --base-run` writes is read by diff, packet, export and flaky record as
// the run.json beside it is, with the same result; its run part is
// run.json's, key for key; and one with a key no writer writes is refused
// by each of them.
func TestEveryReaderTakesTestResults(t *testing.T) {
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.json")
	code, out, stderr := runCmd(t, "parse", "--kind", "base", "--id", "base-1", writeReport(t, dir, "base.xml", baseReport))
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, os.WriteFile(basePath, []byte(out), 0o644))
	outDir := filepath.Join(dir, "out")
	code, _, stderr = runInProc(t, nil, "--out", outDir, "--kind", "after_turn", "--base-run", basePath,
		"--", "cp", writeReport(t, dir, "after.xml", afterReport), filepath.Join(outDir, "after.xml"))
	require.Equal(t, exitOK, code, stderr)
	results := filepath.Join(outDir, "TEST-RESULTS.json")
	runFile := filepath.Join(outDir, "run.json")
	rb, err := os.ReadFile(results)
	require.NoError(t, err)
	runb, err := os.ReadFile(runFile)
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(string(rb), strings.TrimSuffix(string(runb), "\n}\n")+",\n  \"base_id\": "),
		"the run's keys open TEST-RESULTS.json, as run.json holds them, and the comparison follows:\n%s", rb)

	forged := filepath.Join(dir, "forged.json")
	require.NoError(t, os.WriteFile(forged, []byte(strings.Replace(string(rb), `"base_id":`, `"verdict": "pass", "base_id":`, 1)), 0o644))

	readers := []struct {
		name string
		args func(in, scratch string) []string
		// result is what the command made: stdout, or the file it wrote.
		result func(stdout, scratch string) string
	}{
		{"diff", func(in, _ string) []string { return []string{"diff", "--json", basePath, in} },
			func(stdout, _ string) string { return stdout }},
		{"packet", func(in, _ string) []string { return []string{"packet", "--base", basePath, in} },
			func(stdout, _ string) string { return stdout }},
		{"export", func(in, scratch string) []string {
			return []string{"export", "--format", "otlp-json", "-o", filepath.Join(scratch, "spans.json"), in}
		}, func(_, scratch string) string {
			b, err := os.ReadFile(filepath.Join(scratch, "spans.json"))
			require.NoError(t, err)
			return string(b)
		}},
		{"flaky record", func(in, scratch string) []string {
			return []string{"flaky", "record", "--store", filepath.Join(scratch, "store.db"), "--repo", "acme/api", in}
		}, func(stdout, _ string) string { return stdout }},
	}
	for _, r := range readers {
		t.Run(r.name, func(t *testing.T) {
			got := map[string]string{}
			for _, in := range []string{runFile, results} {
				scratch := t.TempDir()
				code, stdout, stderr := runCmd(t, r.args(in, scratch)...)
				require.NotEqual(t, exitRejected, code, "%s refused: %s", in, stderr)
				assert.NotContains(t, stderr, "unknown field")
				got[filepath.Base(in)] = r.result(stdout, scratch)
			}
			assert.NotEmpty(t, got["run.json"])
			assert.Equal(t, got["run.json"], got["TEST-RESULTS.json"], "the same result from either file")

			code, _, stderr := runCmd(t, r.args(forged, t.TempDir())...)
			assert.Equal(t, exitRejected, code, "a forged key is refused")
			assert.Contains(t, stderr, `unknown field "verdict"`)
		})
	}
}

// TestDiffFailureLines: diff's new failures from a real gotestsum report
// say what failed (not gotestsum's "Failed") and how to rerun each one.
func TestDiffFailureLines(t *testing.T) {
	dir := t.TempDir()
	base := writeRun(t, dir, "base", testrun.KindBase, "T", map[string]testrun.Outcome{"x": passed})
	project, err := filepath.Abs(filepath.Join("..", "..", "testdata", "runners", "go"))
	require.NoError(t, err)
	t.Chdir(project)
	code, out, stderr := runCmd(t, "parse", "--kind", "after_turn", "--id", "after", "reports/gotestsum.xml")
	require.Equal(t, exitOK, code, stderr)
	after := filepath.Join(dir, "after.json")
	require.NoError(t, os.WriteFile(after, []byte(out), 0o644))

	code, out, _ = runCmd(t, "diff", base, after)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, out, "  failed  example.com/runnersample/calc::TestFailure — calc_test.go:18: total mismatch: want 5 got 4\n"+
		"          rerun: go test -count=1 -run '^TestFailure$' ./calc\n")
	assert.NotContains(t, out, "— Failed")
}
