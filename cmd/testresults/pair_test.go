package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// gitRepo makes a git repository in a fresh folder with files committed as
// the first commit, and returns it.
func gitRepo(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	commitFiles(t, dir, "parent", files)
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func commitFiles(t *testing.T, dir, msg string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(content), 0o644))
	}
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", msg)
}

// pairEnv is this process's environment without runner variables, plus vars.
func pairEnv(t *testing.T, vars ...string) []string {
	t.Helper()
	var e []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PYTEST_ADDOPTS", k == "NO_COLOR", k == "GOFLAGS", strings.HasPrefix(k, "GOTESTSUM_"),
			strings.HasPrefix(k, "JEST_JUNIT_"), strings.HasPrefix(k, "HANGAR_"), strings.HasPrefix(k, "GIT_"):
			continue
		}
		e = append(e, kv)
	}
	return append(e, vars...)
}

func runPairInProc(t *testing.T, ctx context.Context, environ []string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	get := func(k string) string {
		for _, kv := range environ {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	code := run(ctx, append([]string{"pair"}, args...), Env{
		Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: &errb,
		Getenv: get, Environ: func() []string { return environ },
	})
	return code, out.String(), errb.String()
}

// worktreeCount is how many worktrees git lists for the repository.
func worktreeCount(t *testing.T, dir string) int {
	t.Helper()
	return strings.Count(git(t, dir, "worktree", "list", "--porcelain"), "worktree ")
}

// goPairModule is a Go module whose tests read files of the tree to decide
// pass or fail, and one test that alternates: it fails on every second run,
// counted in a file outside the tree ($PAIR_COUNTER).
var goPairModule = map[string]string{
	"go.mod": "module example.com/p\n\ngo 1.21\n",
	"p_test.go": `package p

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

func state(t *testing.T, name string) string {
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

func TestStable(t *testing.T) {}

func TestBreaks(t *testing.T) {
	if state(t, "breaks.txt") != "ok" {
		t.Fatal("breaks.txt is not ok")
	}
}

func TestRepairs(t *testing.T) {
	if state(t, "repairs.txt") != "ok" {
		t.Fatal("repairs.txt is not ok")
	}
}

func TestFlips(t *testing.T) {
	p := os.Getenv("PAIR_COUNTER")
	b, _ := os.ReadFile(p)
	n, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := os.WriteFile(p, []byte(strconv.Itoa(n+1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if n%2 == 1 {
		t.Fatalf("run %d fails", n)
	}
}
`,
	"breaks.txt":  "ok\n",
	"repairs.txt": "bad\n",
}

func TestPairE2EGotestsum(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test eight times; skipped with -short")
	}
	gotestsum := gotestsumPath(t)
	dir := gitRepo(t, goPairModule)
	commitFiles(t, dir, "patch: break one, repair one", map[string]string{"breaks.txt": "bad\n", "repairs.txt": "ok\n"})
	head := git(t, dir, "rev-parse", "HEAD")
	environ := pairEnv(t, "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod", "PAIR_COUNTER="+filepath.Join(t.TempDir(), "counter"))

	tests := []struct {
		name string
		args []string
	}{
		{"patch is HEAD", nil},
		{"patch-ref", []string{"--patch-ref", head}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := append(append([]string{}, environ...), "PAIR_COUNTER="+filepath.Join(t.TempDir(), "counter"))
			out := filepath.Join(t.TempDir(), "runs")
			args := append([]string{"-C", dir, "--out", out, "--json"}, tt.args...)
			args = append(args, "--", gotestsum, "--", "-count=1", "./...")
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			code, stdout, stderr := runPairInProc(t, ctx, env, args...)
			assert.Equal(t, exitFailed, code, "broken rejects; stderr: %s", stderr)
			var p testrun.Paired
			require.NoError(t, json.Unmarshal([]byte(stdout), &p), stdout)
			ids := func(tvs []testrun.TestVerdict) []string {
				var s []string
				for _, tv := range tvs {
					s = append(s, tv.ID)
				}
				return s
			}
			assert.Equal(t, testrun.DecisionReject, p.Decision)
			assert.Equal(t, []string{"example.com/p::TestBreaks"}, ids(p.Broken))
			assert.Equal(t, []string{"example.com/p::TestRepairs"}, ids(p.Repaired))
			assert.Equal(t, []string{"example.com/p::TestFlips"}, ids(p.Frozen))
			assert.Empty(t, p.Inconclusive)
			assert.Equal(t, 1, p.Unchanged, "TestStable")
			assert.Len(t, p.ParentRuns, 2)
			assert.Len(t, p.PatchRuns, 2)
			assert.Contains(t, stderr, "frozen (excluded): example.com/p::TestFlips")
			for _, side := range []string{"parent-1", "parent-2", "patch-1", "patch-2"} {
				res := readResults(t, filepath.Join(out, side))
				wantKind := "base"
				if strings.HasPrefix(side, "patch") {
					wantKind = "after_turn"
				}
				assert.Equal(t, wantKind, res["kind"], side)
			}
			assert.Equal(t, 1, worktreeCount(t, dir), "the worktrees are removed")
			assert.Equal(t, head, git(t, dir, "rev-parse", "HEAD"), "the repository is untouched")
		})
	}
}

