package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/textout"
)

// runCmdEnv runs the CLI with the given environment variables.
func runCmdEnv(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, Env{
		Stdin:   bytes.NewReader(nil),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return nil },
	})
	return code, out.String(), errb.String()
}

func TestFlakyCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	vars := map[string]string{"HANGAR_STORE": db}
	flaky := func(args ...string) (int, string, string) {
		t.Helper()
		return runCmdEnv(t, vars, append([]string{"flaky"}, args...)...)
	}

	before := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	pass1 := writeRun(t, dir, "pass1", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed, "u": passed}, "retried")
	fail1 := writeRun(t, dir, "fail1", testrun.KindRerun, "T1", map[string]testrun.Outcome{"t": failed, "u": passed})
	gate := writeRun(t, dir, "gate1", testrun.KindGate, "T1", map[string]testrun.Outcome{"u": failed})

	code, out, errs := flaky("record", "--repo", "acme/api", "--env", "linux", pass1, fail1, gate)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "pass1: 3 outcomes observed, 1 flaky: retried")
	assert.Contains(t, out, "fail1: 2 outcomes observed, 1 flaky: t")
	assert.Contains(t, out, `gate1: not recorded: testrun: run does not add to the flaky list: run "gate1" is a gate run`)

	code, out, _ = flaky("list", "--json")
	require.Equal(t, exitOK, code)
	var entries []testrun.FlakyEntry
	require.NoError(t, json.Unmarshal([]byte(out), &entries))
	require.Len(t, entries, 2)
	assert.Equal(t, "retried", entries[0].TestID)
	assert.Equal(t, []testrun.FlakyHow{testrun.FlakyRunnerRetry}, entries[0].How)
	assert.Equal(t, "t", entries[1].TestID)
	assert.Equal(t, []string{"pass1", "fail1"}, entries[1].Seen[0].Runs)
	assert.Equal(t, "linux", entries[1].Environment)

	code, out, _ = flaky("list", "--env", "mac")
	assert.Equal(t, exitOK, code)
	assert.Equal(t, "no flaky tests\n", out)

	after := time.Now().Add(time.Hour).UTC().Format(time.RFC3339)
	check := writeRun(t, dir, "check", testrun.KindAfterTurn, "T2", map[string]testrun.Outcome{"t": failed, "u": passed})
	t.Run("check: transient when every failure was on the list before the job", func(t *testing.T) {
		code, out, errs := flaky("check", "--repo", "acme/api", "--env", "linux", "--job-start", after, check)
		assert.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "check: transient")
	})
	t.Run("check: the job's own sightings do not excuse", func(t *testing.T) {
		code, out, _ := flaky("check", "--repo", "acme/api", "--env", "linux", "--job-start", before, "--json", check)
		assert.Equal(t, exitFailed, code)
		var res textout.FlakyCheck
		require.NoError(t, json.Unmarshal([]byte(out), &res))
		assert.False(t, res.Transient)
		require.Len(t, res.Failures, 1)
		assert.False(t, res.Failures[0].Excused)
		assert.NotNil(t, res.Failures[0].Entry)
	})
	t.Run("check: another failure", func(t *testing.T) {
		other := writeRun(t, dir, "other", testrun.KindAfterTurn, "T2", map[string]testrun.Outcome{"t": failed, "u": failed})
		code, out, _ := flaky("check", "--repo", "acme/api", "--env", "linux", "--job-start", after, other)
		assert.Equal(t, exitFailed, code)
		assert.Contains(t, out, "u: not excused")
	})

	t.Run("check: on a red base only the new failures need an excuse", func(t *testing.T) {
		red := writeRun(t, dir, "red", testrun.KindBase, "T3", map[string]testrun.Outcome{"t": passed, "u": failed})
		both := writeRun(t, dir, "both", testrun.KindAfterTurn, "T4", map[string]testrun.Outcome{"t": failed, "u": failed})
		code, out, _ := flaky("check", "--repo", "acme/api", "--env", "linux", "--job-start", after, both)
		assert.Equal(t, exitFailed, code, "without the base, u needs an excuse too")
		assert.Contains(t, out, "u: not excused")
		code, out, errs := flaky("check", "--repo", "acme/api", "--env", "linux", "--job-start", after, "--base", red, both)
		assert.Equal(t, exitOK, code, errs)
		assert.Contains(t, out, "both: transient")
		assert.NotContains(t, out, "u:", "the base's own failure is not asked about")
		code, _, _ = flaky("list", "--base", red)
		assert.Equal(t, exitUsage, code, "--base is for check")
	})

	code, out, _ = flaky("summary")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "acme/api")
	assert.Contains(t, out, "2 flaky")

	code, out, _ = flaky("prune", "--json")
	assert.Equal(t, exitOK, code)
	assert.JSONEq(t, `{"pruned": 0}`, out, "nothing is 30 days old")

	for name, args := range map[string][]string{
		"no subcommand":         {},
		"unknown subcommand":    {"forget"},
		"record without repo":   {"record", pass1},
		"check without start":   {"check", "--repo", "r", check},
		"check bad start":       {"check", "--repo", "r", "--job-start", "yesterday", check},
		"list with an argument": {"list", pass1},
	} {
		t.Run("usage: "+name, func(t *testing.T) {
			code, _, errs := flaky(args...)
			assert.Equal(t, exitUsage, code, errs)
		})
	}
	t.Run("no store location", func(t *testing.T) {
		code, _, errs := runCmdEnv(t, nil, "flaky", "list")
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, errs, "set --store, HANGAR_STORE or HOME")
	})
	t.Run("HOME default", func(t *testing.T) {
		home := t.TempDir()
		code, _, errs := runCmdEnv(t, map[string]string{"HOME": home}, "flaky", "list")
		assert.Equal(t, exitOK, code, errs)
		assert.FileExists(t, filepath.Join(home, ".hangar", "store.db"))
	})
}

// TestFlakyListScore: each entry of `flaky list` carries its test's
// flakiness score from the stored history, in JSON and in text.
func TestFlakyListScore(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HANGAR_STORE": filepath.Join(dir, "store.db")}
	pass1 := writeRun(t, dir, "pass1", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed})
	fail1 := writeRun(t, dir, "fail1", testrun.KindRerun, "T1", map[string]testrun.Outcome{"t": failed})
	code, _, errs := runCmdEnv(t, vars, "flaky", "record", "--record", "--repo", "acme/api", pass1, fail1)
	require.Equal(t, exitOK, code, errs)

	code, out, errs := runCmdEnv(t, vars, "flaky", "list", "--json")
	require.Equal(t, exitOK, code, errs)
	var entries []struct {
		TestID string          `json:"test_id"`
		Score  json.RawMessage `json:"score"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &entries))
	require.Len(t, entries, 1)
	assert.Equal(t, "t", entries[0].TestID)
	var score map[string]any
	require.NoError(t, json.Unmarshal(entries[0].Score, &score))
	assert.Equal(t, map[string]any{"failure_rate": 0.5, "evidence": 2.0, "flip_rate": 1.0, "flips": 1.0, "flip_window_runs": 2.0}, score)

	code, out, errs = runCmdEnv(t, vars, "flaky", "list")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "\tfails 50% of 2 · 1 flips/2\n")
}
