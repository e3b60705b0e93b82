package check

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// pairCheck writes a JUnit report from the tree's outcomes.txt (lines
// "name pass|fail") into the report folder.
const pairCheck = `set -e
f="$HANGAR_TESTS_DIR/r.xml"
echo '<testsuite name="s">' > "$f"
while read -r name outcome; do
  if [ "$outcome" = pass ]; then echo "<testcase classname=\"c\" name=\"$name\"/>" >> "$f"
  else echo "<testcase classname=\"c\" name=\"$name\"><failure message=\"x\"/></testcase>" >> "$f"; fi
done < outcomes.txt
echo '</testsuite>' >> "$f"
`

// pairRepo is a repository whose parent commit passes a and fails b, and
// whose HEAD (the patch) fails a and passes b.
func pairRepo(t *testing.T) string {
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	for _, outcomes := range []string{"a pass\nb fail\n", "a fail\nb pass\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "outcomes.txt"), []byte(outcomes), 0o644))
		gitCmd(t, dir, "add", "-A")
		gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c")
	}
	return dir
}

func worktreeList(t *testing.T, dir string) int {
	return len(strings.Split(gitCmd(t, dir, "worktree", "list", "--porcelain"), "\n\n"))
}

// TestPair: the parent's runs (HEAD^) and the patch's (HEAD) run in their
// own worktrees, each run's TEST-RESULTS.json is written, the verdict
// judges them, and the worktrees are gone afterwards.
func TestPair(t *testing.T) {
	dir := pairRepo(t)
	out := t.TempDir()
	var events []string
	res, err := Pair{Dir: dir, Runs: 2, Out: out, Env: gitFreeEnv("HOME=" + t.TempDir()),
		Progress: func(e PairEvent) {
			require.NoError(t, e.Err)
			events = append(events, fmt.Sprintf("%s-%s %d/%d", e.Side, e.Result.Run.Kind, e.N, e.Total))
		}}.Run(context.Background(), []string{"sh", "-c", pairCheck})
	require.NoError(t, err)
	assert.Equal(t, []string{"parent-base 1/2", "parent-base 2/2", "patch-after_turn 1/2", "patch-after_turn 2/2"}, events)
	assert.Equal(t, gitCmd(t, dir, "rev-parse", "HEAD^"), res.Parent)
	assert.Equal(t, gitCmd(t, dir, "rev-parse", "HEAD"), res.Patch)
	require.Len(t, res.ParentRuns, 2)
	require.Len(t, res.PatchRuns, 2)
	assert.Equal(t, testrun.DecisionReject, res.Paired.Decision)
	require.Len(t, res.Paired.Broken, 1)
	assert.Equal(t, "c::a", res.Paired.Broken[0].ID)
	require.Len(t, res.Paired.Repaired, 1)
	assert.Equal(t, "c::b", res.Paired.Repaired[0].ID)
	for _, d := range []string{"parent-1", "parent-2", "patch-1", "patch-2"} {
		assert.FileExists(t, filepath.Join(out, d, ResultsFile))
	}
	assert.Equal(t, 1, worktreeList(t, dir), "the worktrees are removed")
}

