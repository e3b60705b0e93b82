package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPruneCommand(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, ".hangar", "tests")
	old := filepath.Join(root, "old")
	mid := filepath.Join(root, "mid")
	for dir, started := range map[string]string{old: "2026-01-01T00:00:00Z", mid: "2026-01-10T00:00:00Z"} {
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "TEST-RESULTS.json"),
			[]byte(`{"id":"x","kind":"after_turn","started_at":"`+started+`","cases":{"a":"passed"}}`), 0o644))
	}
	var out, errb bytes.Buffer
	env := Env{Stdout: &out, Stderr: &errb, Getenv: func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}}
	code := run(context.Background(), []string{"prune", "--now", "2026-01-16T00:00:00Z"}, env)
	require.Equal(t, exitOK, code, errb.String())
	var got struct {
		Removed      []string `json:"removed"`
		CasesDropped []string `json:"cases_dropped"`
	}
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	assert.Equal(t, []string{old}, got.Removed)
	assert.Equal(t, []string{filepath.Join(mid, "TEST-RESULTS.json")}, got.CasesDropped)
	assert.Contains(t, errb.String(), "removed "+old)
	assert.Contains(t, errb.String(), "1 run folders removed, 1 per-case maps dropped")

	for _, args := range [][]string{{"--now", "yesterday"}, {"extra"}, {"--nope"}} {
		code := run(context.Background(), append([]string{"prune"}, args...), env)
		assert.Equal(t, exitUsage, code, "%v", args)
	}
	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(root, link))
	assert.Equal(t, exitFailed, run(context.Background(), []string{"prune", "--dir", link}, env))
}

// TestPruneStore: runs recorded by parse --record are removed from the
// store by prune --store once past their retention, and kept before it.
func TestPruneStore(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	runs := filepath.Join(dir, "tests")
	require.NoError(t, os.MkdirAll(runs, 0o755))
	report := writeReport(t, dir, "junit.xml", junitDoc)
	code, _, stderr := runCmd(t, "parse", "--kind", "base", "--record", "--store", db, "--job-id", "job-1", report)
	require.Equal(t, exitOK, code, stderr)

	prune := func(now string) map[string]any {
		t.Helper()
		code, out, stderr := runCmd(t, "prune", "--dir", runs, "--store", db, "--now", now)
		require.Equal(t, exitOK, code, stderr)
		var got map[string]any
		require.NoError(t, json.Unmarshal([]byte(out), &got))
		return got
	}
	soon := time.Now().Add(24 * time.Hour).UTC().Format(time.RFC3339)
	assert.Equal(t, map[string]any{"runs": 0.0, "cases": 0.0}, prune(soon)["store"], "a day later the base run keeps its cases")
	later := time.Now().Add(30 * 24 * time.Hour).UTC().Format(time.RFC3339)
	assert.Equal(t, map[string]any{"runs": 1.0, "cases": 0.0}, prune(later)["store"], "after 14 days the run is gone")
}

// TestPruneStoreFailsAfterFolders: when the store cannot be pruned, what
// was done to the folders is still said (JSON on stdout) before the error.
func TestPruneStoreFailsAfterFolders(t *testing.T) {
	dir := t.TempDir()
	runs := filepath.Join(dir, "tests")
	old := filepath.Join(runs, "20260101T000000Z-0123456789ab")
	require.NoError(t, os.MkdirAll(old, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(old, "output.log"), nil, 0o644))
	past := time.Now().Add(-30 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(old, past, past))
	notAStore := filepath.Join(dir, "store.db")
	require.NoError(t, os.WriteFile(notAStore, []byte("not a database, but long enough to be read as one's header......"), 0o644))

	code, out, stderr := runCmd(t, "prune", "--dir", runs, "--store", notAStore)
	assert.NotEqual(t, exitOK, code, stderr)
	var got map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), "stdout: %q", out)
	assert.Equal(t, []any{old}, got["removed"])
	assert.NoDirExists(t, old)
}
