package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "pair", synopsis: "run a check N times on the parent and on the patch, in git worktrees, and judge them; exit 1 on broken", run: runPair})
}

// exitInterrupted is pair's exit code when a signal stopped it.
const exitInterrupted = 130

const pairUsage = `Usage: testresults pair [flags] [--patch FILE.diff | --patch-ref REF] -- CMD [ARGS...]

Runs the check CMD --runs times (default 2) on the parent and as many times on
the patch, each in its own git worktree of the repository (-C, default the
current folder), then judges every test as 'testresults verdict' does:
broken, repaired, frozen, unchanged or inconclusive.

  --patch FILE.diff   the parent is HEAD; the patch is HEAD with the diff
                      applied (git apply)
  --patch-ref REF     the parent is REF^; the patch is REF
  neither             as --patch-ref HEAD

The worktrees (git worktree add --detach, in a temporary folder) are removed
afterwards, also when a run fails or on SIGINT/SIGTERM. The parent runs come
first (kind base), then the patch runs (kind after_turn); each run's report
folder (--out, default a fresh temporary folder, kept) holds its
TEST-RESULTS.json and output.log. The check's own output goes there only;
-v also copies it to stderr.

--pins FILE (a JSON object: fixture path -> sha256, relative to the
repository's root) is hashed again in each tree: a pinned fixture that
differs between parent and patch makes the comparison invalid.

The verdict table goes to stdout (--json: the verdict as JSON); one line per
run and the frozen tests go to stderr.

Exit codes: 0 allow or block; 1 a test is broken; 2 usage error; 3 the
comparison is invalid, or the worktrees could not be made (not a git
repository, the patch does not apply); 130 interrupted.

With --export the verdict is also exported, as 'testresults verdict
--export' exports it: a job.verify span (--job) with the patch runs' events
and a test.verdict event.

Flags:
`

type pairOptions struct {
	runs     int
	patch    string
	patchRef string
	pins     string
	json     bool
	dir      string
	out      string
	timeout  time.Duration
	verbose  bool
	ve       *verdictExport
}

func newPairFlags() (*pflag.FlagSet, *pairOptions) {
	fs := newFlagSet("pair")
	o := &pairOptions{}
	fs.IntVar(&o.runs, "runs", testrun.MinPairedRuns, "how many runs on each side (at least 2)")
	fs.StringVar(&o.patch, "patch", "", "a diff to apply on HEAD (git apply): the patch")
	fs.StringVar(&o.patchRef, "patch-ref", "", "a commit: the patch; its first parent is the parent")
	fs.StringVar(&o.pins, "pins", "", "fixture pins file (JSON object: path -> sha256), hashed again in each tree")
	fs.BoolVar(&o.json, "json", false, "print the verdict as JSON on stdout")
	fs.StringVarP(&o.dir, "repo-dir", "C", ".", "the git repository")
	fs.StringVar(&o.out, "out", "", "the folder of the runs' report folders (default: a fresh temporary folder)")
	fs.DurationVar(&o.timeout, "timeout", 0, "end each run after this long; 0 means never")
	fs.BoolVarP(&o.verbose, "verbose", "v", false, "copy the check's output to stderr")
	o.ve = addVerdictExportFlags(fs)
	return fs, o
}

