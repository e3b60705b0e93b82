package check

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// ErrInterrupted is returned by Pair.Run when its context ended while a
// check ran.
var ErrInterrupted = errors.New("check: interrupted")

// ErrPair is wrapped by every error of Pair.Run that is about its input:
// not a git repository, a revision that does not resolve, a patch that
// does not apply, a pins file, a worktree or a report folder that could
// not be made.
var ErrPair = errors.New("check: pair")

// Pair runs a check Runs times on the parent and as many times on the
// patch, each side in its own detached git worktree, and judges them
// (testrun.PairedVerdict).
//
// The revisions: with Patch, the parent is HEAD and the patch is HEAD with
// the diff applied (git apply); with PatchRef, the parent is PatchRef^ and
// the patch PatchRef; with neither, as PatchRef HEAD.
type Pair struct {
	// Dir is a folder in the repository ("" the current folder).
	Dir string
	// Patch is a diff file; PatchRef a commit. At most one is set.
	Patch, PatchRef string
	// Runs is how many runs on each side (at least testrun.MinPairedRuns).
	Runs int
	// Out is the folder of the runs' report folders, SIDE-N each
	// (parent-1, patch-2); "" makes a fresh temporary one, which is kept.
	Out string
	// Timeout ends each run after this long; 0 means never.
	Timeout time.Duration
	// Env is the checks' environment (and git's).
	Env []string
	// Output receives the checks' stdout and stderr (nil: discarded).
	Output io.Writer
	// Pins is a pins file (a JSON object: fixture path -> sha256, relative
	// to the repository's root), hashed again in each tree: a pinned
	// fixture that differs makes the comparison invalid. "" for none.
	Pins string
	// Progress, when set, is told of each run once it is written, and of
	// what went wrong in it short of stopping the pair.
	Progress func(PairEvent)
}

// PairEvent is one run of a Pair: its side ("parent", "patch", or "new"
// for a new-test run), its number on that side (from 1) of Total, and its
// result or a problem the run had. An event with no side is a problem of
// the pair itself (removing the worktrees failed), which does not change
// its result.
type PairEvent struct {
	Side     string
	N, Total int
	Result   *Result
	Err      error
}

// PairResult is what a Pair ran and judged.
type PairResult struct {
	// Parent and Patch are the commits the sides ran on; with a diff,
	// Patch is the parent's commit (the diff applied in its worktree).
	Parent, Patch string
	// Out is the folder of the runs' report folders.
	Out string
	// ParentRuns and PatchRuns are the runs in order.
	ParentRuns, PatchRuns []*testrun.Run
	// Paired is the verdict.
	Paired *testrun.Paired
}

// Run makes the worktrees, runs the check argv on each side (the parent's
// runs first, kind base; then the patch's, kind after_turn), writes each
// run's TEST-RESULTS.json, removes the worktrees (whatever happens, also
// when ctx ends) and returns the verdict. An error wraps ErrPair for its
// input, ErrInterrupted when ctx ended, ErrNoCommand before anything was
// made, or ErrMode or ErrReportDir from a run.
func (p Pair) Run(ctx context.Context, argv []string) (*PairResult, error) {
	if len(argv) == 0 || argv[0] == "" {
		return nil, ErrNoCommand
	}
	if p.Runs < testrun.MinPairedRuns {
		return nil, fmt.Errorf("%w: %d runs a side: want at least %d", ErrPair, p.Runs, testrun.MinPairedRuns)
	}
	if p.Patch != "" && p.PatchRef != "" {
		return nil, fmt.Errorf("%w: a diff and a patch commit, not both", ErrPair)
	}
	res := &PairResult{Out: p.Out}
	p.Env = uncached(ctx, p.Env)
	trees, remove, err := p.worktreesFor(ctx, res)
	if err != nil {
		return nil, err
	}
	defer remove()
	parentTree, patchTree, err := p.trees(ctx, trees, res)
	if err != nil {
		return nil, err
	}
	var vopts []testrun.VerdictOption
	if p.Pins != "" {
		pins, err := hashPins(p.Pins, parentTree, patchTree)
		if err != nil {
			return nil, fmt.Errorf("%w: pins: %v", ErrPair, err)
		}
		vopts = append(vopts, pins)
	}
	if res.Out == "" {
		if res.Out, err = os.MkdirTemp("", "testresults-pair-runs-"); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrPair, err)
		}
	}
	if res.ParentRuns, err = p.side(ctx, argv, "parent", parentTree, testrun.KindBase, res.Out); err != nil {
		return nil, err
	}
	if res.PatchRuns, err = p.side(ctx, argv, "patch", patchTree, testrun.KindAfterTurn, res.Out); err != nil {
		return nil, err
	}
	if res.Paired, err = testrun.PairedVerdict(res.ParentRuns, res.PatchRuns, vopts...); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPair, err)
	}
	return res, nil
}

