package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// cli runs the built binary with args in dir, with a clean environment
// plus env, and returns its exit code, stdout and stderr.
func cli(t *testing.T, dir string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, builtBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(t, dir, append([]string{"PYTHONDONTWRITEBYTECODE=1"}, env...))
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode(), stdout.String(), stderr.String()
	}
	require.NoError(t, err)
	return 0, stdout.String(), stderr.String()
}

// gitInit makes dir a git repository with one commit of what it holds.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "c"}} {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
}

// TestQuarantineE2E: through the built binary, an entry is added, listed
// (text and JSON) and removed; run --quarantine exits 0 when every failure
// of a real pytest check is quarantined, and says which; a failure that is
// not quarantined, or run without --quarantine, keeps pytest's exit code.
func TestQuarantineE2E(t *testing.T) {
	pytest := pytestArgv(t)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"test_q.py": "def test_bad():\n    assert False\n\ndef test_worse():\n    assert False\n\ndef test_ok():\n    pass\n"})
	st := filepath.Join(t.TempDir(), "store.db")
	add := func(test string) {
		code, stdout, stderr := cli(t, dir, nil, "flaky", "quarantine", "add", "--store", st, "--repo", "acme/api", "--test", test,
			"--owner", "ana@example.com", "--reason", "fails on the new runners", "--expires", "14d")
		require.Equal(t, 0, code, stderr)
		assert.Contains(t, stdout, "quarantined "+test+" in acme/api (every environment) until ")
	}
	run := func(extra ...string) (int, string) {
		args := append([]string{"run", "--out", filepath.Join(t.TempDir(), "out"), "--store", st, "--repo", "acme/api"}, extra...)
		code, _, stderr := cli(t, dir, nil, append(append(args, "--"), pytest...)...)
		return code, stderr
	}

	add("test_q::test_bad")
	code, stderr := run("--quarantine")
	assert.Equal(t, 1, code, "test_worse is not quarantined: %s", stderr)
	assert.Contains(t, stderr, "quarantined failures (still reported): test_q::test_bad")
	assert.Contains(t, stderr, "not quarantined before the job started: test_q::test_worse")

	add("test_q::test_worse")
	code, stderr = run("--quarantine")
	assert.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "quarantined failures (still reported): test_q::test_bad, test_q::test_worse")
	assert.Contains(t, stderr, "every failure is quarantined: exit 0 (the check exited 1)")
	code, _ = run()
	assert.Equal(t, 1, code, "without --quarantine the check's exit code stands")

	code, stdout, _ := cli(t, dir, nil, "flaky", "quarantine", "list", "--store", st, "--json")
	require.Equal(t, 0, code)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &entries))
	require.Len(t, entries, 2)
	assert.Equal(t, "ana@example.com", entries[0]["owner"])
	assert.Equal(t, "test_q::test_bad", entries[0]["test_id"])
	assert.Equal(t, false, entries[0]["expired"], "the listed form marks expired entries")
	code, stdout, _ = cli(t, dir, nil, "flaky", "quarantine", "list", "--store", st)
	require.Equal(t, 0, code)
	assert.Contains(t, stdout, "test_q::test_worse")

	code, _, _ = cli(t, dir, nil, "flaky", "quarantine", "remove", "--store", st, "--repo", "acme/api", "--test", "test_q::test_worse")
	assert.Equal(t, 0, code)
	code, _, stderr = cli(t, dir, nil, "flaky", "quarantine", "remove", "--store", st, "--repo", "acme/api", "--test", "test_q::test_worse")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "no entry for test_q::test_worse")
	code, stderr = run("--quarantine")
	assert.Equal(t, 1, code, "the entry is gone: %s", stderr)

	for _, bad := range [][]string{
		{"--expires", "120d"}, // past the longest quarantine
		{"--expires", "soon"},
	} {
		code, _, stderr := cli(t, dir, nil, append([]string{"flaky", "quarantine", "add", "--store", st, "--repo", "acme/api", "--test", "x",
			"--owner", "ana", "--reason", "r"}, bad...)...)
		assert.NotEqual(t, 0, code, "%v: %s", bad, stderr)
	}
	code, _, stderr = cli(t, dir, nil, "flaky", "quarantine", "add", "--store", st, "--repo", "acme/api", "--test", "x", "--expires", "1d")
	assert.Equal(t, exitUsage, code, "an owner and a reason are required")
	assert.Contains(t, stderr, "the owner is required")
	code, _, stderr = cli(t, dir, nil, "flaky", "quarantine", "add", "--store", st, "--repo", "acme/api", "--test", "x", "--owner", "ana", "--reason", "r")
	assert.Equal(t, exitUsage, code, "an expiry is required")
	assert.Contains(t, stderr, "the expiry is required")
	code, _, stderr = cli(t, dir, nil, "flaky", "quarantine", "remove", "--store", st, "--repo", "acme/api")
	assert.Equal(t, exitUsage, code, "remove names its test")
	assert.Contains(t, stderr, "the test id is required")
}

