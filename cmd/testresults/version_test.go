package main

import (
	"bytes"
	"context"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/clidoc"
)

func TestVersionFlag(t *testing.T) {
	for _, arg := range []string{"--version", "version"} {
		t.Run(arg, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), []string{arg}, Env{Stdout: &out, Stderr: &errb, Getenv: func(string) string { return "" }})
			require.Equal(t, exitOK, code)
			assert.Empty(t, errb.String())
			bi, ok := debug.ReadBuildInfo()
			require.True(t, ok)
			assert.Equal(t, clidoc.Version(bi)+"\n", out.String())
			assert.True(t, strings.HasPrefix(out.String(), "testresults "))
		})
	}
}