// revisions finds the repository's root and resolves the parent's and the
// patch's commits into res.
func (p Pair) revisions(ctx context.Context, res *PairResult) (gitRunner, error) {
	dir := p.Dir
	if dir == "" {
		dir = "."
	}
	g := gitRunner{dir: dir, env: p.Env}
	root, err := g.text(ctx, "rev-parse", "--show-toplevel")
	if err != nil {
		return g, fmt.Errorf("%w: %s is not in a git repository: %v", ErrPair, dir, err)
	}
	g.dir = root
	parentRev, patchRev := "HEAD", ""
	switch {
	case p.Patch != "":
	case p.PatchRef != "":
		parentRev, patchRev = p.PatchRef+"^", p.PatchRef
	default:
		parentRev, patchRev = "HEAD^", "HEAD"
	}
	if res.Parent, err = g.commit(ctx, parentRev); err != nil {
		return g, fmt.Errorf("%w: the parent: %v", ErrPair, err)
	}
	res.Patch = res.Parent
	if patchRev != "" {
		if res.Patch, err = g.commit(ctx, patchRev); err != nil {
			return g, fmt.Errorf("%w: the patch: %v", ErrPair, err)
		}
	}
	return g, nil
}

// trees adds the parent's and the patch's worktrees, the diff applied on
// the patch's.
func (p Pair) trees(ctx context.Context, trees *worktrees, res *PairResult) (parent, patch string, err error) {
	if parent, err = trees.add(ctx, "parent", res.Parent); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrPair, err)
	}
	if patch, err = p.patchTree(ctx, trees, "patch", res.Patch); err != nil {
		return "", "", err
	}
	return parent, patch, nil
}

// patchTree adds the worktree name of the patch's commit, the diff applied.
func (p Pair) patchTree(ctx context.Context, trees *worktrees, name, commit string) (string, error) {
	tree, err := trees.add(ctx, name, commit)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrPair, err)
	}
	if p.Patch != "" {
		diff, err := filepath.Abs(p.Patch)
		if err == nil {
			_, err = gitRunner{dir: tree, env: p.Env}.text(ctx, "apply", diff)
		}
		if err != nil {
			return "", fmt.Errorf("%w: the diff does not apply on %s: %v", ErrPair, shortRev(commit), err)
		}
	}
	return tree, nil
}

