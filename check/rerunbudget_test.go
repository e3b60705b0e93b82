package check

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// budgetRepo is a git repository holding one pytest file: test_flaky
// fails on its first fail calls and passes after (a counter in an ignored
// file), test_ok always passes.
func budgetRepo(t *testing.T, fail int) string {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("__pycache__/\n.pytest_cache/\n*.count\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "test_budget.py"), []byte(fmt.Sprintf(`import os

def bump():
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "calls.count")
    n = int(open(path).read()) if os.path.exists(path) else 0
    open(path, "w").write(str(n + 1))
    return n + 1

def test_flaky():
    assert bump() > %d

def test_ok():
    pass
`, fail)), 0o644))
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c")
	return dir
}

func budgetRun(t *testing.T, dir string, budget int) (*Result, *BudgetResult) {
	t.Helper()
	env := gitFreeEnv("HOME="+t.TempDir(), "PYTHONDONTWRITEBYTECODE=1")
	out := t.TempDir()
	argv := []string{"pytest", "-q", "-p", "no:cacheprovider"}
	first, err := Run(context.Background(), argv, WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "run")))
	require.NoError(t, err)
	t.Cleanup(func() { first.Close() })
	b := RerunBudget{Budget: budget, Dir: dir, Options: func(n int) []Option {
		return []Option{WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "run-rerun-"+strconv.Itoa(n)))}
	}}
	got := b.Run(context.Background(), argv, first)
	t.Cleanup(func() {
		for _, r := range got.Reruns {
			r.Close()
		}
	})
	return first, got
}

// TestRerunBudgetPytest reruns a real pytest check's failing test alone:
// a test failing twice then passing is flaky within a budget of 3 (the
// third attempt passes, the budget stops there), and broken within a budget
// of 1.
func TestRerunBudgetPytest(t *testing.T) {
	needPytest(t)
	t.Run("flaky within the budget", func(t *testing.T) {
		first, got := budgetRun(t, budgetRepo(t, 2), 3)
		assert.Equal(t, testrun.StatusFailure, first.Run.Status)
		assert.Equal(t, testrun.RerunFlaky, got.Verdict)
		assert.Equal(t, 3, got.Attempts, "stops at the first pass")
		require.Len(t, got.Reruns, 2)
		assert.True(t, got.Selected)
		assert.Equal(t, []string{"pytest", "test_budget.py::test_flaky"}, got.Argv)
		assert.Equal(t, []string{"test_budget::test_flaky"}, got.Failing)
		assert.Equal(t, []string{"test_budget::test_flaky"}, got.Flipped)
		for _, r := range got.Reruns {
			assert.Equal(t, testrun.KindRerun, r.Run.Kind)
			assert.Equal(t, first.Run.Tree, r.Run.Tree, "the same tree")
			assert.NotContains(t, r.Run.Cases, "test_budget::test_ok", "only the failing test reran")
		}
		assert.Empty(t, got.Stopped)
	})
	t.Run("broken past the budget", func(t *testing.T) {
		_, got := budgetRun(t, budgetRepo(t, 5), 1)
		assert.Equal(t, testrun.RerunBroken, got.Verdict)
		assert.Equal(t, 2, got.Attempts)
		assert.Empty(t, got.Flipped)
	})
	t.Run("a first run that passed reruns nothing", func(t *testing.T) {
		_, got := budgetRun(t, budgetRepo(t, 0), 3)
		assert.Equal(t, testrun.RerunPassed, got.Verdict)
		assert.Equal(t, 1, got.Attempts)
		assert.Empty(t, got.Reruns)
	})
}

// TestRerunBudgetWholeCheck: a check whose runner gives no selection (a
// shell script writing JUnit) reruns whole, and a rerun on another tree
// stops the budget.
func TestRerunBudgetWholeCheck(t *testing.T) {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "outcomes.txt"), []byte("a fail\n"), 0o644))
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c")
	env := gitFreeEnv("HOME=" + t.TempDir())
	out := t.TempDir()
	// The check fails, and writes a file git sees: every rerun's tree differs.
	argv := []string{"sh", "-c", pairCheck + "\necho x >> changed.txt\nexit 1\n"}
	first, err := Run(context.Background(), argv, WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "run")))
	require.NoError(t, err)
	defer first.Close()
	got := RerunBudget{Budget: 3, Dir: dir, Options: func(n int) []Option {
		return []Option{WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "rerun-"+strconv.Itoa(n)))}
	}}.Run(context.Background(), argv, first)
	for _, r := range got.Reruns {
		defer r.Close()
	}
	assert.False(t, got.Selected)
	assert.Equal(t, argv, got.Argv)
	assert.Equal(t, testrun.RerunBroken, got.Verdict)
	require.Len(t, got.Reruns, 1, "the first rerun on another tree stops the budget")
	assert.Contains(t, got.Stopped, "rerun 1 ran on tree")
}

// TestRerunBudgetGo reruns a real go test -json check's failing tests
// alone (go test -run on their top-level names): they fail again, the
// budget calls them broken, and the passing test did not run again.
func TestRerunBudgetGo(t *testing.T) {
	dir := tinyModule(t)
	gitCmd(t, dir, "init", "-q", "-b", "main")
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c")
	env := goEnv(t)
	out := t.TempDir()
	argv := []string{"go", "test", "-json", "-count=1", "./..."}
	first, err := Run(context.Background(), argv, WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "run")))
	require.NoError(t, err)
	defer first.Close()
	got := RerunBudget{Budget: 1, Dir: dir, Options: func(n int) []Option {
		return []Option{WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithReportDir(filepath.Join(out, "rerun-"+strconv.Itoa(n)))}
	}}.Run(context.Background(), argv, first)
	for _, r := range got.Reruns {
		defer r.Close()
	}
	assert.True(t, got.Selected)
	assert.Equal(t, []string{"go", "test", "-json", "-count=1", "-run", "^(TestFail|TestSub)$", "."}, got.Argv)
	assert.Equal(t, testrun.RerunBroken, got.Verdict)
	require.Len(t, got.Reruns, 1)
	rerun := got.Reruns[0].Run
	assert.Equal(t, testrun.OutcomeFailed, rerun.Cases["example.com/tiny::TestSub/b"])
	assert.Equal(t, testrun.OutcomePassed, rerun.Cases["example.com/tiny::TestSub/a"], "the subtest's siblings run with it")
	assert.NotContains(t, rerun.Cases, "example.com/tiny::TestPass")
	assert.Empty(t, got.Stopped)
}