// TestRerunBudgetE2E: run --rerun-budget 3 on a real pytest check whose
// test fails twice and then passes reruns only that test, calls it flaky
// after three attempts, keeps the check's exit code, and records the
// same-tree flip on the flaky list.
func TestRerunBudgetE2E(t *testing.T) {
	pytest := pytestArgv(t)
	if _, err := exec.LookPath("pytest"); err != nil {
		needRunner(t, "pytest on PATH (the reruns of selected tests run it)", err)
	}
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		".gitignore": "__pycache__/\n.pytest_cache/\n*.count\n.state/\n",
		"test_budget.py": `import os

def bump():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.count")
    n = int(open(path).read()) if os.path.exists(path) else 0
    open(path, "w").write(str(n + 1))
    return n + 1

def test_flaky():
    assert bump() > 2

def test_ok():
    pass
`})
	gitInit(t, dir)
	st := filepath.Join(t.TempDir(), "store.db")
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := cli(t, dir, nil, append([]string{"run", "--out", out, "--store", st, "--repo", "acme/api", "--rerun-budget", "3", "--"}, pytest...)...)
	assert.Equal(t, 1, code, "a pass on a rerun excuses nothing in this job: %s", stderr)
	assert.Contains(t, stderr, "rerun budget 3 (the failing tests: pytest test_budget.py::test_flaky): flaky after 3 attempts on the same tree")
	assert.Contains(t, stderr, "failed, then passed on the same tree: test_budget::test_flaky")
	assert.Contains(t, stderr, "on the flaky list from run ")
	assert.FileExists(t, filepath.Join(out+"-rerun-2", "TEST-RESULTS.json"))
	assert.NoFileExists(t, filepath.Join(out+"-rerun-3", "TEST-RESULTS.json"), "stops at the first pass")

	code, stdout, _ := cli(t, dir, nil, "flaky", "list", "--store", st, "--repo", "acme/api", "--json")
	require.Equal(t, 0, code)
	var entries []map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &entries))
	require.Len(t, entries, 1)
	assert.Equal(t, "test_budget::test_flaky", entries[0]["test_id"])
	assert.Equal(t, []any{"same_tree"}, entries[0]["how"])
}

// TestPairNewTestRunsE2E: pair --new-test-runs 3 on the real pytest
// project testdata/projects/pytest-new-tests reports its new flaky test as
// flaky on arrival and its new stable test as a new passing test.
func TestPairNewTestRunsE2E(t *testing.T) {
	pytestArgv(t)
	if _, err := exec.LookPath("pytest"); err != nil {
		needRunner(t, "pytest on PATH", err)
	}
	src := filepath.Join(testcorpus.Root(t), "testdata", "projects", "pytest-new-tests")
	dir := t.TempDir()
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(src, "parent"))))
	require.NoError(t, os.Rename(filepath.Join(dir, "gitignore"), filepath.Join(dir, ".gitignore")))
	gitInit(t, dir)
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(src, "patch"))))
	for _, args := range [][]string{{"add", "-A"}, {"commit", "-q", "-m", "patch"}} {
		out, err := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	out := filepath.Join(t.TempDir(), "runs")
	code, stdout, stderr := cli(t, dir, nil, "pair", "--new-test-runs", "3", "--out", out, "--", "pytest", "-q", "-p", "no:cacheprovider")
	assert.Equal(t, 0, code, "the verdict blocks on the new tests; nothing broken: %s", stderr)
	assert.Regexp(t, `flaky_on_arrival +test_new::test_new_flaky  \[passed passed passed passed failed\]`, stdout)
	assert.Regexp(t, `new_passing +test_new::test_new_stable  \[passed passed passed passed passed\]`, stdout)
	assert.Contains(t, stderr, "new tests: 2, run 3 more times (pytest test_new.py::test_new_flaky test_new.py::test_new_stable)")
	b, err := os.ReadFile(filepath.Join(out, "new-tests.json"))
	require.NoError(t, err)
	var got struct {
		Tests []struct{ ID, Class string }
	}
	require.NoError(t, json.Unmarshal(b, &got))
	require.Len(t, got.Tests, 2)
	assert.Equal(t, "flaky_on_arrival", got.Tests[0].Class)
	assert.Equal(t, "new_passing", got.Tests[1].Class)
}
