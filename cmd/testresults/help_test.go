package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateHelp = flag.Bool("update-help", false, "rewrite the golden files of testdata/help")

// TestHelpGolden: `testresults --help` and `testresults COMMAND --help` print
// exactly testdata/help/<name>.txt on stdout, nothing on stderr, and exit 0,
// for every registered command; a golden file with no command fails too.
func TestHelpGolden(t *testing.T) {
	names := []string{"testresults"}
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names[1:])
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			args := []string{"--help"}
			if name != "testresults" {
				args = []string{name, "--help"}
			}
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), args, Env{
				Stdin:   bytes.NewReader(nil),
				Stdout:  &stdout,
				Stderr:  &stderr,
				Getenv:  func(string) string { return "" },
				Environ: func() []string { return nil },
			})
			require.Equal(t, exitOK, code, "stderr: %s", stderr.String())
			assert.Empty(t, stderr.String())
			golden := filepath.Join("testdata", "help", name+".txt")
			if *updateHelp {
				require.NoError(t, os.MkdirAll(filepath.Dir(golden), 0o755))
				require.NoError(t, os.WriteFile(golden, stdout.Bytes(), 0o644))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err, "run with -update-help to create it")
			assert.Equal(t, string(want), stdout.String())
		})
	}
	t.Run("no stale golden files", func(t *testing.T) {
		files, err := filepath.Glob(filepath.Join("testdata", "help", "*.txt"))
		require.NoError(t, err)
		want := make([]string, len(names))
		for i, n := range names {
			want[i] = filepath.Join("testdata", "help", n+".txt")
		}
		sort.Strings(want)
		assert.Equal(t, want, files)
	})
}
