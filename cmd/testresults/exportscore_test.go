package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// seedScores records two runs of acme/api in a SQLite store: t passes on
// tree T1 and then fails on it (a same-tree flip), u fails on both. It
// returns the store's environment and the failing run's file.
func seedScores(t *testing.T) (map[string]string, string) {
	t.Helper()
	dir := t.TempDir()
	vars := map[string]string{"HANGAR_STORE": filepath.Join(dir, "store.db"), "HOME": dir}
	pass1 := writeRun(t, dir, "pass1", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed, "u": failed})
	fail1 := writeRun(t, dir, "fail1", testrun.KindRerun, "T1", map[string]testrun.Outcome{"t": failed, "u": failed})
	code, _, errs := runCmdEnv(t, vars, "flaky", "record", "--record", "--repo", "acme/api", pass1, fail1)
	require.Equal(t, exitOK, code, errs)
	return vars, fail1
}

// TestPacketShowsScores: `packet --repo` shows each failing test's
// flakiness score from the stored history next to it; the counts and the
// failures are those of the packet without a store.
func TestPacketShowsScores(t *testing.T) {
	vars, fail1 := seedScores(t)
	code, out, errs := runCmdEnv(t, vars, "packet", "--repo", "acme/api", fail1)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "**failed**: t\n\nFlakiness score: failure rate 0\\.50 over 2 outcomes\\, 1 flips in the last 2 runs\n")
	assert.Contains(t, out, "**failed**: u\n\nFlakiness score: no failure\\-rate evidence\\, 0 flips in the last 2 runs\n")

	code, plain, errs := runCmdEnv(t, map[string]string{"HOME": t.TempDir()}, "packet", fail1)
	require.Equal(t, exitOK, code, errs)
	assert.NotContains(t, plain, "Flakiness score")
	first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
	assert.Equal(t, first(plain), first(out), "the headline (counts) is the same")
}

// TestExportCarriesScores: with a named store, export finds the
// repository the store recorded the run under and puts each failing
// test's score on its test.case event; --repo names it directly; without
// a store named, nothing is read and no score is written; the span's
// status and the run's counts are the same either way.
func TestExportCarriesScores(t *testing.T) {
	vars, fail1 := seedScores(t)
	export := func(vars map[string]string, args ...string) string {
		t.Helper()
		code, out, errs := runCmdEnv(t, vars, append([]string{"export", "--format", "otlp-json", "-q"}, args...)...)
		require.Equal(t, exitOK, code, errs)
		// Runs without times are stamped with the clock: times aside.
		return regexp.MustCompile(`(?i)TimeUnixNano":"\d+"`).ReplaceAllString(out, `TimeUnixNano":"0"`)
	}
	stored := export(vars, fail1)
	assert.Equal(t, 2, strings.Count(stored, `"key":"hangar.test.flakiness.evidence"`), stored)
	assert.Contains(t, stored, `{"key":"hangar.test.flakiness.failure_rate","value":{"doubleValue":0.5}},{"key":"hangar.test.flakiness.evidence","value":{"intValue":"2"}},{"key":"hangar.test.flakiness.flip_rate","value":{"doubleValue":1}},{"key":"hangar.test.flakiness.flip_window_runs","value":{"intValue":"2"}}`)

	named := export(map[string]string{"HOME": vars["HOME"]}, "--repo", "acme/api", "--store", vars["HANGAR_STORE"], fail1)
	assert.Equal(t, stored, named)
	other := export(map[string]string{"HOME": vars["HOME"]}, "--repo", "acme/web", "--store", vars["HANGAR_STORE"], fail1)
	assert.Equal(t, 2, strings.Count(other, `"key":"hangar.test.flakiness.evidence","value":{"intValue":"0"}`), "another repository's history holds none of it")

	bare := export(map[string]string{"HOME": t.TempDir()}, fail1)
	assert.NotContains(t, bare, "hangar.test.flakiness")
	strip := func(s string) string {
		for _, k := range []string{"failure_rate", "evidence", "flip_rate", "flip_window_runs"} {
			for {
				i := strings.Index(s, `,{"key":"hangar.test.flakiness.`+k+`"`)
				if i < 0 {
					break
				}
				j := strings.Index(s[i+1:], "}}") + i + 3
				s = s[:i] + s[j:]
			}
		}
		return s
	}
	assert.Equal(t, bare, strip(stored), "the scores only add attributes")
}

