package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
)

// TestRunE2EGoTestJSON: `testresults run -- go test -json ./...` needs no
// converter: the check's own output is its report, kept in the run's folder
// as go-test.json, and reads to the counts and outcomes of the committed
// stream of the same fixture (a package that does not build included).
func TestRunE2EGoTestJSON(t *testing.T) {
	gobin, err := exec.LookPath("go")
	needRunner(t, "go", err)
	cache, err := exec.Command(gobin, "env", "GOCACHE").Output()
	require.NoError(t, err)
	env := append([]string{"GOTOOLCHAIN=local", "GOCACHE=" + strings.TrimSpace(string(cache))}, goEnv...)

	committed := filepath.Join(testcorpus.Root(t), "testdata", "runners", "gotestjson", "reports", "go-test.json")
	want, err := report.ReadRun([]string{committed})
	require.NoError(t, err)
	require.NotNil(t, want.Counts)

	dir := project(t, "gotestjson")
	r := runCheck(t, dir, env, "--kind", "after_turn", "--", "go", "test", "-json", "./...")
	assert.Equal(t, 1, r.code, "go test's own exit code: tests fail on purpose; stderr: %s", r.stderr)
	c := counts(t, r.results)
	assert.Equal(t, map[string]int{"total": 29, "passed": 18, "failed": 6, "errors": 3, "skipped": 2, "flaky": 0}, c)
	assert.Equal(t, map[string]int{"total": want.Counts.Total, "passed": want.Counts.Passed, "failed": want.Counts.Failed,
		"errors": want.Counts.Errors, "skipped": want.Counts.Skipped, "flaky": want.Counts.Flaky}, c)
	cases := map[string]string{}
	for id, o := range r.results["cases"].(map[string]any) {
		cases[id] = o.(string)
	}
	wantCases := map[string]string{}
	for id, o := range want.Cases {
		wantCases[id] = string(o)
	}
	assert.Equal(t, wantCases, cases, "the same ids and outcomes as the committed stream")
	assert.Equal(t, "error", cases["example.com/gotestjson/nobuild::<build failed>"])
	assert.Equal(t, true, r.results["complete"], "%v", r.results["incomplete_reasons"])
	assert.Equal(t, "after_turn", r.results["kind"])

	kept := filepath.Join(r.out, "go-test.json")
	assert.Equal(t, []string{kept}, reportPaths(r.results))
	rep := r.results["reports"].([]any)[0].(map[string]any)
	assert.Equal(t, "gotest-json", rep["dialect"])
	b, err := os.ReadFile(kept)
	require.NoError(t, err)
	assert.Contains(t, r.stdout, string(b), "go test's output passes through to the user")
	assert.Contains(t, string(b), `"Action":"start"`)
}
