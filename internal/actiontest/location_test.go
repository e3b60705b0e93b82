package actiontest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// TestAnnotationLocations: the file and line of a failure are those its
// run gives, escaped as workflow command properties; a file that is not
// there or lies outside the workspace, and a line that is not a positive
// whole number, are left out, and the annotation stays on the job.
func TestAnnotationLocations(t *testing.T) {
	needTools(t, "sh", "python3")
	root := testcorpus.Root(t)
	ws := t.TempDir()
	dir := filepath.Join(ws, "a,b:c")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, f := range []string{"t_1.py", "50%.py"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), nil, 0o644))
	}
	outside := filepath.Join(t.TempDir(), "outside.py")
	require.NoError(t, os.WriteFile(outside, nil, 0o644))
	run := `{"complete": true, "failures": [
	  {"id": "a", "outcome": "failed", "message": "m", "file": "t_1.py", "line": 7},
	  {"id": "b", "outcome": "failed", "message": "m", "file": "50%.py"},
	  {"id": "c", "outcome": "failed", "message": "m", "file": "gone.py", "line": 3},
	  {"id": "d", "outcome": "failed", "message": "m", "file": "` + outside + `", "line": 3},
	  {"id": "e", "outcome": "failed", "message": "m", "file": "t_1.py", "line": 0},
	  {"id": "f", "outcome": "failed", "message": "m", "file": "t_1.py", "line": "7"},
	  {"id": "g", "outcome": "failed", "message": "m", "file": "t_1.py", "line": true},
	  {"id": "h", "outcome": "failed", "message": "m", "file": "", "line": 7}
	]}`
	path := filepath.Join(dir, "TEST-RESULTS.json")
	require.NoError(t, os.WriteFile(path, []byte(run), 0o644))
	out := runScript(t, dir, []string{"GITHUB_WORKSPACE=" + ws}, filepath.Join(root, "scripts", "ci", "github-annotations.sh"), path)
	assert.Equal(t, []string{
		"::error file=a%2Cb%3Ac/t_1.py,line=7,title=failure%3A a::m",
		"::error file=a%2Cb%3Ac/50%25.py,title=failure%3A b::m",
		"::error title=failure%3A c::m",
		"::error title=failure%3A d::m",
		"::error file=a%2Cb%3Ac/t_1.py,title=failure%3A e::m",
		"::error file=a%2Cb%3Ac/t_1.py,title=failure%3A f::m",
		"::error file=a%2Cb%3Ac/t_1.py,title=failure%3A g::m",
		"::error title=failure%3A h::m",
	}, commands(out))
}

// TestAnnotationsCountEveryFailingTest: a run lists its first 200 failures
// only; the notice counts the failing tests the run counts, not the ones it
// lists, and the cap holds.
func TestAnnotationsCountEveryFailingTest(t *testing.T) {
	needTools(t, "sh", "python3")
	root := testcorpus.Root(t)
	dir := t.TempDir()
	var failures []string
	for i := range 200 {
		failures = append(failures, fmt.Sprintf(`{"id": "t%d", "outcome": "failed", "message": "m"}`, i))
	}
	run := `{"complete": true, "counts": {"total": 400, "passed": 95, "failed": 300, "errors": 5, "skipped": 0, "flaky": 0}, "failures": [` + strings.Join(failures, ",") + `]}`
	path := filepath.Join(dir, "TEST-RESULTS.json")
	require.NoError(t, os.WriteFile(path, []byte(run), 0o644))
	out := commands(runScript(t, dir, nil, filepath.Join(root, "scripts", "ci", "github-annotations.sh"), path, "10"))
	require.Len(t, out, 11)
	assert.Equal(t, "::notice title=testresults::295 more failing tests are not annotated: see the job summary's packet and the run file (the results output)", out[10])
}

// runScript runs a POSIX sh script with args in dir, with PATH and env,
// and returns its stdout; it must exit 0.
func runScript(t *testing.T, dir string, env []string, script string, args ...string) string {
	t.Helper()
	cmd := exec.Command("sh", append([]string{script}, args...)...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH")}, env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s: %s", script, stderr.String())
	return string(out)
}
