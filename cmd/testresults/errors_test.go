package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExitFor: the one mapping from a command's error to the exit code and
// what is printed where.
func TestExitFor(t *testing.T) {
	tests := []struct {
		name           string
		err            error
		code           int
		stdout, stderr string
	}{
		{"nil", nil, exitOK, "", ""},
		{"help", &helpRequest{usage: "Usage: x\n"}, exitOK, "Usage: x\n", ""},
		{"usage", &usageError{msg: "bad flag", usage: "Usage: x\n"}, exitUsage, "", "testresults cmd: bad flag\n\nUsage: x\n"},
		{"rejected", rejectedf("base: %v", errors.New("no such file")), exitRejected, "", "testresults cmd: base: no such file\n"},
		{"explicit code without message", withCode(124), 124, "", ""},
		{"explicit code with message", &exitCode{code: exitUsage, msg: "OTEL_RESOURCE_ATTRIBUTES: bad"}, exitUsage, "", "testresults cmd: OTEL_RESOURCE_ATTRIBUTES: bad\n"},
		{"zero code is success", withCode(exitOK), exitOK, "", ""},
		{"subcommand", &subError{sub: "record", err: rejected(errors.New("locked"))}, exitRejected, "", "testresults cmd record: locked\n"},
		{"any other error", errors.New("disk full"), exitFailed, "", "testresults cmd: disk full\n"},
		{"wrapped other error", fmt.Errorf("export: %w", errors.New("refused")), exitFailed, "", "testresults cmd: export: refused\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := exitFor("cmd", tt.err, Env{Stdout: &stdout, Stderr: &stderr})
			assert.Equal(t, tt.code, code)
			assert.Equal(t, tt.stdout, stdout.String())
			assert.Equal(t, tt.stderr, stderr.String())
		})
	}
	t.Run("help wraps pflag.ErrHelp", func(t *testing.T) {
		assert.ErrorIs(t, &helpRequest{}, pflag.ErrHelp)
	})
}

// TestUnknownFlagEveryCommand: every command parses its flags with the one
// helper: an unknown flag is exit 2, the message, a blank line and the
// same usage --help prints, on stderr; nothing on stdout.
func TestUnknownFlagEveryCommand(t *testing.T) {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{name, "--no-such-flag"}, Env{
				Stdin:   bytes.NewReader(nil),
				Stdout:  &stdout,
				Stderr:  &stderr,
				Getenv:  func(string) string { return "" },
				Environ: func() []string { return nil },
			})
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout.String())
			help, err := os.ReadFile(filepath.Join("testdata", "help", name+".txt"))
			require.NoError(t, err)
			assert.Equal(t, "testresults "+name+": unknown flag: --no-such-flag\n\n"+string(help), stderr.String())
		})
	}
}
