package check

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// committedRepo makes a repository with one commit of a.txt ("one"), a
// script and a link, and returns its folder and the commit.
func committedRepo(t *testing.T) (string, string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	repo, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	gitCmd(t, repo, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "sub"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "sub", "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(repo, "link")))
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "one")
	return repo, gitCmd(t, repo, "rev-parse", "HEAD")
}

// TestCommitTreeDigestIsACleanCheckout: a clean checkout's digest is the
// commit's, read from the object store alone; any change makes them differ.
func TestCommitTreeDigestIsACleanCheckout(t *testing.T) {
	ctx := context.Background()
	repo, head := committedRepo(t)
	clean, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	got, err := CommitTreeDigest(ctx, repo, head)
	require.NoError(t, err)
	assert.Equal(t, clean, got)

	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o644))
	edited, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.NotEqual(t, got, edited)

	_, err = CommitTreeDigest(ctx, repo, "0123456789012345678901234567890123456789")
	assert.Error(t, err, "a commit the repository does not hold")
}

// TestTreeDigestSeesWhatGitIsToldToIgnore: an edit git status does not
// report, because the index marks the file assume-unchanged or
// skip-worktree, or because a file-system monitor is configured, still
// changes the digest; a file such a mark leaves off the disk is left out.
func TestTreeDigestSeesWhatGitIsToldToIgnore(t *testing.T) {
	ctx := context.Background()
	for _, mark := range []string{"--assume-unchanged", "--skip-worktree"} {
		t.Run(mark, func(t *testing.T) {
			repo, head := committedRepo(t)
			clean, err := CommitTreeDigest(ctx, repo, head)
			require.NoError(t, err)
			gitCmd(t, repo, "update-index", mark, "a.txt")
			require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o644))
			assert.Empty(t, gitCmd(t, repo, "status", "--porcelain"), "git status shows nothing")
			edited, changed, err := treeDigest(ctx, repo, nil)
			require.NoError(t, err)
			assert.NotEqual(t, clean, edited, "the edit changes the digest")
			assert.Equal(t, []string{"a.txt"}, changed, "and is named")

			require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644))
			back, changed, err := treeDigest(ctx, repo, nil)
			require.NoError(t, err)
			assert.Equal(t, clean, back, "the file as committed gives the commit's digest")
			assert.Empty(t, changed)

			require.NoError(t, os.Remove(filepath.Join(repo, "a.txt")))
			gone, err := TreeDigest(ctx, repo, nil)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644))
			assert.NotEqual(t, clean, gone, "a file not on disk is left out")
		})
	}
	t.Run("fsmonitor", func(t *testing.T) {
		repo, head := committedRepo(t)
		clean, err := CommitTreeDigest(ctx, repo, head)
		require.NoError(t, err)
		// A monitor that says nothing changed, with a token git takes.
		hook := filepath.Join(t.TempDir(), "monitor")
		require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\nprintf 'token\\0'\n"), 0o755))
		gitCmd(t, repo, "config", "core.fsmonitor", hook)
		gitCmd(t, repo, "config", "core.fsmonitorHookVersion", "2")
		gitCmd(t, repo, "update-index", "--fsmonitor")
		gitCmd(t, repo, "status")
		require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o644))
		require.Empty(t, gitCmd(t, repo, "status", "--porcelain"), "the monitor hides the edit from git status")
		edited, err := TreeDigest(ctx, repo, nil)
		require.NoError(t, err)
		assert.NotEqual(t, clean, edited)
	})
}

// TestTreeDigestNamesAreLiteral: an untracked file whose name starts with
// a double quote, or holds a new line, is hashed as itself.
func TestTreeDigestNamesAreLiteral(t *testing.T) {
	ctx := context.Background()
	repo, _ := committedRepo(t)
	for _, name := range []string{`"a.txt"`, "new\nline", "-dash"} {
		p := filepath.Join(repo, name)
		require.NoError(t, os.WriteFile(p, []byte("x\n"), 0o644))
		before, err := TreeDigest(ctx, repo, nil)
		require.NoError(t, err, name)
		require.NoError(t, os.WriteFile(p, []byte("y\n"), 0o644))
		after, err := TreeDigest(ctx, repo, nil)
		require.NoError(t, err, name)
		assert.NotEqual(t, before, after, "%q: its content is hashed", name)
		require.NoError(t, os.Remove(p))
	}
}

// TestTreeDigestRefusesAnUntrackedRepository: git lists an untracked
// folder that holds a repository as the folder alone; its files would be
// left out, so there is no digest.
func TestTreeDigestRefusesAnUntrackedRepository(t *testing.T) {
	ctx := context.Background()
	repo, _ := committedRepo(t)
	inner := filepath.Join(repo, "extra")
	require.NoError(t, os.MkdirAll(inner, 0o755))
	gitCmd(t, inner, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(inner, "value.txt"), []byte("good\n"), 0o644))
	_, err := TreeDigest(ctx, repo, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"extra/"`)
}

// TestReadGitStateOnlyForTheCheckedFolder: a work tree that git is pointed
// at elsewhere (core.worktree, GIT_WORK_TREE) is not the check's: no
// commit and no digest are recorded, and the error says why.
func TestReadGitStateOnlyForTheCheckedFolder(t *testing.T) {
	ctx := context.Background()
	repo, _ := committedRepo(t)
	decoy, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(decoy, "a.txt"), []byte("one\n"), 0o644))

	outside, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	st, err := readGitState(ctx, outside, gitFreeEnv("GIT_DIR="+filepath.Join(repo, ".git"), "GIT_WORK_TREE="+decoy))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "does not hold the check's folder")
	assert.Equal(t, gitState{}, st)

	gitCmd(t, repo, "config", "core.worktree", decoy)
	st, err = readGitState(ctx, repo, gitFreeEnv())
	require.Error(t, err)
	assert.Equal(t, gitState{}, st)

	// A folder inside the work tree named is the check's.
	require.NoError(t, os.MkdirAll(filepath.Join(decoy, "sub"), 0o755))
	st, err = readGitState(ctx, filepath.Join(decoy, "sub"), gitFreeEnv("GIT_DIR="+filepath.Join(repo, ".git"), "GIT_WORK_TREE="+decoy))
	require.NoError(t, err)
	assert.Equal(t, decoy, st.Top)
	assert.Len(t, st.Tree, 64)
}

// TestRunNotesATreeNotTheCommits: a run whose tree holds an untracked file
// (an earlier run's report folder) says so, naming it, so that its
// attestation failing to verify as the commit's is no surprise.
func TestRunNotesATreeNotTheCommits(t *testing.T) {
	repo, _ := committedRepo(t)
	res, _, _ := runSh(t, repo, "true")
	for _, n := range res.Notes {
		assert.NotContains(t, n, "the tree is not commit")
	}
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "results", "base"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "results", "base", "TEST-RESULTS.json"), []byte("{}"), 0o644))
	res, _, _ = runSh(t, repo, "true")
	assert.Contains(t, strings.Join(res.Notes, "\n"), "uncommitted, untracked or absent file (results/base/TEST-RESULTS.json); an attestation of this run is not of that commit")
}
