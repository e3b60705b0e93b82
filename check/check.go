package check

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// Exit codes Run gives when the command could not be started, as a shell
// gives them.
const (
	ExitNotFound      = 127
	ExitNotExecutable = 126
)

// ReasonNoReport is the incomplete reason of a run that found no report at
// all: absence is never read as "0 failed".
const ReasonNoReport = "no report found"

// ReasonOff is the incomplete reason of a run whose report collection is off.
const ReasonOff = "reports not read: " + EnvReports + "=off"

// Result is one run of a check.
type Result struct {
	// Run is the run: identity, status, exit code, commit and tree, and what
	// its reports say.
	Run *testrun.Run
	// Dir is the run's report folder.
	Dir string
	// ExitCode is the check's own exit code, or 128 plus the signal that
	// ended it (ExitNotFound, ExitNotExecutable when it could not start).
	ExitCode int
	// Variables are the variables set for the check, NAME=value.
	Variables []string
	// Notes say why a runner variable was not set, or what could not be
	// read before the check (the tree digest).
	Notes []string
	// OutputFile is the redacted tail of the check's combined output.
	OutputFile string
}

// Run runs the check argv (the command and its arguments, run unchanged,
// without a shell) and returns its run; see the package documentation. The
// error is ErrNoCommand, ErrMode or ErrReportDir before anything ran, or
// ErrStart (with a Result whose run records it) when the command could not
// be started. A check that fails, times out or is aborted is not an error:
// its Result says so.
func Run(ctx context.Context, argv []string, opts ...Option) (*Result, error) {
	cfg := newConfig(opts)
	if len(argv) == 0 || argv[0] == "" {
		return nil, ErrNoCommand
	}
	env := environ(cfg.environ)
	mode := cfg.mode
	if !cfg.modeSet {
		var err error
		if mode, err = ParseMode(env.get(EnvReports)); err != nil {
			return nil, err
		}
	}
	wd := cfg.dir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}

	start := cfg.now()
	id := cfg.runID
	if id == "" {
		if id, err = testrun.NewID(start, rand.Reader); err != nil {
			return nil, err
		}
	} else if !testrun.ValidID(id) {
		return nil, fmt.Errorf("%w: run id %q cannot name a folder (want letters, digits, '.', '_', '-')", ErrReportDir, id)
	}
	dir := cfg.reportDir
	if dir == "" {
		home := env.get("HOME")
		if home == "" {
			return nil, fmt.Errorf("%w: HOME is not set: give the report folder", ErrReportDir)
		}
		dir = filepath.Join(home, ".hangar", "tests", id)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	newerThan, err := freshDir(dir, start)
	if err != nil {
		return nil, err
	}

	res := &Result{Dir: dir}
	run := &testrun.Run{
		ID:         id,
		Kind:       cfg.kind,
		Grade:      cfg.grade,
		Command:    quoteArgs(argv),
		AgentRunID: cfg.agentRunID,
		StartedAt:  start,
	}
	res.Run = run

	// What the check runs on is read before it runs.
	st, err := readGitState(ctx, wd, env)
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the working-tree digest could not be read: %v", err))
	}
	run.Commit, run.Tree = st.Commit, st.Tree
	repo := st.Top
	if repo == "" {
		repo = wd
	}

	var reasons []string
	if cfg.cacheClear {
		for _, d := range uniq(wd, repo) {
			if err := os.RemoveAll(filepath.Join(d, ".pytest_cache")); err != nil {
				reasons = append(reasons, fmt.Sprintf("--cache-clear: %v", err))
			}
		}
	}
	s := prepare(env, argv, wd, repo, dir, mode, cfg.cacheClear)
	reasons = append(reasons, s.reasons...)
	res.Variables, res.Notes = s.vars, append(res.Notes, s.notes...)

	tl := newTail(cfg.tailBytes)
	code, status, startErr := execute(ctx, &cfg, argv, wd, s.env, tl)
	run.EndedAt = cfg.now()
	res.ExitCode = code
	run.ExitCode = &code
	run.Status = status

	red := testrun.NewRedactor(cfg.environ)
	res.OutputFile = filepath.Join(dir, OutputFile)
	if err := writeFileAtomic(res.OutputFile, []byte(red.Redact(string(tl.Bytes())))); err != nil {
		reasons = append(reasons, fmt.Sprintf("the output could not be kept: %v", err))
		res.OutputFile = ""
	}

	switch {
	case startErr != nil:
		reasons = append(reasons, startErr.Error())
		setResults(run, &testrun.Run{}, reasons)
		return res, startErr
	case mode == ModeOff:
		setResults(run, &testrun.Run{}, append(reasons, ReasonOff))
		return res, nil
	}
	paths := []string{dir}
	paths = append(paths, existing(s.explicit)...)
	globs, err := declaredGlobs(repo)
	if err != nil {
		reasons = append(reasons, err.Error())
	}
	w := walkRepository(repo, globs, newerThan)
	paths = append(paths, w.paths...)
	reasons = append(reasons, w.reasons...)
	ropts := append(append([]report.Option(nil), cfg.reportOpts...),
		report.WithNewerThan(newerThan), report.WithRunOptions(testrun.WithRedactor(red)))
	read, _ := report.ReadRun(paths, ropts...)
	if len(read.Reports) == 0 {
		read.IncompleteReasons = []string{ReasonNoReport}
		read.Complete = false
	}
	setResults(run, read, reasons)
	return res, nil
}