// junitCheck is a check that writes a JUnit report from the tree's
// outcomes.txt (lines "name outcome") into the report folder.
const junitCheck = `set -e
f="$HANGAR_TESTS_DIR/r.xml"
echo '<testsuite name="s">' > "$f"
while read -r name outcome; do
  if [ "$outcome" = pass ]; then
    echo "<testcase classname=\"c\" name=\"$name\"/>" >> "$f"
  else
    echo "<testcase classname=\"c\" name=\"$name\"><failure message=\"x\"/></testcase>" >> "$f"
  fi
done < outcomes.txt
echo '</testsuite>' >> "$f"
`

func TestPairPatchFile(t *testing.T) {
	dir := gitRepo(t, map[string]string{
		"outcomes.txt":      "a pass\nb fail\nc pass\n",
		"fixtures/data.txt": "v1\n",
	})
	diff := func(files map[string]string) string {
		t.Helper()
		for p, c := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(c), 0o644))
		}
		d := git(t, dir, "diff")
		git(t, dir, "checkout", "--", ".")
		p := filepath.Join(t.TempDir(), "change.diff")
		require.NoError(t, os.WriteFile(p, []byte(d+"\n"), 0o644))
		return p
	}
	breakA := diff(map[string]string{"outcomes.txt": "a fail\nb pass\nc pass\n"})
	fixture := diff(map[string]string{"outcomes.txt": "a pass\nb pass\nc pass\n", "fixtures/data.txt": "v2\n"})
	pins := filepath.Join(t.TempDir(), "pins.json")
	sum, err := testrun.HashPins(os.DirFS(dir), []string{"fixtures/data.txt"})
	require.NoError(t, err)
	b, err := json.Marshal(sum)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(pins, b, 0o644))
	bad := filepath.Join(t.TempDir(), "bad.diff")
	require.NoError(t, os.WriteFile(bad, []byte("--- a/nope.txt\n+++ b/nope.txt\n@@ -1 +1 @@\n-x\n+y\n"), 0o644))

	tests := []struct {
		name     string
		args     []string
		code     int
		decision testrun.Decision
		stderr   string
	}{
		{"breaks a, repairs b", []string{"--patch", breakA}, exitFailed, testrun.DecisionReject, ""},
		{"repairs b, fixture unpinned", []string{"--patch", fixture}, exitOK, testrun.DecisionAllow, ""},
		{"fixture pin changed", []string{"--patch", fixture, "--pins", pins}, exitRejected, testrun.DecisionInvalid, "invalid"},
		{"pins unchanged", []string{"--patch", breakA, "--pins", pins, "--runs", "3"}, exitFailed, testrun.DecisionReject, ""},
		{"patch does not apply", []string{"--patch", bad}, exitRejected, "", "does not apply"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"-C", dir, "--json", "--out", filepath.Join(t.TempDir(), "runs")}, tt.args...)
			args = append(args, "--", "sh", "-c", junitCheck)
			code, stdout, stderr := runPairInProc(t, context.Background(), pairEnv(t), args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Contains(t, stderr, tt.stderr)
			assert.Equal(t, 1, worktreeCount(t, dir), "the worktrees are removed, also on failure")
			assert.Empty(t, git(t, dir, "status", "--porcelain"), "the repository's own tree is untouched")
			if tt.decision == "" {
				assert.Empty(t, stdout)
				return
			}
			var p testrun.Paired
			require.NoError(t, json.Unmarshal([]byte(stdout), &p), stdout)
			assert.Equal(t, tt.decision, p.Decision)
			if tt.decision == testrun.DecisionReject {
				require.Len(t, p.Broken, 1)
				assert.Equal(t, "c::a", p.Broken[0].ID)
				require.Len(t, p.Repaired, 1)
				assert.Equal(t, "c::b", p.Repaired[0].ID)
			}
		})
	}
}

func TestPairInterrupted(t *testing.T) {
	dir := gitRepo(t, map[string]string{"outcomes.txt": "a pass\n"})
	commitFiles(t, dir, "patch", map[string]string{"outcomes.txt": "a fail\n"})
	ctx, cancel := context.WithCancel(context.Background())
	started := filepath.Join(t.TempDir(), "started")
	go func() {
		for range 500 {
			if _, err := os.Stat(started); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
	}()
	code, _, stderr := runPairInProc(t, ctx, pairEnv(t), "-C", dir, "--out", t.TempDir(), "--", "sh", "-c", "touch "+started+"; sleep 30")
	assert.Equal(t, exitInterrupted, code, stderr)
	assert.Equal(t, 1, worktreeCount(t, dir), "the worktrees are removed after a signal")
}

func TestPairUsage(t *testing.T) {
	repo := gitRepo(t, map[string]string{"a.txt": "a\n"})
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no command", nil, exitUsage, "no command given"},
		{"no dash", []string{"true"}, exitUsage, "put the command after --"},
		{"empty command", []string{"--", ""}, exitUsage, "no command"},
		{"one run", []string{"--runs", "1", "--", "true"}, exitUsage, "at least 2"},
		{"both patches", []string{"--patch", "x.diff", "--patch-ref", "HEAD", "--", "true"}, exitUsage, "not both"},
		{"missing diff", []string{"--patch", filepath.Join(repo, "none.diff"), "--", "true"}, exitUsage, "--patch"},
		{"not a repository", []string{"-C", t.TempDir(), "--", "true"}, exitRejected, "not in a git repository"},
		{"no parent", []string{"-C", repo, "--", "true"}, exitRejected, "the parent"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runPairInProc(t, context.Background(), pairEnv(t), tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tt.want)
		})
	}
	assert.Equal(t, 1, worktreeCount(t, repo))
}
