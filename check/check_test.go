package check

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

const junitTwo = `<?xml version="1.0"?>
<testsuite name="s"><testcase classname="c" name="ok"/><testcase classname="c" name="bad"><failure message="boom"/></testcase></testsuite>`

// runSh runs a shell script as the check in dir, with a clean environment.
func runSh(t *testing.T, dir, script string, opts ...Option) (*Result, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	all := append([]Option{
		WithDir(dir), WithEnv(env), WithStdio(nil, &out, &errb),
		WithReportDir(filepath.Join(t.TempDir(), "run")),
	}, opts...)
	res, err := Run(context.Background(), []string{"sh", "-c", script}, all...)
	require.NoError(t, err)
	return res, out.String(), errb.String()
}

func TestRunPassesThrough(t *testing.T) {
	dir := t.TempDir()
	res, out, errOut := runSh(t, dir, `echo to-stdout; echo to-stderr >&2; exit 3`)
	assert.Equal(t, "to-stdout\n", out)
	assert.Equal(t, "to-stderr\n", errOut)
	assert.Equal(t, 3, res.ExitCode)
	run := res.Run
	assert.Equal(t, testrun.StatusFailure, run.Status)
	require.NotNil(t, run.ExitCode)
	assert.Equal(t, 3, *run.ExitCode)
	assert.Nil(t, run.Counts, "no report: no counts, never zero")
	assert.False(t, run.Complete)
	assert.Equal(t, []string{ReasonNoReport}, run.IncompleteReasons)
	assert.Equal(t, "sh -c 'echo to-stdout; echo to-stderr >&2; exit 3'", run.Command)
	assert.Empty(t, run.Commit, "outside a git work tree")
	assert.Empty(t, run.Tree)
	kept, err := os.ReadFile(res.OutputFile)
	require.NoError(t, err)
	assert.Contains(t, string(kept), "to-stdout\n")
	assert.Contains(t, string(kept), "to-stderr\n")

	res, _, _ = runSh(t, dir, `exit 0`)
	assert.Equal(t, testrun.StatusSuccess, res.Run.Status)
	res, _, _ = runSh(t, dir, `kill -KILL $$`)
	assert.Equal(t, 128+9, res.ExitCode)
	assert.Equal(t, testrun.StatusAborted, res.Run.Status, "a check killed by a signal is aborted")
}

func TestRunNotStarted(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), []string{"no-such-command-here"}, WithDir(dir),
		WithEnv([]string{"PATH=" + dir}), WithReportDir(filepath.Join(dir, "out")))
	require.ErrorIs(t, err, ErrStart)
	require.NotNil(t, res)
	assert.Equal(t, ExitNotFound, res.ExitCode)
	assert.False(t, res.Run.Complete)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "script"), []byte("#!/bin/sh\n"), 0o644))
	res, err = Run(context.Background(), []string{"./script"}, WithDir(dir), WithEnv(nil), WithReportDir(filepath.Join(dir, "out2")))
	require.ErrorIs(t, err, ErrStart)
	assert.Equal(t, ExitNotExecutable, res.ExitCode)
	_, err = Run(context.Background(), nil)
	assert.ErrorIs(t, err, ErrNoCommand)
}

