package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// flipTests is a pytest module: test_flips fails on every even execution,
// counted in $FLIP_COUNTER (outside the tree); test_always passes;
// test_broken fails when $BROKEN is set.
const flipTests = `import os

def test_flips():
    p = os.environ["FLIP_COUNTER"]
    n = int(open(p).read()) if os.path.exists(p) else 0
    open(p, "w").write(str(n + 1))
    assert n % 2 == 1, "execution %d fails" % n

def test_always():
    pass

def test_broken():
    assert not os.environ.get("BROKEN")
`

func TestRunRerunFlakyE2EPytest(t *testing.T) {
	argv := pytestArgv(t)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_flip.py"), []byte(flipTests), 0o644))
	db := filepath.Join(t.TempDir(), "store.db")

	// Two runs on one tree: test_flips fails, then passes. The flaky list
	// learns it.
	git(t, dir, "init", "-q")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "tests")
	counter := filepath.Join(t.TempDir(), "counter")
	var seen []string
	for i, want := range []int{1, 0} {
		r := runCheck(t, dir, []string{"FLIP_COUNTER=" + counter}, append([]string{"--kind", "attempt", "--"}, append(argv, "-q")...)...)
		require.Equal(t, want, r.code, "run %d: %s", i, r.stderr)
		require.NotEmpty(t, r.results["tree"], "the tree digest is read")
		seen = append(seen, filepath.Join(r.out, "run.json"))
		require.NoError(t, os.Rename(filepath.Join(r.out, "TEST-RESULTS.json"), seen[i]))
	}
	code, stdout, stderr := runCmdEnv(t, nil, append([]string{"flaky", "record", "--store", db, "--repo", "r"}, seen...)...)
	require.Equal(t, exitOK, code, stderr)
	require.Contains(t, stdout, "1 flaky", "the same tree passed and failed")
	time.Sleep(5 * time.Millisecond) // the job below starts strictly after the entry was first seen

	tests := []struct {
		name      string
		env       []string
		args      []string
		code      int
		rerun     bool
		transient bool
	}{
		// Counter 2: test_flips fails, then passes on the rerun.
		{"only a listed test failed: rerun passes", nil, nil, 0, true, true},
		// Counter 4 fails, and test_broken is not on the list: no rerun.
		{"an unlisted failure: no rerun", []string{"BROKEN=1"}, nil, 1, false, false},
		// Counter 5 passes: nothing to rerun.
		{"the check passed: no rerun", nil, nil, 0, false, false},
		// Counter 6 fails on a run of another repository's list: no rerun.
		{"another repository's list", nil, []string{"--repo", "other"}, 1, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := []string{"--kind", "after_turn", "--store", db, "--rerun-flaky"}
			if tt.args != nil {
				args = append(args, tt.args...)
			} else {
				args = append(args, "--repo", "r")
			}
			args = append(append(args, "--"), append(argv, "-q")...)
			r := runCheck(t, dir, append([]string{"FLIP_COUNTER=" + counter}, tt.env...), args...)
			assert.Equal(t, tt.code, r.code, r.stderr)
			rerunDir := r.out + "-rerun"
			if !tt.rerun {
				assert.NoDirExists(t, rerunDir)
				assert.Nil(t, r.results["rerun"])
				return
			}
			rr := readResults(t, rerunDir)
			assert.Equal(t, "rerun", rr["kind"])
			assert.Equal(t, "success", rr["status"])
			of, ok := rr["rerun_of"].(map[string]any)
			require.True(t, ok, "the rerun names the first run: %v", rr)
			assert.Equal(t, r.results["id"], of["id"])
			assert.Equal(t, "failure", r.results["status"], "the first run is kept as it was")
			info, ok := r.results["rerun"].(map[string]any)
			require.True(t, ok, "the first run names its rerun: %v", r.results)
			assert.Equal(t, rr["id"], info["id"])
			assert.Equal(t, []any{"test_flip::test_flips"}, info["excused"])
			assert.Equal(t, tt.transient, r.results["transient"])
			assert.Contains(t, r.stderr, "running the check once more")
		})
	}
}

// TestRunRerunFlakyBase: with a base, only the new failures must be on the
// list; a failure the base shared does not stop the rerun, and a rerun that
// fails again decides with its own exit code.
func TestRunRerunFlakyBase(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	// The list learns s::flaky from a run where the runner retried it.
	seen := writeRun(t, dir, "seen-1", "attempt", "tree-1", map[string]testrun.Outcome{"s::other": testrun.OutcomePassed}, "s::flaky")
	code, _, stderr := runCmdEnv(t, nil, "flaky", "record", "--store", db, "--repo", "r", seen)
	require.Equal(t, exitOK, code, stderr)
	base := writeRun(t, dir, "base-1", "base", "tree-0", map[string]testrun.Outcome{"s::old": testrun.OutcomeFailed, "s::flaky": testrun.OutcomePassed})
	time.Sleep(5 * time.Millisecond)

	// The check fails s::old (as the base did) and s::flaky (new), every
	// time: the rerun runs and fails too.
	report := `<testsuite name="s"><testcase classname="s" name="old"><failure/></testcase><testcase classname="s" name="flaky"><failure/></testcase></testsuite>`
	rep := writeReport(t, dir, "r.xml", report)
	out := filepath.Join(t.TempDir(), "out")
	check := []string{"sh", "-c", `cp "$0" "$HANGAR_TESTS_DIR/r.xml"; exit 3`, rep}
	longID := strings.Repeat("j", testrun.MaxIDLength)
	code, _, stderr = runInProc(t, nil, append([]string{"--out", out, "--run-id", longID, "--base-run", base, "--store", db, "--repo", "r", "--rerun-flaky", "--"}, check...)...)
	assert.Equal(t, 3, code, "the rerun's exit code decides: %s", stderr)
	res := readResults(t, out)
	assert.Equal(t, false, res["transient"], "the rerun failed")
	info := res["rerun"].(map[string]any)
	assert.Equal(t, []any{"s::flaky"}, info["excused"])
	rr := readResults(t, out+"-rerun")
	assert.Equal(t, "rerun", rr["kind"])
	assert.Equal(t, "base-1", rr["base_id"], "the rerun is compared with the base too")
	assert.NotEqual(t, longID, rr["id"], "a --run-id too long for -rerun gives the rerun a fresh id")
	assert.True(t, testrun.ValidID(rr["id"].(string)))

	// A short --run-id names the rerun RUN-ID-rerun.
	out3 := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runInProc(t, nil, append([]string{"--out", out3, "--run-id", "job-1", "--base-run", base, "--store", db, "--repo", "r", "--rerun-flaky", "--"}, check...)...)
	assert.Equal(t, 3, code, stderr)
	assert.Equal(t, "job-1-rerun", readResults(t, out3+"-rerun")["id"])

	// The same without --rerun-flaky: one run.
	out2 := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runInProc(t, nil, append([]string{"--out", out2, "--base-run", base, "--store", db, "--repo", "r", "--"}, check...)...)
	assert.Equal(t, 3, code, stderr)
	assert.NoDirExists(t, out2+"-rerun")

	// --rerun-flaky needs --repo.
	code, _, stderr = runInProc(t, nil, "--rerun-flaky", "--", "true")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--rerun-flaky needs --repo")
}
