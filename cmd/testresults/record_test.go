package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// TestStoreMaxConns: every command that opens a store declares it the same
// way, with --store-max-conns: 2 connections for the short commands, 16
// for serve; a negative bound is a usage error.
func TestStoreMaxConns(t *testing.T) {
	for name, want := range map[string]string{"run": "2", "parse": "2", "flaky": "2", "packet": "2", "prune": "2", "serve": "16"} {
		t.Run(name, func(t *testing.T) {
			fs := probeFlags(t, name)
			f := fs.Lookup("store-max-conns")
			require.NotNil(t, f, "%s has --store-max-conns", name)
			assert.Equal(t, want, f.DefValue)
			store := fs.Lookup("store")
			if name == "packet" {
				store = fs.Lookup("flaky-store")
			}
			require.NotNil(t, store)
			assert.IsType(t, &storeFlag{}, store.Value, "declared by addStoreFlag")
		})
	}
	db := filepath.Join(t.TempDir(), "s.db")
	code, _, stderr := runCmdEnv(t, nil, "flaky", "list", "--store", db, "--store-max-conns", "-1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--store-max-conns -1: want 0 or more")
	code, out, stderr := runCmdEnv(t, nil, "flaky", "list", "--store", db, "--store-max-conns", "1")
	assert.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "no flaky tests\n", out, "one connection is enough for a short command")
}

// probeFlags is the flag set the command name parses.
func probeFlags(t *testing.T, name string) *pflag.FlagSet {
	t.Helper()
	for _, c := range cliCommands() {
		if c.Name == name {
			return c.Flags
		}
	}
	t.Fatalf("no command %s", name)
	return nil
}

// TestRecordEnvironment: the recording flags store a run for the
// environment of the command's --env (the flaky list's, so that its
// history and scores are that environment's), the default one without
// it; run and flaky share the one --env flag with them.
func TestRecordEnvironment(t *testing.T) {
	dir := t.TempDir()
	vars := map[string]string{"HANGAR_STORE": filepath.Join(dir, "store.db"), "HOME": dir}
	linux := writeRun(t, dir, "on-linux", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed})
	plain := writeRun(t, dir, "on-default", testrun.KindBase, "T1", map[string]testrun.Outcome{"t": passed})
	code, _, errs := runCmdEnv(t, vars, "flaky", "record", "--record", "--repo", "acme/api", "--env", "linux", linux)
	require.Equal(t, exitOK, code, errs)
	code, _, errs = runCmdEnv(t, vars, "flaky", "record", "--record", "--repo", "acme/api", plain)
	require.Equal(t, exitOK, code, errs)

	st, err := store.Open(context.Background(), vars["HANGAR_STORE"])
	require.NoError(t, err)
	defer st.Close()
	for id, want := range map[string]string{"on-linux": "linux", "on-default": store.DefaultEnvironment} {
		sr, err := st.Run(context.Background(), id)
		require.NoError(t, err)
		assert.Equal(t, want, sr.Environment, id)
	}
	entries, err := st.List(context.Background(), store.Filter{})
	require.NoError(t, err)
	assert.Empty(t, entries)

	// The same run recorded for another environment is refused.
	code, _, errs = runCmdEnv(t, vars, "flaky", "record", "--record", "--repo", "acme/api", "--env", "macos", linux)
	assert.Equal(t, exitRejected, code)
	assert.Contains(t, errs, `stored for environment "linux", not "macos"`)

	for _, name := range []string{"run", "flaky"} {
		fs := probeFlags(t, name)
		require.NotNil(t, fs.Lookup("env"), name)
		require.NotNil(t, fs.Lookup("record"), name)
	}
}
