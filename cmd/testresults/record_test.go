package main

import (
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