// setResults copies the result fields of read into run, with more reasons
// for it to be incomplete.
func setResults(run, read *testrun.Run, reasons []string) {
	run.Counts, run.Failures, run.Cases, run.Durations, run.Flaky = read.Counts, read.Failures, read.Cases, read.Durations, read.Flaky
	run.Coverage, run.Reports = read.Coverage, read.Reports
	run.IncompleteReasons = append(append([]string(nil), reasons...), read.IncompleteReasons...)
	run.Complete = read.Complete && len(reasons) == 0
	if len(run.IncompleteReasons) > 0 {
		run.Complete = false
	}
	if !run.Complete && len(run.IncompleteReasons) == 0 {
		run.IncompleteReasons = []string{ReasonNoReport}
	}
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// freshDir makes dir a fresh, empty report folder: made when missing, used
// when empty, emptied when it holds a previous run (a TEST-RESULTS.json),
// refused otherwise or when it is a symbolic link. It returns the time from
// which a file counts as written by the run: start, or the file system's
// own clock when that is behind (file times come from a coarser clock).
func freshDir(dir string, start time.Time) (time.Time, error) {
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
		}
	case err != nil:
		return time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return time.Time{}, fmt.Errorf("%w: %s is a symbolic link", ErrReportDir, dir)
	case !fi.IsDir():
		return time.Time{}, fmt.Errorf("%w: %s is not a folder", ErrReportDir, dir)
	default:
		entries, err := os.ReadDir(dir)
		if err != nil {
			return time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
		}
		if len(entries) > 0 {
			if _, err := os.Lstat(filepath.Join(dir, ResultsFile)); err != nil {
				return time.Time{}, fmt.Errorf("%w: %s is not empty and holds no earlier run (%s)", ErrReportDir, dir, ResultsFile)
			}
			for _, e := range entries {
				if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
					return time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
				}
			}
		}
	}
	mark, err := os.CreateTemp(dir, ".start-*")
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	mfi, err := mark.Stat()
	mark.Close()
	os.Remove(mark.Name())
	if err == nil && mfi.ModTime().Before(start) {
		return mfi.ModTime(), nil
	}
	return start, nil
}

// execute runs the command and returns its exit code and status.
func execute(ctx context.Context, cfg *config, argv []string, wd string, env environ, tl *tail) (int, testrun.Status, error) {
	path, err := lookPath(argv[0], env.get("PATH"), wd)
	if err != nil {
		code := ExitNotFound
		if errors.Is(err, fs.ErrPermission) {
			code = ExitNotExecutable
		}
		return code, testrun.StatusFailure, fmt.Errorf("%w: %v", ErrStart, err)
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = wd
	cmd.Env = env
	cmd.Stdin = cfg.stdin
	cmd.Stdout = &tee{dst: cfg.stdout, tail: tl}
	cmd.Stderr = &tee{dst: cfg.stderr, tail: tl}
	cmd.WaitDelay = DefaultPipeWait
	inOwnGroup(cmd)
	if err := cmd.Start(); err != nil {
		code := ExitNotExecutable
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = ExitNotFound
		}
		return code, testrun.StatusFailure, fmt.Errorf("%w: %v", ErrStart, err)
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		cmd.Wait()
		close(done)
	}()
	var timeout <-chan time.Time
	if cfg.timeout > 0 {
		t := time.NewTimer(cfg.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var ended testrun.Status
	ctxDone := ctx.Done()
	select {
	case <-done:
	case <-timeout:
		ended = testrun.StatusTimedOut
		signalGroup(pid, sigTerm)
	case sig := <-cfg.signals:
		ended = testrun.StatusAborted
		signalGroup(pid, sig)
	case <-ctxDone:
		ended = testrun.StatusAborted
		ctxDone = nil
		signalGroup(pid, sigTerm)
	}
	if ended != "" {
		// The group has the kill-after delay to end; then, or at a second
		// signal, it is killed, the processes the check left behind too.
		// A process that outlives SIGKILL (stuck in the kernel) is waited
		// for no longer than one more delay.
		kill := time.NewTimer(cfg.killAfter)
		defer kill.Stop()
		var giveUp <-chan time.Time
		killed := false
		killNow := func() {
			signalGroup(pid, sigKill)
			if !killed {
				killed = true
				giveUp = time.After(cfg.killAfter)
			}
		}
		leaderDone := done
	wait:
		for leaderDone != nil || groupAlive(pid) {
			poll := time.NewTimer(10 * time.Millisecond)
			select {
			case <-leaderDone:
				leaderDone = nil
			case <-kill.C:
				killNow()
			case <-cfg.signals:
				killNow()
			case <-ctxDone:
				ctxDone = nil
				killNow()
			case <-giveUp:
				if leaderDone == nil {
					poll.Stop()
					break wait
				}
			case <-poll.C:
			}
			poll.Stop()
		}
	}
	code, signaled := exitCode(cmd.ProcessState)
	switch {
	case ended != "":
		return code, ended, nil
	case signaled:
		return code, testrun.StatusAborted, nil
	}
	return code, testrun.StatusForExitCode(code), nil
}

// lookPath finds the command as a shell would, in the check's own PATH: a
// name with a slash is taken as it is (relative to wd).
func lookPath(name, pathEnv, wd string) (string, error) {
	if strings.Contains(name, "/") {
		p := name
		if !filepath.IsAbs(p) {
			p = filepath.Join(wd, p)
		}
		return p, executable(p)
	}
	var firstErr error
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(wd, d)
		}
		p := filepath.Join(d, name)
		err := executable(p)
		if err == nil {
			return p, nil
		}
		if firstErr == nil && errors.Is(err, fs.ErrPermission) {
			firstErr = err
		}
	}
	if firstErr != nil {
		return "", firstErr
	}
	return "", fmt.Errorf("%s: %w", name, exec.ErrNotFound)
}

func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() || fi.Mode()&0o111 == 0 {
		return &fs.PathError{Op: "exec", Path: p, Err: fs.ErrPermission}
	}
	return nil
}