// TestPairRefused: each input Pair cannot use is an ErrPair, and the
// worktrees are removed also then; an ended context is ErrInterrupted.
func TestPairRefused(t *testing.T) {
	dir := pairRepo(t)
	bad := filepath.Join(t.TempDir(), "bad.diff")
	require.NoError(t, os.WriteFile(bad, []byte("--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n"), 0o644))
	env := gitFreeEnv("HOME=" + t.TempDir())
	for _, tc := range []struct {
		name string
		pair Pair
		want string
	}{
		{"one run", Pair{Dir: dir, Runs: 1}, "at least 2"},
		{"not a repository", Pair{Dir: t.TempDir(), Runs: 2}, "not in a git repository"},
		{"no such commit", Pair{Dir: dir, Runs: 2, PatchRef: "nope"}, "the parent"},
		{"the diff does not apply", Pair{Dir: dir, Runs: 2, Patch: bad}, "does not apply"},
		{"no pins file", Pair{Dir: dir, Runs: 2, Pins: filepath.Join(dir, "none.json")}, "pins"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.pair.Env, tc.pair.Out = env, t.TempDir()
			_, err := tc.pair.Run(context.Background(), []string{"sh", "-c", pairCheck})
			require.ErrorIs(t, err, ErrPair)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, 1, worktreeList(t, dir))
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := func(PairEvent) { cancel() } // after the first run
	_, err := Pair{Dir: dir, Runs: 2, Out: t.TempDir(), Env: env, Progress: stop}.Run(ctx, []string{"sh", "-c", pairCheck})
	require.ErrorIs(t, err, ErrInterrupted)
	assert.Equal(t, 1, worktreeList(t, dir))
}

// TestPairRunsEachSideOnItsWholeTree: every run of a side executes (go
// test's result cache is off, unless GOFLAGS sets a count), a sparse
// checkout does not carry into the worktrees, and a patch that moves a
// submodule, which the worktrees do not check out, is refused.
func TestPairRunsEachSideOnItsWholeTree(t *testing.T) {
	ctx := context.Background()
	assert.Contains(t, uncached(ctx, []string{"PATH=/nowhere"}), "GOFLAGS=-count=1")
	assert.Contains(t, uncached(ctx, []string{"GOFLAGS=-mod=mod"}), "GOFLAGS=-mod=mod -count=1")
	assert.Equal(t, []string{"GOFLAGS=-count=3"}, uncached(ctx, []string{"GOFLAGS=-count=3"}))
	assert.Contains(t, uncached(ctx, []string{"GOFLAGS=-run=x-count=2"}), "GOFLAGS=-run=x-count=2 -count=1", "a count inside another flag is none")
	if _, err := exec.LookPath("go"); err == nil {
		// go env -w's setting is kept: a variable would replace it.
		goenv := filepath.Join(t.TempDir(), "go.env")
		require.NoError(t, os.WriteFile(goenv, []byte("GOFLAGS=-tags=special\n"), 0o644))
		got := uncached(ctx, []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOENV=" + goenv})
		assert.Contains(t, got, "GOFLAGS=-tags=special -count=1")
	}
	assert.True(t, movesGitlink([]byte("diff --git a/lib b/lib\nindex 1111111..2222222 160000\n--- a/lib\n+++ b/lib\n@@ -1 +1 @@\n-Subproject commit 1111111\n+Subproject commit 2222222\n")))
	assert.True(t, movesGitlink([]byte("diff --git a/lib b/lib\ndeleted file mode 160000\nindex 1111111..0000000\n")))
	assert.False(t, movesGitlink([]byte("diff --git a/f.txt b/f.txt\nnew file mode 100644\nindex 0000000..1111111\n--- /dev/null\n+++ b/f.txt\n@@ -0,0 +1 @@\n+Subproject commit 1111111111111111111111111111111111111111\n")),
		"a file that reads like one is not a submodule")

	env := gitFreeEnv("HOME=" + t.TempDir())
	t.Run("sparse", func(t *testing.T) {
		dir := pairRepo(t)
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "extra"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "extra", "x.txt"), []byte("x\n"), 0o644))
		gitCmd(t, dir, "add", "-A")
		gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "extra")
		gitCmd(t, dir, "sparse-checkout", "set", "--no-cone", "/outcomes.txt")
		require.NoFileExists(t, filepath.Join(dir, "extra", "x.txt"), "the checkout is sparse")
		check := "test -f extra/x.txt && echo \"GOFLAGS=$GOFLAGS\" > \"$HANGAR_TESTS_DIR/env.txt\" && " + pairCheck
		res, err := Pair{Dir: dir, Runs: 2, Out: t.TempDir(), Env: env}.Run(context.Background(), []string{"sh", "-c", check})
		require.NoError(t, err)
		for _, r := range append(res.ParentRuns, res.PatchRuns...) {
			assert.Equal(t, testrun.StatusSuccess, r.Status, "the whole tree is there")
		}
		b, err := os.ReadFile(filepath.Join(res.Out, "patch-2", "env.txt"))
		require.NoError(t, err)
		assert.Equal(t, "GOFLAGS=-count=1\n", string(b))
	})
	t.Run("submodule moved", func(t *testing.T) {
		dir := pairRepo(t)
		for _, sha := range []string{"1111111111111111111111111111111111111111", "2222222222222222222222222222222222222222"} {
			gitCmd(t, dir, "update-index", "--add", "--cacheinfo", "160000,"+sha+",lib")
			gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "lib "+sha[:1])
		}
		_, err := Pair{Dir: dir, Runs: 2, Out: t.TempDir(), Env: env}.Run(context.Background(), []string{"sh", "-c", pairCheck})
		require.ErrorIs(t, err, ErrPair)
		assert.Contains(t, err.Error(), "the patch moves the submodule lib")
		assert.Equal(t, 1, worktreeList(t, dir))
	})
}