// A script without #! is run by the shell, as shells and timeout(1) run
// it: its exit code, its output and its report are the run's, and the
// command is recorded as given.
func TestRunScriptWithoutInterpreterLine(t *testing.T) {
	dir := t.TempDir()
	script := "printf '%s' '" + junitTwo + "' > \"$HANGAR_TESTS_DIR/junit.xml\"\necho \"args: $*\"\nexit 3\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "check"), []byte(script), 0o755))
	var out bytes.Buffer
	res, err := Run(context.Background(), []string{"./check", "a b", "c"}, WithDir(dir),
		WithEnv([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}), WithStdio(nil, &out, io.Discard),
		WithReportDir(filepath.Join(dir, "out")))
	require.NoError(t, err)
	assert.Equal(t, 3, res.ExitCode)
	assert.Equal(t, "args: a b c\n", out.String())
	assert.Equal(t, "./check 'a b' c", res.Run.Command)
	require.NotNil(t, res.Run.Counts)
	assert.Equal(t, 2, res.Run.Counts.Total)
	assert.True(t, res.Run.Complete, "%v", res.Run.IncompleteReasons)

	// A binary the system cannot execute (another architecture's) is not
	// a script: it is never handed to the shell.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "foreign"), []byte("\x7fELF\x02\x01\x01\x00\x00\x00echo ran\n"), 0o755))
	res, err = Run(context.Background(), []string{"./foreign"}, WithDir(dir),
		WithEnv([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}), WithStdio(nil, &out, io.Discard),
		WithReportDir(filepath.Join(dir, "out2")))
	require.ErrorIs(t, err, ErrStart)
	assert.Equal(t, ExitNotExecutable, res.ExitCode)
	assert.NotContains(t, out.String(), "ran")
}

func TestRunCollects(t *testing.T) {
	repo := t.TempDir()
	write := func(rel, body string, age time.Duration) string {
		p := filepath.Join(repo, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		if age > 0 {
			old := time.Now().Add(-age)
			require.NoError(t, os.Chtimes(p, old, old))
		}
		return p
	}
	// A report left by an earlier run, in a usual place and in a declared one.
	write("test-results/old.xml", junitTwo, time.Hour)
	write("custom/old.xml", junitTwo, time.Hour)
	write(".hangar/environment.yaml", "verify_reports:\n  - custom/**/*.xml\n", 0)
	elsewhere := write("elsewhere.xml", strings.ReplaceAll(junitTwo, `name="bad"`, `name="planted"`), 0)

	script := `
set -e
cat > "$HANGAR_TESTS_DIR/mine.xml" <<'X'
<testsuite name="own"><testcase classname="o" name="a"/></testsuite>
X
mkdir -p custom/deep
cat > custom/deep/declared.xml <<'X'
<testsuite name="declared"><testcase classname="d" name="x"><skipped/></testcase></testsuite>
X
mkdir -p node_modules/pkg/test-results
cp custom/deep/declared.xml node_modules/pkg/test-results/ignored.xml
ln -s ` + elsewhere + ` test-results/linked.xml
exit 1
`
	res, _, _ := runSh(t, repo, script)
	run := res.Run
	require.NotNil(t, run.Counts, "%+v", run.IncompleteReasons)
	assert.Equal(t, 2, run.Counts.Total, "the report folder's and the declared report; not the stale, linked or node_modules ones")
	assert.Equal(t, 1, run.Counts.Passed)
	assert.Equal(t, 1, run.Counts.Skipped)
	assert.Contains(t, run.Cases, "o::a")
	assert.Contains(t, run.Cases, "d::x")
	assert.NotContains(t, run.Cases, "c::planted", "a symbolic link is never read")
	var linked *testrun.ReportInfo
	for i, r := range run.Reports {
		assert.NotContains(t, r.Path, "old.xml", "stale reports are not even listed")
		assert.NotContains(t, r.Path, "node_modules")
		if strings.HasSuffix(r.Path, "linked.xml") {
			linked = &run.Reports[i]
		}
	}
	require.NotNil(t, linked, "the link the run made is listed as refused")
	assert.Contains(t, linked.Error, "symbolic link")
	assert.False(t, run.Complete, "a report refused makes the run incomplete")
}

func TestRunModes(t *testing.T) {
	dir := t.TempDir()
	script := `echo "PYTEST_ADDOPTS=$PYTEST_ADDOPTS GOTESTSUM_JUNITFILE=$GOTESTSUM_JUNITFILE DIR=$HANGAR_TESTS_DIR"
echo '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' > "$HANGAR_TESTS_DIR/r.xml"`
	tests := []struct {
		mode    Mode
		vars    bool
		counted bool
		reason  string
	}{
		{ModeSet, true, true, ""},
		{ModeCollect, false, true, ""},
		{ModeOff, false, false, ReasonOff},
	}
	for _, tt := range tests {
		t.Run(string(tt.mode), func(t *testing.T) {
			res, out, _ := runSh(t, dir, script, WithMode(tt.mode))
			assert.Contains(t, out, "DIR="+res.Dir, "HANGAR_TESTS_DIR is always given")
			assert.Equal(t, tt.vars, strings.Contains(out, "--junitxml="), out)
			assert.Equal(t, tt.vars, strings.Contains(out, "GOTESTSUM_JUNITFILE=/"), out)
			assert.Equal(t, tt.counted, res.Run.Counts != nil)
			if tt.reason != "" {
				assert.Contains(t, res.Run.IncompleteReasons, tt.reason)
			}
		})
	}
	_, err := Run(context.Background(), []string{"true"}, WithEnv([]string{EnvReports + "=sometimes"}))
	assert.ErrorIs(t, err, ErrMode)
}

func TestRunOutputRedacted(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	res, err := Run(context.Background(), []string{"sh", "-c", `head -c 3000000 /dev/zero | tr '\0' 'x'; echo; echo "the key is $MY_API_TOKEN"`},
		WithDir(dir), WithEnv([]string{"PATH=" + os.Getenv("PATH"), "MY_API_TOKEN=s3cr3t-value-123"}),
		WithStdio(nil, &out, nil), WithReportDir(filepath.Join(dir, "out")))
	require.NoError(t, err)
	assert.Contains(t, out.String(), "s3cr3t-value-123", "the check's own output is passed through unchanged")
	assert.Equal(t, 3000000+1+len("the key is s3cr3t-value-123\n"), out.Len())
	kept, err := os.ReadFile(res.OutputFile)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(kept), DefaultTailBytes)
	assert.NotContains(t, string(kept), "s3cr3t-value-123")
	assert.Contains(t, string(kept), "the key is "+testrun.Redacted)
	assert.NotContains(t, string(kept), "xxx", "the cut line is dropped whole")
}

