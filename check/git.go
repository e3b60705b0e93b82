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
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		return nil, fmt.Errorf("check: git %s: %w: %s", subcommand(args), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// subcommand is the git command args run, past any "-c name=value".
func subcommand(args []string) string {
	for len(args) > 2 && args[0] == "-c" {
		args = args[2:]
	}
	return args[0]
}

// gitState is what the check ran on.
type gitState struct {
	// Top is the work tree's root ("" outside a git work tree).
	Top string
	// Commit is HEAD ("" outside a work tree or before the first commit).
	Commit string
	// Tree is the working-tree digest (see TreeDigest).
	Tree string
	// Changed are the paths that make the tree differ from Commit's.
	Changed []string
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
	// core.worktree or GIT_WORK_TREE can name a work tree elsewhere: its
	// commit and digest would then describe files the check never ran on.
	if !holds(st.Top, dir) {
		return gitState{}, fmt.Errorf("check: git names the work tree %s, which does not hold the check's folder %s: no commit or digest is recorded", st.Top, dir)
	}
	var err error
	st.Tree, st.Changed, err = treeDigest(ctx, st.Top, env)
	return st, err
}

// changedNote says that the tree a run is about to check is not commit's
// own, naming the first paths that make it differ.
func changedNote(commit string, changed []string) string {
	const show = 3
	list := strings.Join(changed[:min(len(changed), show)], ", ")
	if len(changed) > show {
		list += fmt.Sprintf(", and %d more", len(changed)-show)
	}
	what := "file"
	if len(changed) > 1 {
		what = "files"
	}
	return fmt.Sprintf("the tree is not commit %.12s's own: %d uncommitted, untracked or absent %s (%s); an attestation of this run is not of that commit",
		commit, len(changed), what, list)
}

// holds reports whether the folder dir is top or inside it, once both
// have their symbolic links resolved (git reports top resolved).
func holds(top, dir string) bool {
	t, err := filepath.EvalSymlinks(top)
	if err != nil {
		return false
	}
	d, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	if d, err = filepath.EvalSymlinks(d); err != nil {
		return false
	}
	rel, err := filepath.Rel(t, d)
	return err == nil && filepath.IsLocal(rel)
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
// that git status lists as changed or untracked, and tracked files git is
// told not to look at (assume-unchanged, skip-worktree), are hashed as git
// would store them (git hash-object, filters applied) from what is on
// disk; files not on disk are left out. git's file-system monitor is not
// asked. An untracked folder holding a repository of its own (git lists
// the folder, not its files) is an error, not a digest that leaves it out.
// Equal content gives equal digests, in any clone or copy. It reads only:
// the index and the object store are not written. env is the environment
// git runs with (nil: this process's).
func TreeDigest(ctx context.Context, top string, env []string) (string, error) {
	d, _, err := treeDigest(ctx, top, env)
	return d, err
}

// treeDigest is TreeDigest that also returns, sorted, the paths that make
// the tree differ from HEAD: those git status names, and those git is told
// not to look at whose content differs from the index.
func treeDigest(ctx context.Context, top string, env []string) (string, []string, error) {
	if env == nil {
		env = os.Environ()
	}
	g := gitRunner{dir: top, env: env}
	files := map[string]treeEntry{}
	// The index and the status are read side by side.
	statusCh := make(chan gitResult, 1)
	go func() {
		out, err := g.run(ctx, nil, "-c", "core.fsmonitor=false", "status", "--porcelain=v1", "-z",
			"--untracked-files=all", "--no-renames", "--ignore-submodules=all")
		statusCh <- gitResult{out, err}
	}()
	out, err := g.run(ctx, nil, "ls-files", "-s", "-v", "-z")
	status := <-statusCh
	if err != nil {
		return "", nil, err
	}
	if status.err != nil {
		return "", nil, status.err
	}
	// onDisk lists the paths whose content is read from the disk: those
	// status names, and those git does not compare with it.
	var onDisk []string
	for _, rec := range bytes.Split(out, []byte{0}) {
		// <tag> <mode> <object> <stage>\t<path>
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 4 || f[3] != "0" {
			continue
		}
		files[string(path)] = treeEntry{mode: f[1], id: f[2]}
		// A lower-case tag is assume-unchanged, S skip-worktree: git
		// status does not look at such a file.
		if tag := f[0]; tag == "S" || strings.ToLower(tag) == tag {
			onDisk = append(onDisk, string(path))
		}
	}
	indexed := maps.Clone(files)
	changed := map[string]bool{}
	for _, rec := range bytes.Split(status.out, []byte{0}) {
		if len(rec) < 4 {
			continue
		}
		path := string(rec[3:])
		if strings.HasSuffix(path, "/") {
			return "", nil, fmt.Errorf("check: tree digest: the untracked folder %q holds a repository of its own, whose files git does not list", path)
		}
		onDisk = append(onDisk, path)
		changed[path] = true
	}
	var toHash []string
	seen := make(map[string]bool, len(onDisk))
	for _, path := range onDisk {
		if seen[path] {
			continue
		}
		seen[path] = true
		fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(path)))
		switch {
		case errors.Is(err, fs.ErrNotExist):
			delete(files, path)
		case err != nil:
			return "", nil, fmt.Errorf("check: tree digest: %w", err)
		case fi.Mode()&fs.ModeSymlink != 0:
			target, err := os.Readlink(filepath.Join(top, filepath.FromSlash(path)))
			if err != nil {
				return "", nil, fmt.Errorf("check: tree digest: %w", err)
			}
			files[path] = treeEntry{mode: "120000", id: blobID([]byte(target))}
		case fi.Mode().IsRegular():
			mode := "100644"
			if fi.Mode()&0o111 != 0 {
				mode = "100755"
			}
			files[path] = treeEntry{mode: mode}
			toHash = append(toHash, path)
		case fi.IsDir() && files[path].mode == "160000":
			// A submodule: its commit is the index's.
		default:
			// A folder where a tracked file was (git lists what it
			// holds on its own), or no file git could store.
			delete(files, path)
		}
	}
	ids, err := hashObjects(ctx, g, toHash)
	if err != nil {
		return "", nil, err
	}
	for i, p := range toHash {
		e := files[p]
		e.id = ids[i]
		files[p] = e
	}
	for p := range seen {
		if e, ok := files[p]; !ok || e != indexed[p] {
			changed[p] = true
		}
	}
	return treeSum(files), slices.Sorted(maps.Keys(changed)), nil
}