// runPair ends with the verdict's code; 130 when interrupted.
func runPair(ctx context.Context, args []string, env Env) error {
	fs, o := newPairFlags()
	cf := flagsFor("pair", pairUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	fail := cf.usageErr
	argv := fs.Args()
	switch {
	case len(argv) == 0:
		return fail("no command given (testresults pair [flags] -- CMD [ARGS...])")
	case fs.ArgsLenAtDash() != 0:
		return fail("put the command after --: testresults pair [flags] -- %s", strings.Join(argv, " "))
	case o.runs < testrun.MinPairedRuns:
		return fail("--runs %d: want at least %d", o.runs, testrun.MinPairedRuns)
	case o.patch != "" && o.patchRef != "":
		return fail("give --patch or --patch-ref, not both")
	case o.timeout < 0:
		return fail("--timeout %s is negative", o.timeout)
	}
	plan, err := o.ve.plan(fs, env)
	if err != nil {
		return fail("%v", err)
	}
	say := func(format string, a ...any) { fmt.Fprintf(env.Stderr, "testresults pair: "+format+"\n", a...) }
	if o.patch != "" {
		abs, err := filepath.Abs(o.patch)
		if err == nil {
			_, err = os.Stat(abs)
		}
		if err != nil {
			return fail("--patch: %v", err)
		}
		o.patch = abs
	}
	if o.pins != "" {
		abs, err := filepath.Abs(o.pins)
		if err != nil {
			return fail("--pins: %v", err)
		}
		o.pins = abs
	}

	g := gitRunner{env: env.Environ()}
	root, err := g.out(ctx, o.dir, "rev-parse", "--show-toplevel")
	if err != nil {
		return rejectedf("%s is not in a git repository: %v", o.dir, err)
	}
	g.root = root
	parentRev, patchRev := "HEAD", ""
	switch {
	case o.patch != "":
	case o.patchRef != "":
		parentRev, patchRev = o.patchRef+"^", o.patchRef
	default:
		parentRev, patchRev = "HEAD^", "HEAD"
	}
	parent, err := g.commit(ctx, parentRev)
	if err != nil {
		return rejectedf("the parent: %v", err)
	}
	patchCommit := parent
	if patchRev != "" {
		if patchCommit, err = g.commit(ctx, patchRev); err != nil {
			return rejectedf("the patch: %v", err)
		}
	}

	tmp, err := os.MkdirTemp("", "testresults-pair-")
	if err != nil {
		return rejected(err)
	}
	trees := &worktrees{g: g, tmp: tmp}
	// Removed whatever happens: after a failed run, a failed git command or
	// a signal (ctx is then cancelled; the removal does not use it).
	defer func() {
		if err := trees.remove(context.WithoutCancel(ctx)); err != nil {
			say("removing the worktrees: %v", err)
		}
	}()
	parentTree, err := trees.add(ctx, "parent", parent)
	if err != nil {
		return rejected(err)
	}
	patchTree, err := trees.add(ctx, "patch", patchCommit)
	if err != nil {
		return rejected(err)
	}
	if o.patch != "" {
		if _, err := g.out(ctx, patchTree, "apply", o.patch); err != nil {
			return rejectedf("--patch does not apply on %s: %v", shortRev(parent), err)
		}
	}

	var pinOpt testrun.VerdictOption
	if o.pins != "" {
		vo := &verdictOptions{pins: o.pins, parentTree: parentTree, patchTree: patchTree}
		if pinOpt, err = vo.pinsOption(); err != nil {
			return rejectedf("--pins: %v", err)
		}
	}

	out := o.out
	if out == "" {
		if out, err = os.MkdirTemp("", "testresults-pair-runs-"); err != nil {
			return rejected(err)
		}
	}
	var checkOut io.Writer = io.Discard
	if o.verbose {
		checkOut = env.Stderr
	}
	sides := []struct {
		name string
		tree string
		kind testrun.Kind
		runs []*testrun.Run
	}{{"parent", parentTree, testrun.KindBase, nil}, {"patch", patchTree, testrun.KindAfterTurn, nil}}
	for si := range sides {
		side := &sides[si]
		for i := 1; i <= o.runs; i++ {
			dir := filepath.Join(out, side.name+"-"+strconv.Itoa(i))
			res, err := check.Run(ctx, argv,
				check.WithDir(side.tree),
				check.WithEnv(env.Environ()),
				check.WithStdio(bytes.NewReader(nil), checkOut, checkOut),
				check.WithKind(side.kind, ""),
				check.WithReportDir(dir),
				check.WithTimeout(o.timeout),
			)
			if ctx.Err() != nil {
				return &exitCode{code: exitInterrupted, msg: "interrupted"}
			}
			if res == nil {
				msg := fmt.Sprintf("%s run %d: %v", side.name, i, err)
				if errors.Is(err, check.ErrMode) || errors.Is(err, check.ErrReportDir) {
					return &exitCode{code: exitUsage, msg: msg}
				}
				return rejected(errors.New(msg))
			}
			if err != nil {
				say("%s run %d: %v", side.name, i, err)
			}
			if _, err := check.WriteResults(res.Dir, res.Run); err != nil {
				return rejectedf("%s run %d: %v", side.name, i, err)
			}
			say("%s run %d/%d: %s", side.name, i, o.runs, runLine(res))
			side.runs = append(side.runs, res.Run)
		}
	}

	var vopts []testrun.VerdictOption
	if pinOpt != nil {
		vopts = append(vopts, pinOpt)
	}
	p, err := testrun.PairedVerdict(sides[0].runs, sides[1].runs, vopts...)
	if err != nil {
		return rejected(err)
	}
	if o.json {
		if err := writeJSON(env.Stdout, p); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(env.Stdout, "parent: %s\npatch:  %s\n", parent, describePatch(o, patchCommit))
		printPaired(term.NewWriter(env.Stdout), p)
	}
	for _, tv := range p.Frozen {
		say("frozen (excluded): %s: parent %s", term.EscapeLine(tv.ID), outcomes(tv.Parent))
	}
	say("report folders: %s", out)
	code := exitOK
	switch p.Decision {
	case testrun.DecisionReject:
		code = exitFailed
	case testrun.DecisionInvalid:
		say("the comparison is invalid: %s", p.Invalid)
		code = exitRejected
	}
	return exportVerdictResult(ctx, "pair", env, plan, sides[1].runs, p, code)
}

func describePatch(o *pairOptions, commit string) string {
	if o.patch != "" {
		return commit + " + " + o.patch
	}
	return commit
}

func shortRev(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// runLine says in one line how a run went.
func runLine(res *check.Result) string {
	r := res.Run
	line := fmt.Sprintf("%s (exit %d, %s)", r.Status, res.ExitCode, r.EndedAt.Sub(r.StartedAt).Round(time.Millisecond))
	if c := r.Counts; c != nil {
		line += fmt.Sprintf(", %s, %d failed, %s", quantity(c.Total, "test"), c.Failed, quantity(c.Errors, "error"))
	} else {
		line += ", nothing counted"
	}
	return line + ", " + res.Dir
}

// gitRunner runs git in the repository.
type gitRunner struct {
	env  []string
	root string
}

func (g gitRunner) out(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Env = g.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", fmt.Errorf("git %s: %s", strings.Join(args, " "), msg)
	}
	return strings.TrimSpace(stdout.String()), nil
}

// commit resolves rev to a commit id.
func (g gitRunner) commit(ctx context.Context, rev string) (string, error) {
	return g.out(ctx, g.root, "rev-parse", "--verify", "--end-of-options", rev+"^{commit}")
}

// worktrees are the detached worktrees made for one pair, removed together.
type worktrees struct {
	g     gitRunner
	tmp   string
	paths []string
}

func (w *worktrees) add(ctx context.Context, name, commit string) (string, error) {
	p := filepath.Join(w.tmp, name)
	w.paths = append(w.paths, p)
	if _, err := w.g.out(ctx, w.g.root, "worktree", "add", "--detach", p, commit); err != nil {
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
		if _, err := w.g.out(ctx, w.g.root, "worktree", "remove", "--force", p); err != nil {
			errs = append(errs, err)
		}
	}
	if err := os.RemoveAll(w.tmp); err != nil {
		errs = append(errs, err)
	}
	if _, err := w.g.out(ctx, w.g.root, "worktree", "prune"); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
