package actiontest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// TestActionAnnotatesFileAndLine runs the action on a real pytest project
// (testdata/projects/pytest, in a sub-folder of the workspace) whose report
// is pytest's xunit1 dialect, which names each test's file and line: each
// failure is annotated on its test's first line (pytest counts lines from
// 0, GitHub from 1), the file relative to the workspace, not to the check's
// folder.
func TestActionAnnotatesFileAndLine(t *testing.T) {
	needTools(t, "bash", "python3", "pytest")
	ws := t.TempDir()
	sub := filepath.Join(ws, "sub")
	require.NoError(t, os.CopyFS(sub, os.DirFS(filepath.Join(testcorpus.Root(t), "testdata", "projects", "pytest"))))
	res := runAction(t, ws, actionRun{
		inputs: map[string]string{
			"command":           "pytest -o junit_family=xunit1 -p no:cacheprovider",
			"working-directory": "sub",
		},
		env: map[string]string{"STATE_DIR": t.TempDir()},
	})
	require.Equal(t, 1, res.code, "stderr:\n%s", res.stderr)
	var heads []string
	for _, c := range commands(res.stdout) {
		head, _, ok := strings.Cut(c[2:], "::")
		require.True(t, ok, c)
		heads = append(heads, head)
	}
	// test_sample.py: def test_fails() is on line 13, test_errors on 22.
	assert.Equal(t, []string{
		"error file=sub/test_sample.py,line=13,title=failure%3A test_sample%3A%3Atest_fails",
		"error file=sub/test_sample.py,line=22,title=error%3A test_sample%3A%3Atest_errors",
	}, heads)
}
