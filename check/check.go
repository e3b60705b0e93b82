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

// goTestCaptureBytes is how much of a go test -json check's standard output
// is kept in GoTestReport: one byte more than the largest report read, so
// that a longer stream is refused as over that limit, never read as a
// stream cut short.
const goTestCaptureBytes = report.DefaultMaxBytes + 1

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
	// Notes say why a runner variable was not set, what could not be
	// read before the check (the tree digest), and which folders of other
	// runs the search for reports passed over.
	Notes []string
	// OutputFile is the redacted tail of the check's combined output ("" when
	// it could not be kept).
	OutputFile string
	// OutputSHA256, ResultsSHA256 and RunSHA256 are the SHA-256 digests
	// (hex) of output.log as Run wrote it, and of TEST-RESULTS.json and
	// run.json as WriteResults or WriteResultsJSON last wrote them ("" for
	// a file not written). Every process of the check is gone before any
	// of them is written; a file that no longer has its digest was changed
	// afterwards by something else.
	OutputSHA256, ResultsSHA256, RunSHA256 string

	// root is the report folder as Run made and opened it, and claim holds
	// it for this run until Close (nil where it could not be claimed).
	root  *os.Root
	claim *folderClaim
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
	mode, wd, err := modeAndDir(&cfg, env)
	if err != nil {
		return nil, err
	}
	start := cfg.now()
	id, dir, err := runFolder(&cfg, env, start)
	if err != nil {
		return nil, err
	}
	root, claim, newerThan, err := freshDir(dir, start)
	if err != nil {
		return nil, err
	}

	res := &Result{Dir: dir, root: root, claim: claim}
	// The output and the command line are kept with the secrets of the
	// check's environment hidden.
	red := testrun.NewRedactor(cfg.environ)
	run := &testrun.Run{
		ID:         id,
		Kind:       cfg.kind,
		Grade:      cfg.grade,
		Command:    red.Redact(quoteArgs(argv)),
		AgentRunID: cfg.agentRunID,
		StartedAt:  start,
	}
	res.Run = run

	// What the check runs on is read before it runs.
	st, err := readGitState(ctx, wd, env)
	if err != nil {
		res.Notes = append(res.Notes, fmt.Sprintf("the working-tree digest could not be read: %v", err))
	}
	if n := len(st.Changed); n > 0 && st.Commit != "" {
		res.Notes = append(res.Notes, changedNote(st.Commit, st.Changed))
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

	// The standard output of go test -json is its report: it is kept in
	// the report folder, written through the folder opened, and read with
	// the folder's other files.
	isGoTest, goJSON := goTest(argv, env)
	var capt *capture
	if goJSON && mode != ModeOff {
		f, err := root.OpenFile(GoTestReport, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			reasons = append(reasons, fmt.Sprintf("the go test -json output could not be kept: %v", err))
		} else {
			capt = newCapture(f, goTestCaptureBytes)
		}
	}

	tl := newTail(cfg.tailBytes)
	end := execute(ctx, &cfg, argv, wd, s.env, dir, tl, capt)
	run.EndedAt = cfg.now()
	res.ExitCode = end.code
	run.ExitCode = &end.code
	run.Status = end.status
	reasons = append(reasons, end.reasons...)
	startErr := end.startErr
	if capt != nil {
		reasons = append(reasons, closeCapture(root, capt, startErr)...)
	}

	// Every process of the check is gone: the folder is what the check
	// left, and nothing of it changes any more. A folder replaced by the
	// check (a link to another one) is neither read nor written.
	replaced := !sameFolder(dir, root)
	reasons = append(reasons, res.keepOutput(root, replaced, []byte(red.Redact(string(tl.Bytes()))))...)

	switch {
	case startErr != nil:
		reasons = append(reasons, startErr.Error())
		setResults(run, &testrun.Run{}, reasons)
		return res, startErr
	case mode == ModeOff:
		setResults(run, &testrun.Run{}, append(reasons, ReasonOff))
		return res, nil
	}
	var paths []string
	if !replaced {
		paths = append(paths, dir)
	}
	paths = append(paths, existing(s.explicit)...)
	globs, err := declaredGlobs(repo)
	if err != nil {
		reasons = append(reasons, err.Error())
	}
	w := walkRepository(repo, globs, newerThan, dir)
	paths = append(paths, w.paths...)
	reasons = append(reasons, w.reasons...)
	res.Notes = append(res.Notes, w.notes...)
	ropts := append(append([]report.Option(nil), cfg.reportOpts...),
		report.WithNewerThan(newerThan), report.WithOwnFolder(dir), report.WithFound(w.paths...),
		report.WithRunOptions(testrun.WithRedactor(red)))
	read, _ := report.ReadRun(paths, ropts...)
	switch {
	case len(read.Reports) == 0 && isGoTest && !goJSON:
		read.IncompleteReasons = noReport(ReasonGoTestNoReport, read.NotRun)
		read.Complete = false
	case len(read.Reports) == 0:
		read.IncompleteReasons = noReport(ReasonNoReport, read.NotRun)
		read.Complete = false
	}
	if capt != nil && capt.over && capt.err == nil {
		reasons = append(reasons, captureCut(read, dir)...)
	}
	setResults(run, read, reasons)
	return res, nil
}