// TestScoresPerEnvironment: the same test recorded flipping on one tree in
// one environment (macos) and passing twice, then failing on a new tree,
// in another (linux) is scored apart: `flaky list` scores each entry from
// its own environment's history, `packet --repo --env` from the named
// environment's (the default one without --env, which holds none of it),
// and export from the environment the store recorded the run for; runs
// of two environments exported together are scored by neither.
func TestScoresPerEnvironment(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HANGAR_STORE": filepath.Join(dir, "store.db"), "HOME": dir}
	record := func(env string, runs ...string) {
		t.Helper()
		code, _, errs := runCmdEnv(t, vars, append([]string{"flaky", "record", "--record", "--repo", "acme/api", "--env", env}, runs...)...)
		require.Equal(t, exitOK, code, errs)
	}
	macFail := writeRun(t, dir, "mac-fail", testrun.KindRerun, "T1", map[string]testrun.Outcome{"t": failed})
	record("macos", writeRun(t, dir, "mac-pass", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed}), macFail)
	linFail := writeRun(t, dir, "lin-fail", testrun.KindRerun, "T2", map[string]testrun.Outcome{"t": failed})
	record("linux", writeRun(t, dir, "lin-pass1", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed}),
		writeRun(t, dir, "lin-pass2", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed}), linFail)

	code, out, errs := runCmdEnv(t, vars, "flaky", "list", "--json")
	require.Equal(t, exitOK, code, errs)
	var listed []struct {
		Environment string `json:"environment"`
		TestID      string `json:"test_id"`
		Score       *struct {
			Evidence int `json:"evidence"`
			Flips    int `json:"flips"`
		} `json:"score"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &listed), out)
	require.Len(t, listed, 1, "only macOS saw t flip on a tree")
	assert.Equal(t, "macos", listed[0].Environment)
	require.NotNil(t, listed[0].Score)
	assert.Equal(t, 1, listed[0].Score.Flips, "macOS's two runs, not linux's three")
	assert.Equal(t, 2, listed[0].Score.Evidence)

	packet := func(args ...string) string {
		t.Helper()
		code, out, errs := runCmdEnv(t, vars, append([]string{"packet", "--repo", "acme/api"}, args...)...)
		require.Equal(t, exitOK, code, errs)
		return out
	}
	assert.Contains(t, packet("--env", "macos", macFail), "Flakiness score: failure rate 0\\.50 over 2 outcomes\\, 1 flips in the last 2 runs\n")
	assert.Contains(t, packet("--env", "linux", linFail), "Flakiness score: no failure\\-rate evidence\\, 1 flips in the last 3 runs\n", "linux's three runs, on two trees")
	assert.Contains(t, packet(linFail), "Flakiness score: no failure\\-rate evidence\\, 0 flips in the last 0 runs\n", "the default environment has no history of t")

	export := func(runs ...string) string {
		t.Helper()
		code, out, errs := runCmdEnv(t, vars, append([]string{"export", "--format", "otlp-json", "-q"}, runs...)...)
		require.Equal(t, exitOK, code, errs)
		return out
	}
	assert.Contains(t, export(macFail), `{"key":"hangar.test.flakiness.evidence","value":{"intValue":"2"}},{"key":"hangar.test.flakiness.flip_rate","value":{"doubleValue":1}},{"key":"hangar.test.flakiness.flip_window_runs","value":{"intValue":"2"}}`)
	assert.Contains(t, export(linFail), `{"key":"hangar.test.flakiness.evidence","value":{"intValue":"0"}},{"key":"hangar.test.flakiness.flip_rate","value":{"doubleValue":0.5}},{"key":"hangar.test.flakiness.flip_window_runs","value":{"intValue":"3"}}`)
	both := export(macFail, linFail)
	assert.Contains(t, both, `"hangar.test.outcome"`)
	assert.NotContains(t, both, "hangar.test.flakiness", "no one environment's history scores them")
}