// TestRunCommandRedacted: a secret on the command line (a value of the
// check's environment, a --token flag, a password= pair) is not kept in
// the run's command, which is exported, served and attested.
func TestRunCommandRedacted(t *testing.T) {
	dir := t.TempDir()
	res, err := Run(context.Background(), []string{"sh", "-c", "true zz9secretvalue --api-token abcdef123456 DB_PASSWORD=hunter2xyz"},
		WithDir(dir), WithEnv([]string{"PATH=" + os.Getenv("PATH"), "MY_API_TOKEN=zz9secretvalue"}),
		WithStdio(nil, io.Discard, io.Discard), WithReportDir(filepath.Join(dir, "out")))
	require.NoError(t, err)
	for _, secret := range []string{"zz9secretvalue", "abcdef123456", "hunter2xyz"} {
		assert.NotContains(t, res.Run.Command, secret)
	}
	assert.Contains(t, res.Run.Command, "--api-token "+testrun.Redacted)
}

func TestRunTimeoutKillsGroup(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	// The grandchild ignores SIGTERM: only the SIGKILL to the whole group
	// after the kill-after delay ends it.
	script := `(trap '' TERM; exec sleep 300) & echo $! > ` + pidFile + `; wait`
	start := time.Now()
	res, _, _ := runSh(t, dir, script, WithTimeout(500*time.Millisecond), WithKillAfter(500*time.Millisecond))
	assert.Less(t, time.Since(start), 10*time.Second)
	assert.Equal(t, testrun.StatusTimedOut, res.Run.Status)
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return !processAlive(pid) }, 5*time.Second, 20*time.Millisecond, "grandchild %d is gone", pid)
}

// processAlive reports whether pid runs (a zombie is not running).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) == 0 || f[0] != "Z"
}