// modeAndDir returns the reports mode (the option, else EnvReports) and
// the absolute folder the check runs in (the option, else this process's).
func modeAndDir(cfg *config, env environ) (Mode, string, error) {
	mode := cfg.mode
	if !cfg.modeSet {
		var err error
		if mode, err = ParseMode(env.get(EnvReports)); err != nil {
			return "", "", err
		}
	}
	wd := cfg.dir
	if wd == "" {
		var err error
		if wd, err = os.Getwd(); err != nil {
			return "", "", fmt.Errorf("check: %w", err)
		}
	}
	wd, err := filepath.Abs(wd)
	if err != nil {
		return "", "", fmt.Errorf("check: %w", err)
	}
	return mode, wd, nil
}

// runFolder returns the run's id (the option, else a new one) and its
// absolute report folder (the option, else ~/.hangar/tests/<id>).
func runFolder(cfg *config, env environ, start time.Time) (id, dir string, err error) {
	id = cfg.runID
	if id == "" {
		if id, err = testrun.NewID(start, rand.Reader); err != nil {
			return "", "", err
		}
	} else if !testrun.ValidID(id) {
		return "", "", fmt.Errorf("%w: run id %q cannot name a folder (want letters, digits, '.', '_', '-')", ErrReportDir, id)
	}
	dir = cfg.reportDir
	if dir == "" {
		home := env.get("HOME")
		if home == "" {
			return "", "", fmt.Errorf("%w: HOME is not set: give the report folder", ErrReportDir)
		}
		dir = filepath.Join(RunsDir(home), id)
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return "", "", fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	return id, dir, nil
}

// closeCapture closes the file the go test -json output was kept in and
// removes it when the check never started or writing it failed; it
// returns the reasons that make the run incomplete.
func closeCapture(root *os.Root, capt *capture, startErr error) []string {
	if err := capt.f.Close(); capt.err == nil {
		capt.err = err
	}
	switch {
	case startErr != nil:
		_ = root.Remove(GoTestReport) // the check never ran: the start error is the one to report
	case capt.err != nil:
		// A stream cut where writing failed could read as fewer
		// tests: it is not read at all.
		reason := fmt.Sprintf("the go test -json output could not be kept in %s: %v", GoTestReport, capt.err)
		if err := root.Remove(GoTestReport); err != nil {
			reason += fmt.Sprintf(" (and the cut file could not be removed: %v)", err)
		}
		return []string{reason}
	}
	return nil
}

// keepOutput writes kept, the check's redacted output tail, in the report
// folder unless it was replaced, and records it in r; it returns the
// reasons that make the run incomplete.
func (r *Result) keepOutput(root *os.Root, replaced bool, kept []byte) []string {
	if replaced {
		return []string{ReasonReplaced}
	}
	if err := writeInRoot(root, OutputFile, kept); err != nil {
		return []string{fmt.Sprintf("the output could not be kept: %v", err)}
	}
	r.OutputFile = filepath.Join(r.Dir, OutputFile)
	r.OutputSHA256 = sha256Hex(kept)
	return nil
}

// captureCut returns a reason for the go test -json report read from a
// capture that kept only its start: with a report limit raised past it,
// that start must not pass for the whole stream.
func captureCut(read *testrun.Run, dir string) []string {
	var reasons []string
	kept := filepath.Join(dir, GoTestReport)
	for _, r := range read.Reports {
		if r.Path == kept && r.Error == "" {
			reasons = append(reasons, fmt.Sprintf("%s: the go test -json output was longer than the %d bytes kept", kept, goTestCaptureBytes))
		}
	}
	return reasons
}

// noReport is the incomplete reasons of a run that read no report: reason,
// and how many expected tests never ran when the run was checked.
func noReport(reason string, notRun *testrun.NotRun) []string {
	if notRun != nil && notRun.Count > 0 {
		return []string{reason, testrun.NotRunReason(notRun.Count)}
	}
	return []string{reason}
}

// setResults copies the result fields of read into run, with more reasons
// for it to be incomplete.
func setResults(run, read *testrun.Run, reasons []string) {
	run.Counts, run.Failures, run.Cases, run.Durations, run.Flaky = read.Counts, read.Failures, read.Cases, read.Durations, read.Flaky
	run.Coverage, run.Reports, run.NotRun = read.Coverage, read.Reports, read.NotRun
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

// bySh is cmd run as a shell script: /bin/sh given path and the check's
// arguments, with cmd's folder, environment, input and output and process
// attributes.
func bySh(cmd *exec.Cmd, path string, argv []string) *exec.Cmd {
	sh := exec.Command("/bin/sh", append([]string{path}, argv[1:]...)...)
	sh.Dir, sh.Env = cmd.Dir, cmd.Env
	sh.Stdin, sh.Stdout, sh.Stderr = cmd.Stdin, cmd.Stdout, cmd.Stderr
	sh.SysProcAttr, sh.WaitDelay = cmd.SysProcAttr, cmd.WaitDelay
	return sh
}

// ended is how the check ended.
type ended struct {
	code   int
	status testrun.Status
	// startErr is set when the command could not be started.
	startErr error
	// reasons make the run incomplete: a process the check left behind
	// that could not be ended.
	reasons []string
}

// execute runs the command and returns how it ended, once every process of
// the check is gone (or could not be ended, which a reason says) and its
// output has been read (its standard output into capt too, when set).
func execute(ctx context.Context, cfg *config, argv []string, wd string, env environ, dir string, tl *tail, capt *capture) ended {
	path, err := lookPath(argv[0], env.get("PATH"), wd)
	if err != nil {
		code := ExitNotFound
		if errors.Is(err, fs.ErrPermission) {
			code = ExitNotExecutable
		}
		return ended{code: code, status: testrun.StatusFailure, startErr: fmt.Errorf("%w: %v", ErrStart, err)}
	}
	cmd := exec.Command(path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir = wd
	cmd.Env = env
	// The check's output goes through pipes of our own, not through
	// exec.Cmd's copying, so that cmd.Wait returns as soon as the check's
	// process has ended: what it left behind holding the output is then
	// ended at once, not after a delay.
	out, err := newOutput(cfg, tl, capt)
	if err != nil {
		return ended{code: ExitNotExecutable, status: testrun.StatusFailure, startErr: fmt.Errorf("%w: %v", ErrStart, err)}
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = out.childIn, out.childOut, out.childErr
	cmd.WaitDelay = DefaultPipeWait
	inOwnGroup(cmd)
	tr, err := startTracked(cmd, dir)
	if shellScript(path, err) {
		// A file the system cannot execute itself, a script without #!,
		// is run by the shell, as shells, env(1) and timeout(1) run it.
		cmd = bySh(cmd, path, argv)
		tr, err = startTracked(cmd, dir)
	}
	out.started()
	if err != nil {
		out.finish()
		code := ExitNotExecutable
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, fs.ErrNotExist) {
			code = ExitNotFound
		}
		return ended{code: code, status: testrun.StatusFailure, startErr: fmt.Errorf("%w: %v", ErrStart, err)}
	}
	pid := cmd.Process.Pid
	done := make(chan struct{})
	go func() {
		_ = cmd.Wait() // how the check ended is read from cmd.ProcessState
		close(done)
	}()
	var timeout <-chan time.Time
	if cfg.timeout > 0 {
		t := time.NewTimer(cfg.timeout)
		defer t.Stop()
		timeout = t.C
	}
	var status testrun.Status
	var ender string // what ended the check, for the reason its run is incomplete
	ctxDone := ctx.Done()
	select {
	case <-done:
	case <-timeout:
		status, ender = testrun.StatusTimedOut, fmt.Sprintf("the check timed out after %s and was ended", cfg.timeout)
		_ = signalGroup(pid, sigTerm) // a group that cannot be signalled is killed after the delay
	case sig := <-cfg.signals:
		status, ender = testrun.StatusAborted, fmt.Sprintf("the check was interrupted (%s passed on to it)", sig)
		_ = signalGroup(pid, sig) // a group that cannot be signalled is killed after the delay
	case <-ctxDone:
		status, ender = testrun.StatusAborted, "the run was cancelled and the check ended"
		ctxDone = nil
		_ = signalGroup(pid, sigTerm) // a group that cannot be signalled is killed after the delay
	}
	if status != "" {
		// The group has the kill-after delay to end; then, or at a second
		// signal, it is killed. A leader that outlives SIGKILL (stuck in
		// the kernel) is waited for no longer than one more delay.
		kill := time.NewTimer(cfg.killAfter)
		defer kill.Stop()
		var giveUp <-chan time.Time
		killed := false
		killNow := func() {
			_ = signalGroup(pid, sigKill) // the leader is waited for no longer than giveUp
			if !killed {
				killed = true
				giveUp = time.After(cfg.killAfter)
			}
		}
		leaderDone := done
		polls := 0
	wait:
		for leaderDone != nil || groupAlive(pid) {
			if polls%5 == 0 {
				tr.reapZombies()
			}
			polls++
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
	<-done
	// Whatever the check left behind is killed now, before its reports are
	// read and before anything is written: nothing it started can change
	// them afterwards.
	var res ended
	if n := endLeftovers(tr, cfg.killAfter); n > 0 {
		res.reasons = append(res.reasons, fmt.Sprintf("%d processes the check left behind could not be ended within %s: what they write after the run is not the run's", n, cfg.killAfter))
	}
	tr.stop()
	out.finish()
	code, signaled := exitCode(cmd.ProcessState)
	res.code = code
	switch {
	case status != "":
		res.status = status
	case signaled:
		res.status, ender = testrun.StatusAborted, fmt.Sprintf("the check was killed by a signal (exit %d)", code)
	default:
		res.status = testrun.StatusForExitCode(code)
	}
	if ender != "" {
		// A check that did not run to its end may have written reports of
		// some of its tests only: they do not say that the others passed.
		res.reasons = append(res.reasons, ender+": its reports may not cover every test")
	}
	return res
}

// endLeftovers SIGKILLs what the check left behind (its group and, on
// Linux, the processes that left it) until none remains or bound has
// passed; it returns how many remain.
func endLeftovers(tr *tracker, bound time.Duration) int {
	deadline := time.Now().Add(bound)
	for {
		n := tr.sweep()
		if n == 0 || time.Now().After(deadline) {
			return n
		}
		time.Sleep(5 * time.Millisecond)
	}
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
