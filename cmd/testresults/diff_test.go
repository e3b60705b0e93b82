package main

import (
	"encoding/json"
	"os"
	"path/filepath"
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