func TestRunSignalAborts(t *testing.T) {
	dir := t.TempDir()
	sigs := make(chan os.Signal, 1)
	go func() {
		time.Sleep(300 * time.Millisecond)
		sigs <- syscall.SIGTERM
	}()
	res, _, _ := runSh(t, dir, `sleep 30 & wait`, WithSignals(sigs))
	assert.Equal(t, testrun.StatusAborted, res.Run.Status)
	assert.Equal(t, 128+int(syscall.SIGTERM), res.ExitCode)

	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	r, err := Run(ctx, []string{"sleep", "30"}, WithDir(dir), WithReportDir(filepath.Join(dir, "ctx")))
	require.NoError(t, err)
	assert.Equal(t, testrun.StatusAborted, r.Run.Status, "a cancelled context aborts the check")
}

// TestRunEndedEarlyIsIncomplete: a check that did not run to its end
// (timed out, interrupted, killed by a signal) may have written a report
// of some tests only. Here it writes a passing report when told to stop
// and exits 0: the run keeps its status and exit code, and is incomplete,
// so that it is not counted and compares as unavailable.
func TestRunEndedEarlyIsIncomplete(t *testing.T) {
	const onStop = `trap 'echo "<testsuite name=\"s\"><testcase classname=\"c\" name=\"t\"/></testsuite>" > "$HANGAR_TESTS_DIR/junit.xml"; exit 0' TERM INT; touch ready; `
	sigs := make(chan os.Signal, 1)
	for _, tc := range []struct {
		name   string
		script string
		opts   []Option
		status testrun.Status
		code   int
		reason string
	}{
		{"timed out", onStop + `sleep 30 & wait`, []Option{WithTimeout(2 * time.Second)}, testrun.StatusTimedOut, ExitTimedOut,
			"the check timed out after 2s and was ended: its reports may not cover every test"},
		{"interrupted", onStop + `sleep 30 & wait`, []Option{WithSignals(sigs)}, testrun.StatusAborted, 0,
			"the check was interrupted (terminated passed on to it): its reports may not cover every test"},
		{"killed by a signal", `echo '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' > "$HANGAR_TESTS_DIR/junit.xml"; kill -KILL $$`,
			nil, testrun.StatusAborted, 128 + int(syscall.SIGKILL), "the check was killed by a signal (exit 137): its reports may not cover every test"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if tc.status == testrun.StatusAborted && tc.code == 0 {
				go func() {
					// Once the trap is set (the check touched ready).
					for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
						if _, err := os.Stat(filepath.Join(dir, "ready")); err == nil {
							break
						}
					}
					sigs <- syscall.SIGTERM
				}()
			}
			res, _, _ := runSh(t, dir, tc.script, tc.opts...)
			assert.Equal(t, tc.status, res.Run.Status)
			if tc.status != testrun.StatusTimedOut {
				assert.Equal(t, tc.code, res.ExitCode)
			}
			require.NotNil(t, res.Run.Counts, "the report written is read: %v", res.Run.IncompleteReasons)
			assert.Equal(t, 1, res.Run.Counts.Passed)
			assert.False(t, res.Run.Complete)
			assert.False(t, res.Run.Counted())
			assert.Contains(t, res.Run.IncompleteReasons, tc.reason)
		})
	}
}

func TestRunCacheClear(t *testing.T) {
	dir := t.TempDir()
	cache := filepath.Join(dir, ".pytest_cache", "v", "cache")
	require.NoError(t, os.MkdirAll(cache, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(cache, "lastfailed"), []byte(`{"t::x": true}`), 0o644))
	_, out, _ := runSh(t, dir, `echo "$PYTEST_ADDOPTS"; test -e .pytest_cache && echo present || echo gone`, WithCacheClear())
	assert.Contains(t, out, "--cache-clear")
	assert.Contains(t, out, "gone")
}

