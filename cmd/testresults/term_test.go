package main

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testpty"
)

// TestStderrEscapesControlCharacters: a report's path or content reaches
// stderr in error messages; its control characters arrive escaped, so the
// file cannot drive the reader's terminal.
func TestStderrEscapesControlCharacters(t *testing.T) {
	dir := t.TempDir()
	p := writeReport(t, dir, "\x1b[2J\x1b]0;pwned\a.xml", "<testsuites><testsuite name=\"x\">")
	code, _, stderr := runCmd(t, "parse", p)
	require.Equal(t, exitRejected, code, stderr)
	assert.Contains(t, stderr, `\x1b[2J\x1b]0;pwned\x07.xml`)
	for _, c := range []byte(stderr) {
		assert.False(t, c < 0x20 && c != '\t' && c != '\n', "control byte %#x reached stderr: %q", c, stderr)
	}
	// Usage errors quote what the user typed, escaped as well.
	code, _, stderr = runCmd(t, "parse", "--kind", "\x1b[31mbase", p)
	require.Equal(t, exitUsage, code)
	assert.True(t, strings.Contains(stderr, `\x1b[31mbase`), stderr)
}

// onTerminal runs the built command with its stderr on a pseudo-terminal
// and returns what the terminal received.
func onTerminal(t *testing.T, bin string, env []string, args ...string) string {
	t.Helper()
	master, tty, err := testpty.Open()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no pseudo-terminal here")
	}
	require.NoError(t, err)
	defer master.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}, env...)
	cmd.Stderr = tty
	require.NoError(t, cmd.Start())
	require.NoError(t, tty.Close())
	got, rerr := testpty.ReadAll(master)
	werr := cmd.Wait()
	require.NoError(t, rerr)
	var ee *exec.ExitError
	if werr != nil {
		require.ErrorAs(t, werr, &ee)
	}
	return got
}

// TestColorOnATerminal: on a real terminal the summary of a failing run is
// painted (the failures red), through the one escaper: a report's own
// control characters still arrive as text. NO_COLOR, TERM=dumb and a pipe
// get no colour code at all.
func TestColorOnATerminal(t *testing.T) {
	bin := testresultsBinary(t)
	dir := t.TempDir()
	p := writeReport(t, dir, "junit.xml", `<testsuite name="s">
<testcase classname="c" name="ok"/>
<testcase classname="c" name="evil&#x9b;31mred"><failure message="Failed">=== RUN evil
    x_test.go:3: want 2, got 3</failure></testcase>
</testsuite>`)

	got := onTerminal(t, bin, []string{"TERM=xterm"}, "parse", p)
	assert.Contains(t, got, "\x1b[31mfailed\x1b[0m", "the failure is painted red: %q", got)
	assert.Contains(t, got, "\x1b[32mcomplete\x1b[0m", "%q", got)
	assert.Contains(t, got, `c::evil\u009b31mred — x_test.go:3: want 2, got 3`, "the report's CSI is shown as text, the assertion beside the id: %q", got)
	assert.NotContains(t, got, "\u009b", "no control character of the report reaches the terminal")
	assert.NotContains(t, got, `\x1b[31m`, "our codes are written as codes, not escaped into text")

	for _, env := range [][]string{{"TERM=xterm", "NO_COLOR=1"}, {"TERM=dumb"}} {
		got := onTerminal(t, bin, env, "parse", p)
		assert.Contains(t, got, "failed", "%v", env)
		assert.NotContains(t, got, "\x1b", "%v: no colour code: %q", env, got)
	}
	code, _, stderr := runBinary(t, bin, []string{"TERM=xterm"}, "parse", p)
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "failed")
	assert.NotContains(t, stderr, "\x1b", "a pipe gets no colour")
}