// treeEntry is a file of a tree: its git mode and blob id.
type treeEntry struct{ mode, id string }

// treeSum is the digest over files by path in byte order, each with its
// mode and blob id: the form of TreeDigest, and of CommitTreeDigest.
func treeSum(files map[string]treeEntry) string {
	h := sha256.New()
	for _, p := range slices.Sorted(maps.Keys(files)) {
		e := files[p]
		fmt.Fprintf(h, "%s %s\t%s\x00", e.mode, e.id, p)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// CommitTreeDigest returns the digest TreeDigest gives a clean checkout of
// commit (a clone with no change and no untracked file), read from the
// repository holding dir ("" the current folder): the digest a run on
// exactly that commit records.
func CommitTreeDigest(ctx context.Context, dir, commit string) (string, error) {
	files, err := commitTree(ctx, gitRunner{dir: dir, env: os.Environ()}, commit)
	if err != nil {
		return "", err
	}
	return treeSum(files), nil
}

// commitTree reads the files of commit's tree (git ls-tree), submodules'
// commits (mode 160000) among them.
func commitTree(ctx context.Context, g gitRunner, commit string) (map[string]treeEntry, error) {
	out, err := g.run(ctx, nil, "ls-tree", "-r", "-z", "--full-tree", "--end-of-options", commit+"^{commit}")
	if err != nil {
		return nil, err
	}
	files := map[string]treeEntry{}
	for _, rec := range bytes.Split(out, []byte{0}) {
		// <mode> <type> <object>\t<path>
		meta, path, ok := bytes.Cut(rec, []byte{'\t'})
		if !ok {
			continue
		}
		f := strings.Fields(string(meta))
		if len(f) != 3 {
			return nil, fmt.Errorf("check: git ls-tree gave %q", rec)
		}
		files[string(path)] = treeEntry{mode: f[0], id: f[2]}
	}
	return files, nil
}

// hashBatch bounds the bytes of paths given to one git hash-object.
const hashBatch = 64 << 10

// hashObjects returns git's blob id of each file at paths, as git would
// store it. The paths are given as arguments: --stdin-paths would read a
// name that starts with a double quote as a C-quoted one.
func hashObjects(ctx context.Context, g gitRunner, paths []string) ([]string, error) {
	var ids []string
	for len(paths) > 0 {
		n, size := 0, 0
		for n < len(paths) && (n == 0 || size+len(paths[n]) < hashBatch) {
			size += len(paths[n]) + 1
			n++
		}
		args := append([]string{"hash-object", "--"}, paths[:n]...)
		out, err := g.run(ctx, nil, args...)
		if err != nil {
			return nil, err
		}
		got := strings.Fields(string(out))
		if len(got) != n {
			return nil, fmt.Errorf("check: tree digest: git hash-object gave %d ids for %d files", len(got), n)
		}
		ids = append(ids, got...)
		paths = paths[n:]
	}
	return ids, nil
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