func TestFreshDir(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	fresh := func(dir string) error {
		root, claim, _, err := freshDir(dir, time.Now())
		if err == nil {
			claim.Close()
			root.Close()
		}
		return err
	}
	require.NoError(t, fresh(dir), "made when missing")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "keep.txt"), []byte("x"), 0o644))
	err := fresh(dir)
	assert.ErrorIs(t, err, ErrReportDir, "a folder of other files is refused, not emptied")
	assert.FileExists(t, filepath.Join(dir, "keep.txt"))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), []byte("{}"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, OutputFile), nil, 0o644))
	assert.ErrorIs(t, fresh(dir), ErrReportDir, "a TEST-RESULTS.json that is not a run's marks no earlier run")
	assert.FileExists(t, filepath.Join(dir, "keep.txt"))
	_, err = WriteResults(dir, &testrun.Run{ID: "r-1", StartedAt: time.Now()})
	require.NoError(t, err)
	require.NoError(t, fresh(dir), "an earlier run's folder is emptied")
	entries, _ := os.ReadDir(dir)
	assert.Empty(t, entries)
	link := filepath.Join(base, "link")
	require.NoError(t, os.Symlink(dir, link))
	assert.ErrorIs(t, fresh(link), ErrReportDir)
}

func TestFreshDirClaimed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	root, claim, _, err := freshDir(dir, time.Now())
	require.NoError(t, err)
	require.NotNil(t, claim, "a local folder is claimed")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "junit.xml"), []byte(junitTwo), 0o644))

	_, _, _, err = freshDir(dir, time.Now())
	require.ErrorIs(t, err, ErrReportDir, "a folder another run holds is refused")
	assert.Contains(t, err.Error(), "another run that has not ended")
	assert.FileExists(t, filepath.Join(dir, "junit.xml"), "the holder's files are left alone")

	require.NoError(t, claim.Close())
	require.NoError(t, root.Close())
	_, _, _, err = freshDir(dir, time.Now())
	require.ErrorIs(t, err, ErrReportDir, "once given up, the folder is judged by what it holds: a report alone is no earlier run's")
	assert.NotContains(t, err.Error(), "another run")
}

// Two runs given one report folder: the second is refused while the first
// runs, even while the folder is still empty, and the first reads its own
// report alone and writes its own run.
func TestRunSharedFolderRefused(t *testing.T) {
	work := t.TempDir()
	dir := filepath.Join(t.TempDir(), "shared")
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	started := filepath.Join(work, "started")
	release := filepath.Join(work, "release")
	// The first check writes its report only once the second has tried:
	// until then its folder is empty, as a fresh run's is.
	script := `: > ` + started + `; i=0; while [ ! -e ` + release + ` ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i+1)); done; printf '%s' "$1" > "$HANGAR_TESTS_DIR/junit.xml"`
	type out struct {
		res *Result
		err error
	}
	first := make(chan out, 1)
	go func() {
		res, err := Run(context.Background(), []string{"sh", "-c", script, "sh", junitTwo},
			WithDir(work), WithEnv(env), WithStdio(nil, io.Discard, io.Discard), WithReportDir(dir))
		first <- out{res, err}
	}()
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(started); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the first check never started")
		time.Sleep(10 * time.Millisecond)
	}

	const other = `<testsuite name="o"><testcase classname="o" name="other"/></testsuite>`
	_, err := Run(context.Background(), []string{"sh", "-c", `printf '%s' "$1" > "$HANGAR_TESTS_DIR/other.xml"`, "sh", other},
		WithDir(work), WithEnv(env), WithStdio(nil, io.Discard, io.Discard), WithReportDir(dir))
	require.ErrorIs(t, err, ErrReportDir)
	assert.True(t, IsUsage(err), "a refused folder is a usage error, not a failed check")
	assert.NoFileExists(t, filepath.Join(dir, "other.xml"), "the refused check never ran")

	require.NoError(t, os.WriteFile(release, nil, 0o644))
	got := <-first
	require.NoError(t, got.err)
	defer got.res.Close()
	require.NotNil(t, got.res.Run.Counts)
	assert.Equal(t, 2, got.res.Run.Counts.Total, "the first run read its own report alone")
	assert.NotContains(t, got.res.Run.Cases, "o.other")
}

