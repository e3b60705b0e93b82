package check

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loggedGit puts first on PATH a git that writes each of its command
// lines to the file it returns, then runs the real git.
func loggedGit(t *testing.T) string {
	t.Helper()
	real, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	bin := t.TempDir()
	log := filepath.Join(t.TempDir(), "git.log")
	script := "#!/bin/sh\necho \"$*\" >> '" + log + "'\nexec '" + real + "' \"$@\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755))
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return log
}

// gitFreeEnv is the test's environment without the GIT_ variables.
func gitFreeEnv(extra ...string) []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "GIT_") {
			env = append(env, e)
		}
	}
	return append(env, extra...)
}

// TestReadGitStateStartsGitOnlyWhereAWorkTreeMayBe: outside any work tree
// no git is started; wherever git could find one (a .git folder or file
// above, the folder reached through a symbolic link, GIT_DIR and
// GIT_WORK_TREE) git reads the state as before.
func TestReadGitStateStartsGitOnlyWhereAWorkTreeMayBe(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	gitCmd(t, repo, "init", "-q")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub", "deeper"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "sub", "a.txt"), []byte("one\n"), 0o644))
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "one")
	head := gitCmd(t, repo, "rev-parse", "HEAD")
	linked := filepath.Join(t.TempDir(), "linked")
	gitCmd(t, repo, "worktree", "add", "-q", "--detach", linked)
	linked, err = filepath.EvalSymlinks(linked)
	require.NoError(t, err)
	_, err = os.Lstat(filepath.Join(linked, ".git"))
	require.NoError(t, err, "a linked work tree has a .git file")

	outside := filepath.Join(t.TempDir(), "plain", "folder")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	if dotGitAbove(outside) {
		t.Skipf("the test's temporary folder %s is inside a git work tree", outside)
	}
	viaLink := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(filepath.Join(repo, "sub", "deeper"), viaLink))

	log := loggedGit(t)
	for _, tc := range []struct {
		name    string
		dir     string
		env     []string
		wantGit bool
		wantTop string
		// wantOther: git names a work tree that does not hold dir.
		wantOther bool
	}{
		{"outside any work tree", outside, gitFreeEnv(), false, "", false},
		{"in a subfolder of a work tree", filepath.Join(repo, "sub", "deeper"), gitFreeEnv(), true, repo, false},
		{"at the top", repo, gitFreeEnv(), true, repo, false},
		{"in a linked work tree", linked, gitFreeEnv(), true, linked, false},
		{"through a symbolic link into a work tree", viaLink, gitFreeEnv(), true, repo, false},
		{"outside, with GIT_DIR and GIT_WORK_TREE", outside,
			gitFreeEnv("GIT_DIR="+filepath.Join(repo, ".git"), "GIT_WORK_TREE="+repo), true, "", true},
		{"outside, with GIT_DIR", outside, gitFreeEnv("GIT_DIR=" + filepath.Join(repo, ".git")), true, outside, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.Remove(log); !errors.Is(err, fs.ErrNotExist) {
				require.NoError(t, err)
			}
			st, err := readGitState(ctx, tc.dir, tc.env)
			if tc.wantOther {
				require.Error(t, err)
				assert.Equal(t, gitState{}, st)
				return
			}
			require.NoError(t, err)
			_, err = os.Stat(log)
			if !tc.wantGit {
				assert.ErrorIs(t, err, fs.ErrNotExist, "git was started")
				assert.Equal(t, gitState{}, st)
				return
			}
			require.NoError(t, err, "git was not started")
			assert.Equal(t, tc.wantTop, st.Top)
			assert.Equal(t, head, st.Commit)
			want, err := TreeDigest(ctx, tc.wantTop, tc.env)
			require.NoError(t, err)
			assert.Equal(t, want, st.Tree)
			assert.Len(t, st.Tree, 64)
		})
	}
}
