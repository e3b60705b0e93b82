package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
)

// TestCheckToolResultFile: the result read from a file or stdin is gated
// against the JUnit file it names, relative to dir or the current
// directory; a result that cannot be read is rejected with the reason.
func TestCheckToolResultFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "junit.xml")
	require.NoError(t, os.WriteFile(p, []byte(`<testsuite name="s"><testcase classname="c" name="a"/><testcase classname="c" name="b"/></testsuite>`), 0o644))
	good := toolResult(t, p, 2, 0, 0)
	result := filepath.Join(dir, "result.json")
	require.NoError(t, os.WriteFile(result, good, 0o644))

	raw, v, err := report.CheckToolResultFile(result, p, filepath.Dir(p), nil)
	require.NoError(t, err)
	assert.Equal(t, good, raw)
	assert.True(t, v.Accepted, "%v", v.Reasons)

	t.Chdir(filepath.Dir(p))
	raw, v, err = report.CheckToolResultFile("-", filepath.Base(p), "", bytes.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, good, raw)
	assert.True(t, v.Accepted, "stdin, the current directory: %v", v.Reasons)

	_, v, err = report.CheckToolResultFile(filepath.Join(dir, "none.json"), p, dir, nil)
	require.NoError(t, err)
	assert.False(t, v.Accepted)
	require.Len(t, v.Reasons, 1)
	assert.True(t, strings.HasPrefix(v.Reasons[0], "the result could not be read: open "), v.Reasons[0])
}