// side runs the check p.Runs times in tree, kind kind, each run in its own
// report folder under out.
func (p Pair) side(ctx context.Context, argv []string, name, tree string, kind testrun.Kind, out string) ([]*testrun.Run, error) {
	var runs []*testrun.Run
	for i := 1; i <= p.Runs; i++ {
		e := PairEvent{Side: name, N: i, Total: p.Runs}
		r, err := p.run(ctx, argv, e, name+" run", tree, kind, filepath.Join(out, name+"-"+strconv.Itoa(i)))
		if err != nil {
			return nil, err
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// uncached is env (nil: this process's) with go test's result cache off
// (GOFLAGS gains -count=1 unless it sets a count): every run of a side is
// an execution, never a cached copy of the first. Where env does not set
// GOFLAGS, go's own setting (go env -w) is kept: a variable set here would
// replace it.
func uncached(ctx context.Context, env []string) []string {
	if env == nil {
		env = os.Environ()
	}
	flags, set := environ(env).lookup("GOFLAGS")
	if !set {
		ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, "go", "env", "GOFLAGS")
		cmd.Env = env
		if out, err := cmd.Output(); err == nil {
			flags = strings.TrimSpace(string(out))
		}
	}
	for _, f := range strings.Fields(flags) {
		if strings.HasPrefix(f, "-count=") || strings.HasPrefix(f, "--count=") {
			return env
		}
	}
	return environ(env).set("GOFLAGS", strings.TrimSpace(flags+" -count=1"))
}

// run is run e of the check in tree, kind kind, reported in dir: its
// TEST-RESULTS.json written, told to Progress; label names it in errors
// ("patch run", "new-test run").
func (p Pair) run(ctx context.Context, argv []string, e PairEvent, label, tree string, kind testrun.Kind, dir string) (*testrun.Run, error) {
	output := p.Output
	if output == nil {
		output = io.Discard
	}
	r, err := Run(ctx, argv, WithDir(tree), WithEnv(p.Env), WithStdio(bytes.NewReader(nil), output, output),
		WithKind(kind, ""), WithReportDir(dir), WithTimeout(p.Timeout))
	if ctx.Err() != nil {
		if r != nil {
			_ = r.Close() // the run is abandoned; its folder stays
		}
		return nil, ErrInterrupted
	}
	if r == nil {
		if errors.Is(err, ErrMode) || errors.Is(err, ErrReportDir) {
			return nil, fmt.Errorf("%s %d: %w", label, e.N, err)
		}
		return nil, fmt.Errorf("%w: %s %d: %v", ErrPair, label, e.N, err)
	}
	defer func() { _ = r.Close() }() // its results are written below
	if err != nil {
		p.progress(PairEvent{Side: e.Side, N: e.N, Total: e.Total, Err: err})
	}
	if _, werr := WriteResults(r.Dir, r.Run); werr != nil {
		return nil, fmt.Errorf("%w: %s %d: %v", ErrPair, label, e.N, werr)
	}
	e.Result = r
	p.progress(e)
	return r.Run, nil
}

func (p Pair) progress(e PairEvent) {
	if p.Progress != nil {
		p.Progress(e)
	}
}

// hashPins reads the pins file and hashes its paths again in each tree.
func hashPins(path, parentTree, patchTree string) (testrun.VerdictOption, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	file, err := testrun.ReadPins(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	paths := make([]string, 0, len(file))
	for p := range file {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	parent, err := testrun.HashPins(os.DirFS(parentTree), paths)
	if err != nil {
		return nil, err
	}
	patch, err := testrun.HashPins(os.DirFS(patchTree), paths)
	if err != nil {
		return nil, err
	}
	return testrun.WithPins(parent, patch), nil
}

func shortRev(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// worktrees are the detached worktrees made for one pair, in one temporary
// folder, removed together.
type worktrees struct {
	g     gitRunner
	tmp   string
	paths []string
}

// worktreesFor reads the pair's revisions into res and makes the
// worktrees. remove removes them, whatever happened before it is called:
// a failed run, a failed git command or a signal (ctx is then cancelled;
// the removal does not use it); it says on progress when it could not.
func (p Pair) worktreesFor(ctx context.Context, res *PairResult) (trees *worktrees, remove func(), err error) {
	g, err := p.revisions(ctx, res)
	if err != nil {
		return nil, nil, err
	}
	if err := p.sameSubmodules(ctx, g, res); err != nil {
		return nil, nil, err
	}
	if trees, err = newWorktrees(g); err != nil {
		return nil, nil, err
	}
	return trees, func() {
		if rerr := trees.remove(context.WithoutCancel(ctx)); rerr != nil {
			p.progress(PairEvent{Err: fmt.Errorf("removing the worktrees: %w", rerr)})
		}
	}, nil
}

// sameSubmodules refuses a patch that moves a submodule: the worktrees do
// not check submodules out (that could reach the network), so both sides
// would run without the code the patch changes and agree.
func (p Pair) sameSubmodules(ctx context.Context, g gitRunner, res *PairResult) error {
	if p.Patch != "" {
		b, err := os.ReadFile(p.Patch)
		if err == nil && movesGitlink(b) {
			return fmt.Errorf("%w: the diff moves a submodule, and pair does not check submodules out", ErrPair)
		}
		return nil
	}
	parent, err := commitTree(ctx, g, res.Parent)
	if err != nil {
		return fmt.Errorf("%w: the parent's tree: %v", ErrPair, err)
	}
	patch, err := commitTree(ctx, g, res.Patch)
	if err != nil {
		return fmt.Errorf("%w: the patch's tree: %v", ErrPair, err)
	}
	for _, m := range [2]map[string]treeEntry{parent, patch} {
		for path, e := range m {
			if e.mode == "160000" && parent[path] != patch[path] {
				return fmt.Errorf("%w: the patch moves the submodule %s, and pair does not check submodules out", ErrPair, path)
			}
		}
	}
	return nil
}

// movesGitlink reports whether the git diff b changes a gitlink (a
// submodule's commit): a header line of a file's diff gives mode 160000.
// A file's content that reads "Subproject commit" is not one.
func movesGitlink(b []byte) bool {
	header := false
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		switch {
		case bytes.HasPrefix(line, []byte("diff --git ")):
			header = true
		case bytes.HasPrefix(line, []byte("@@")):
			header = false
		case header && bytes.HasSuffix(line, []byte(" 160000")) &&
			(bytes.HasPrefix(line, []byte("index ")) || bytes.Contains(line, []byte("mode "))):
			return true
		}
	}
	return false
}

func newWorktrees(g gitRunner) (*worktrees, error) {
	tmp, err := os.MkdirTemp("", "testresults-pair-")
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPair, err)
	}
	return &worktrees{g: g, tmp: tmp}, nil
}

func (w *worktrees) add(ctx context.Context, name, commit string) (string, error) {
	p := filepath.Join(w.tmp, name)
	w.paths = append(w.paths, p)
	// A sparse checkout's patterns would carry into the worktree: the
	// check would run on part of each side, and agree on what neither
	// has. The worktree is checked out whole, and the repository's
	// configuration is left as it is.
	if _, err := w.g.text(ctx, "-c", "core.sparseCheckout=false", "worktree", "add", "--detach", p, commit); err != nil {
		return "", err
	}
	return p, nil
}

// remove removes every worktree, prunes git's records of them and removes
// the temporary folder.
func (w *worktrees) remove(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var errs []error
	for _, p := range w.paths {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := w.g.text(ctx, "worktree", "remove", "--force", p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		errs = append(errs, err)
	}
	if _, err := w.g.text(ctx, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