// The walk passes over the reports of other runs' folders: one whose run
// ended since this run started (its TEST-RESULTS.json is there) and one a
// run in another process claims, with what lies in them. It reads this
// run's own folder (also when named through a symbolic link), a folder
// this process claims (the first run's, while its rerun runs), a folder
// whose run ended before this one started, and plain report folders.
func TestWalkPassesOverOtherRuns(t *testing.T) {
	repo := t.TempDir()
	start := time.Now().Add(-time.Minute)
	report := func(rel string) {
		p := filepath.Join(repo, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(junitTwo), 0o644))
	}
	claimed := func(dir string) *folderClaim {
		root, claim, _, err := freshDir(dir, start)
		require.NoError(t, err)
		t.Cleanup(func() { root.Close() })
		require.NotNil(t, claim)
		return claim
	}
	ended := filepath.Join(repo, "test-results", "ended")
	report("test-results/ended/junit.xml")
	_, err := WriteResults(ended, &testrun.Run{ID: "r-ended", StartedAt: start})
	require.NoError(t, err)

	old := filepath.Join(repo, "build", "test-results")
	require.NoError(t, os.MkdirAll(old, 0o755))
	_, err = WriteResults(old, &testrun.Run{ID: "r-old", StartedAt: start.Add(-time.Hour)})
	require.NoError(t, err)
	long := start.Add(-time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(old, ResultsFile), long, long))
	report("build/test-results/test/TEST-a.xml")

	live := filepath.Join(repo, "test-results", "live")
	liveClaim := claimed(live)
	// Held as another process would hold it: not this process's.
	heldHere.Lock()
	heldHere.claims = slices.DeleteFunc(heldHere.claims, func(c *folderClaim) bool { return c == liveClaim })
	heldHere.Unlock()
	t.Cleanup(func() { liveClaim.f.Close() })
	report("test-results/live/junit.xml")
	report("test-results/live/sub/junit.xml")

	first := filepath.Join(repo, "test-results", "first")
	defer claimed(first).Close()
	report("test-results/first/junit.xml")

	alias := filepath.Join(t.TempDir(), "alias")
	require.NoError(t, os.Symlink(repo, alias))
	own := filepath.Join(alias, "test-results", "mine")
	defer claimed(own).Close()
	report("test-results/mine/junit.xml")
	report("test-results/plain/junit.xml")
	report("build/junit-report.xml")

	w := walkRepository(repo, nil, start, own)
	var got []string
	for _, p := range w.paths {
		rel, err := filepath.Rel(repo, p)
		require.NoError(t, err)
		got = append(got, filepath.ToSlash(rel))
	}
	assert.ElementsMatch(t, []string{"test-results/mine/junit.xml", "test-results/plain/junit.xml", "build/junit-report.xml",
		"test-results/first/junit.xml", "build/test-results/test/TEST-a.xml"}, got)
	assert.Empty(t, w.reasons, "another run's reports are not this run's: nothing is missing")
	require.Len(t, w.notes, 2, "%q", w.notes)
	assert.Contains(t, w.notes[0]+w.notes[1], ended+" is the report folder of another run")
	assert.Contains(t, w.notes[0]+w.notes[1], live+" is the report folder of another run")

	require.NoError(t, liveClaim.f.Close())
	w = walkRepository(repo, nil, start, own)
	assert.Len(t, w.paths, 7, "a folder no run claims and with no run in it is read: %v", w.paths)
}

func gitCmd(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@e", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@e", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
	return strings.TrimSpace(string(out))
}

