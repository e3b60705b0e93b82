package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// needPytest skips a test when pytest is not installed, except under
// CI=true, where it must be.
func needPytest(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("pytest"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("pytest is not installed under CI=true: %v", err)
		}
		t.Skipf("pytest is not installed: %v", err)
	}
}

// newTestsRepo makes a git repository of testdata/projects/pytest-new-tests:
// its parent commit, then the patch commit adding test_new.py.
func newTestsRepo(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "projects", "pytest-new-tests")
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(src, "parent"))))
	require.NoError(t, os.Rename(filepath.Join(dir, "gitignore"), filepath.Join(dir, ".gitignore")))
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "parent")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(src, "patch"))))
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "patch")
	return dir
}

// fakeRun is a run listing the given outcomes.
func fakeRun(outcomes map[string]testrun.Outcome) *testrun.Run {
	return &testrun.Run{Cases: outcomes}
}

func TestClassifyNewTests(t *testing.T) {
	p, f, e, s := testrun.OutcomePassed, testrun.OutcomeFailed, testrun.OutcomeError, testrun.OutcomeSkipped
	parent := []*testrun.Run{fakeRun(map[string]testrun.Outcome{"old": p}), fakeRun(map[string]testrun.Outcome{"old": f})}
	patch := []*testrun.Run{
		fakeRun(map[string]testrun.Outcome{"old": p, "flaky": p, "stable": p, "broken": f, "skip": s, "half": p}),
		fakeRun(map[string]testrun.Outcome{"old": p, "flaky": e, "stable": p, "broken": f, "skip": s}),
	}
	ids := NewTests(parent, patch)
	assert.Equal(t, []string{"broken", "flaky", "half", "skip", "stable"}, ids, "old is in a parent run")
	got := map[string]NewTestClass{}
	for _, nt := range ClassifyNewTests(ids, patch) {
		got[nt.ID] = nt.Class
	}
	assert.Equal(t, map[string]NewTestClass{
		"broken": NewTestFailing, "flaky": NewTestFlaky, "half": NewTestPassing, "skip": NewTestUnjudged, "stable": NewTestPassing,
	}, got)
}

// TestPairNewTestRunsPytest: on a real pytest project whose patch adds a
// test failing on every third call and a stable one, three extra runs of
// the new tests alone (pytest node ids) find the first flaky on arrival and
// the second a new passing test; the paired verdict is not changed.
func TestPairNewTestRunsPytest(t *testing.T) {
	needPytest(t)
	dir := newTestsRepo(t)
	env := gitFreeEnv("HOME="+t.TempDir(), "PYTHONDONTWRITEBYTECODE=1")
	p := Pair{Dir: dir, Runs: 2, Out: t.TempDir(), Env: env}
	argv := []string{"pytest", "-q", "-p", "no:cacheprovider"}
	res, err := p.Run(context.Background(), argv)
	require.NoError(t, err)
	for _, r := range res.PatchRuns {
		require.Equal(t, testrun.OutcomePassed, r.Cases["test_new::test_new_flaky"], "the patch's two runs pass it")
	}
	decision := res.Paired.Decision

	var events []string
	p.Progress = func(e PairEvent) { events = append(events, fmt.Sprintf("%s %d/%d", e.Side, e.N, e.Total)) }
	got, err := p.NewTestRuns(context.Background(), argv, res, 3)
	require.NoError(t, err)
	assert.Equal(t, []string{"new 1/3", "new 2/3", "new 3/3"}, events)
	assert.Equal(t, "2, run 3 more times (pytest test_new.py::test_new_flaky test_new.py::test_new_stable)", got.Summary())
	assert.True(t, got.Selected)
	assert.Equal(t, []string{"pytest", "test_new.py::test_new_flaky", "test_new.py::test_new_stable"}, got.Argv)
	require.Len(t, got.Runs, 3)
	require.Len(t, got.Tests, 2)
	assert.Equal(t, NewTest{ID: "test_new::test_new_flaky", Class: NewTestFlaky,
		Outcomes: []testrun.Outcome{"passed", "passed", "passed", "passed", "failed"}}, got.Tests[0])
	assert.Equal(t, "test_new::test_new_stable", got.Tests[1].ID)
	assert.Equal(t, NewTestPassing, got.Tests[1].Class)
	assert.Equal(t, []string{"test_new::test_new_flaky"}, got.Flaky())
	for _, r := range got.Runs {
		assert.NotContains(t, r.Cases, "test_old::test_old", "only the new tests ran")
	}
	assert.Equal(t, decision, res.Paired.Decision, "early flake detection informs; the verdict is the pair's")
	assert.FileExists(t, filepath.Join(p.Out, "new-3", ResultsFile))
	assert.Equal(t, 1, worktreeList(t, dir), "the worktrees are removed")

	none, err := p.NewTestRuns(context.Background(), argv, res, 0)
	require.NoError(t, err)
	assert.Empty(t, none.Runs)
	assert.Equal(t, "2, run 0 more times (the whole check)", none.Summary())
	_, err = p.NewTestRuns(context.Background(), argv, res, MaxNewTestRuns+1)
	assert.ErrorIs(t, err, ErrPair)
}
