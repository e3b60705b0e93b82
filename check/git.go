package check

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// gitTimeout bounds each git command run to read the commit and the tree.
const gitTimeout = 2 * time.Minute

// gitRunner runs git in a folder with the check's environment. Optional
// locks are off, so that reading the state never writes the index.
type gitRunner struct {
	dir string
	env []string
}

func (g gitRunner) run(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = g.dir
	cmd.Env = append(append([]string(nil), g.env...), "GIT_OPTIONAL_LOCKS=0")
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("check: git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// gitState is what the check ran on.
type gitState struct {
	// Top is the work tree's root ("" outside a git work tree).
	Top string
	// Commit is HEAD ("" outside a work tree or before the first commit).
	Commit string
	// Tree is the working-tree digest (see TreeDigest).
	Tree string
}

// readGitState reads the work tree holding dir, its HEAD and its digest.
// Outside a git work tree (or without git) every field is "".
func readGitState(ctx context.Context, dir string, env []string) (gitState, error) {
	if !mayBeWorkTree(dir, env) {
		return gitState{}, nil // no git started where it could find nothing
	}
	g := gitRunner{dir: dir, env: env}
	// One git for both: the top line, then HEAD's id unless there is no
	// commit yet (git then fails after printing the top line).
	out, _ := g.run(ctx, nil, "rev-parse", "--show-toplevel", "--verify", "-q", "HEAD")
	lines := strings.Fields(string(out))
	if len(lines) == 0 {
		return gitState{}, nil
	}
	st := gitState{Top: lines[0]}
	if len(lines) > 1 {
		st.Commit = lines[1]
	}
	var err error
	st.Tree, err = TreeDigest(ctx, st.Top, env)
	return st, err
}

// mayBeWorkTree reports whether git could find a work tree holding dir:
// GIT_DIR or GIT_WORK_TREE is set in env, or a .git entry (a folder, or
// the file of a linked work tree or a submodule) is in dir or a folder
// above it, on its path as given or with its symbolic links resolved (git
// walks up the latter). It errs on the side of true: false only where git
// would find no work tree either.
func mayBeWorkTree(dir string, env []string) bool {
	for _, e := range env {
		if strings.HasPrefix(e, "GIT_DIR=") || strings.HasPrefix(e, "GIT_WORK_TREE=") {
			return true
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return true
	}
	if dotGitAbove(abs) {
		return true
	}
	real, err := filepath.EvalSymlinks(abs)
	return err != nil || (real != abs && dotGitAbove(real))
}

// dotGitAbove reports whether the absolute folder d or a folder above it
// holds a .git entry, or one of them cannot be looked at.
func dotGitAbove(d string) bool {
	for {
		if _, err := os.Lstat(filepath.Join(d, ".git")); !errors.Is(err, fs.ErrNotExist) {
			return true // there, or not known not to be
		}
		up := filepath.Dir(d)
		if up == d {
			return false
		}
		d = up
	}
}

// TreeDigest returns the digest of the content of the git work tree at top,
// uncommitted changes and untracked files included, ignored files not: 64
// hex digits of a SHA-256 over the sorted (path, mode, git blob id) of
// every file. Clean tracked files take their blob id from the index; files
// that git status lists as changed or untracked are hashed as git would
// store them (git hash-object, filters applied); deleted files are left
// out. Equal content gives equal digests, in any clone or copy. It reads
// only: the index and the object store are not written. env is the
// environment git runs with (nil: this process's).
func TreeDigest(ctx context.Context, top string, env []string) (string, error) {
	if env == nil {
		env = os.Environ()
	}
	g := gitRunner{dir: top, env: env}
	type entry struct{ mode, id string }
	files := map[string]entry{}
	// The index and the status are read side by side.
	statusCh := make(chan gitResult, 1)
	go func() {
		out, err := g.run(ctx, nil, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames", "--ignore-submodules=all")
		statusCh <- gitResult{out, err}
	}()
	out, err := g.run(ctx, nil, "ls-files", "-s", "-z")
	status := <-statusCh
	if err != nil {
		return "", err
	}
	if status.err != nil {
		return "", status.err
	}
	for _, rec := range bytes.Split(out, []byte{0}) {
		// <mode> <object> <stage>\t<path>
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 || f[2] != "0" {
			continue
		}
		files[string(path)] = entry{mode: f[0], id: f[1]}
	}
	var toHash []string
	for _, rec := range bytes.Split(status.out, []byte{0}) {
		if len(rec) < 4 {
			continue
		}
		path := string(rec[3:])
		fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			delete(files, path)
		case err != nil:
			return "", fmt.Errorf("check: tree digest: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(top, filepath.FromSlash(path)))
			if err != nil {
				return "", fmt.Errorf("check: tree digest: %w", err)
			}
			files[path] = entry{mode: "120000", id: blobID([]byte(target))}
		case fi.Mode().IsRegular():
			mode := "100644"
			if fi.Mode()&0o111 != 0 {
				mode = "100755"
			}
			files[path] = entry{mode: mode}
			toHash = append(toHash, path)
		}
	}
	if len(toHash) > 0 {
		out, err := g.run(ctx, []byte(strings.Join(toHash, "\n")+"\n"), "hash-object", "--stdin-paths")
		if err != nil {
			return "", err
		}
		ids := strings.Fields(string(out))
		if len(ids) != len(toHash) {
			return "", fmt.Errorf("check: tree digest: git hash-object gave %d ids for %d files", len(ids), len(toHash))
		}
		for i, p := range toHash {
			e := files[p]
			e.id = ids[i]
			files[p] = e
		}
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	h := sha256.New()
	for _, p := range paths {
		e := files[p]
		fmt.Fprintf(h, "%s %s\t%s\x00", e.mode, e.id, p)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

type gitResult struct {
	out []byte
	err error
}

// blobID is git's object id of a blob holding b (SHA-1).
func blobID(b []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(b))
	h.Write(b)
	return hex.EncodeToString(h.Sum(nil))
}

// text runs git and returns its output without the surrounding space.
func (g gitRunner) text(ctx context.Context, args ...string) (string, error) {
	out, err := g.run(ctx, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// commit resolves rev to a commit id.
func (g gitRunner) commit(ctx context.Context, rev string) (string, error) {
	return g.text(ctx, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
}