func TestTreeDigest(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	ctx := context.Background()
	repo := t.TempDir()
	gitCmd(t, repo, "init", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".gitignore"), []byte("ignored/\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte("#!/bin/sh\n"), 0o755))
	require.NoError(t, os.Symlink("a.txt", filepath.Join(repo, "link")))
	gitCmd(t, repo, "add", ".")
	gitCmd(t, repo, "commit", "-q", "-m", "one")
	index, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	require.NoError(t, err)

	d0, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.Len(t, d0, 64)

	clone := filepath.Join(t.TempDir(), "clone")
	gitCmd(t, repo, "clone", "-q", repo, clone)
	d1, err := TreeDigest(ctx, clone, nil)
	require.NoError(t, err)
	assert.Equal(t, d0, d1, "a clone has the same content")

	// The same content reached another way: untracked in one copy,
	// committed in the other.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "new.txt"), []byte("new\n"), 0o644))
	dUntracked, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.NotEqual(t, d0, dUntracked, "an untracked file changes the digest")
	require.NoError(t, os.WriteFile(filepath.Join(clone, "new.txt"), []byte("new\n"), 0o644))
	gitCmd(t, clone, "add", "new.txt")
	gitCmd(t, clone, "commit", "-q", "-m", "new")
	dCommitted, err := TreeDigest(ctx, clone, nil)
	require.NoError(t, err)
	assert.Equal(t, dUntracked, dCommitted, "equal content, equal digest")

	require.NoError(t, os.MkdirAll(filepath.Join(repo, "ignored"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "ignored", "x.log"), []byte("noise"), 0o644))
	dIgnored, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.Equal(t, dUntracked, dIgnored, "an ignored file does not change it")

	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("two\n"), 0o644))
	dEdited, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.NotEqual(t, dIgnored, dEdited, "an uncommitted edit changes it")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "a.txt"), []byte("one\n"), 0o644))
	dBack, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.Equal(t, dIgnored, dBack, "undoing the edit gives the digest back")

	require.NoError(t, os.Remove(filepath.Join(repo, "run.sh")))
	dDeleted, err := TreeDigest(ctx, repo, nil)
	require.NoError(t, err)
	assert.NotEqual(t, dBack, dDeleted, "a deleted file changes it")

	after, err := os.ReadFile(filepath.Join(repo, ".git", "index"))
	require.NoError(t, err)
	assert.Equal(t, index, after, "the index is not written")

	st, err := readGitState(ctx, repo, os.Environ())
	require.NoError(t, err)
	assert.Len(t, st.Commit, 40)
	assert.Equal(t, dDeleted, st.Tree)
}

func TestRunOwnFolder(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "old"), 0o755))
	old := filepath.Join(dir, "old", "pytest.xml")
	require.NoError(t, os.WriteFile(old, []byte(junitTwo), 0o644))
	before := time.Now().Add(-24 * time.Hour)
	require.NoError(t, os.Chtimes(old, before, before))
	res, _, _ := runSh(t, dir, `cp -p old/pytest.xml "$HANGAR_TESTS_DIR/" &&
printf '<suites><suite/></suites>' > "$HANGAR_TESTS_DIR/results.xml" &&
mkdir -p test-results && printf '<suites><suite/></suites>' > test-results/other.xml &&
printf '<testsuite name="s"><testcase name="t"/></testsuite>' > "$HANGAR_TESTS_DIR/junit.xml"`)
	run := res.Run
	assert.False(t, run.Complete)
	got, skipped := map[string]string{}, map[string]bool{}
	for _, r := range run.Reports {
		got[filepath.Base(r.Path)], skipped[filepath.Base(r.Path)] = r.Error, r.Skipped
	}
	assert.Contains(t, got["pytest.xml"], "older than the run")
	assert.False(t, skipped["pytest.xml"])
	assert.Contains(t, got["results.xml"], "unknown root element <suites>")
	assert.False(t, skipped["results.xml"])
	assert.Contains(t, got["other.xml"], "root element <suites>")
	assert.True(t, skipped["other.xml"])
	assert.Equal(t, 1, run.Counts.Total)
}
