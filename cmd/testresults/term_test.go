package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
