package check

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// leftoverPid reads the pid a check wrote, once it is there.
func leftoverPid(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	require.NoError(t, err, "the check wrote the pid of what it left behind")
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	return pid
}

// notOurZombie reports whether pid is not a zombie child of this process:
// a process killed and adopted must also be reaped.
func notOurZombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) < 2 || f[1] != strconv.Itoa(os.Getpid())
}

// TestRunKillsWhatTheCheckLeftBehind: a process the check leaves behind,
// which would rewrite TEST-RESULTS.json after the run, is ended before Run
// returns, in the check's group or out of it (setsid), holding the check's
// output or not; the leader's own exit code is still the run's.
func TestRunKillsWhatTheCheckLeftBehind(t *testing.T) {
	forge := `(sleep 1; echo forged > "$HANGAR_TESTS_DIR/` + ResultsFile + `")`
	// perl moves the process into the group of this test process (which
	// runs the check as testresults would): one of the groups the sweep
	// must not kill whole.
	// The process writes its pid once it has moved, and the check waits
	// for it: the sweep must find it in that group.
	intoOurGroup := `perl -e 'setpgrp(0, $ENV{OUR_PGID}) or die "setpgrp: $!"; open(my $f, ">", $ENV{PIDFILE}) or die; print $f "$$\n"; close $f; exec "sh", "-c", $ARGV[0]' '` +
		`sleep 1; echo forged > "$HANGAR_TESTS_DIR/` + ResultsFile + `"' >/dev/null 2>&1 </dev/null & ` +
		`while [ ! -s "$PIDFILE" ]; do sleep 0.01; done; exit 1`
	tests := []struct {
		name   string
		script string
		leaves string // the command that takes the process out of the check's group, if any
	}{
		{"in the group", forge + ` >/dev/null 2>&1 </dev/null & echo $! > "$PIDFILE"; exit 1`, ""},
		{"in the group, holding the output", `(sleep 3; echo forged > "$HANGAR_TESTS_DIR/` + ResultsFile + `") & echo $! > "$PIDFILE"; exit 1`, ""},
		{"in a session of its own", `setsid sh -c '` + forge + ` >/dev/null 2>&1 </dev/null & echo $! > "$PIDFILE"'; exit 1`, "setsid"},
		{"moved into the group of the process that runs the check", intoOurGroup, "perl"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.leaves != "" {
				if runtime.GOOS != "linux" {
					t.Skip("a process that leaves the group is caught on Linux only (child subreaper)")
				}
				if _, err := exec.LookPath(tt.leaves); err != nil {
					t.Skipf("%s is not installed", tt.leaves)
				}
			}
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "leftover.pid")
			var out bytes.Buffer
			env := []string{"PATH=" + os.Getenv("PATH"), "PIDFILE=" + pidFile, "OUR_PGID=" + strconv.Itoa(syscall.Getpgrp())}
			res, err := Run(context.Background(), []string{"sh", "-c", tt.script}, WithDir(dir), WithEnv(env),
				WithStdio(nil, &out, &out), WithReportDir(filepath.Join(dir, "run")))
			require.NoError(t, err)
			assert.Equal(t, 1, res.ExitCode, "the leader's exit code")
			path, err := res.WriteResults()
			require.NoError(t, err)
			want, err := os.ReadFile(path)
			require.NoError(t, err)
			require.NotEqual(t, "forged\n", string(want))

			pid := leftoverPid(t, pidFile)
			assert.Eventually(t, func() bool { return !processAlive(pid) && notOurZombie(pid) }, 5*time.Second, 20*time.Millisecond,
				"what the check left behind (%d) is gone", pid)
			got, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(got), "the results are what run wrote")
			assert.Equal(t, sha256Hex(want), res.ResultsSHA256)
		})
	}
}

// TestFreshDirRefusesWhatIsNotARun: a folder is emptied only when it holds
// an earlier run's files alone; a repository that commits a
// TEST-RESULTS.json is refused and left as it is.
func TestFreshDirRefusesWhatIsNotARun(t *testing.T) {
	// An earlier run's folder, made by Run itself.
	earlier := filepath.Join(t.TempDir(), "run")
	res, _, _ := runSh(t, t.TempDir(), `echo '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' > "$HANGAR_TESTS_DIR/junit.xml"`,
		WithReportDir(earlier))
	_, err := res.WriteTestResults(testrun.TestResults{Run: res.Run, Comparison: &testrun.Comparison{BaseID: "base", Available: true, NewFailures: []testrun.Failure{}, Fixed: []string{}}})
	require.NoError(t, err)
	require.NoError(t, res.Close())
	runJSON, err := os.ReadFile(filepath.Join(earlier, RunFile))
	require.NoError(t, err)

	repo := func(t *testing.T, results []byte) string {
		d := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(d, ".git", "objects"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "main.go"), []byte("package main\n"), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, ResultsFile), results, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, OutputFile), nil, 0o644))
		return d
	}
	tests := []struct {
		name    string
		dir     func(t *testing.T) string
		offends string
	}{
		{"a repository that commits a run's results", func(t *testing.T) string { return repo(t, runJSON) }, ".git"},
		{"a flat folder with a source file", func(t *testing.T) string {
			d := repo(t, runJSON)
			require.NoError(t, os.RemoveAll(filepath.Join(d, ".git")))
			return d
		}, "main.go"},
		{"results that are not a run's", func(t *testing.T) string {
			d := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(d, ResultsFile), []byte("{}"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, OutputFile), nil, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, "notes.txt"), []byte("mine"), 0o644))
			return d
		}, ResultsFile},
		{"a sub-folder", func(t *testing.T) string {
			d := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(d, ResultsFile), runJSON, 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(d, OutputFile), nil, 0o644))
			require.NoError(t, os.MkdirAll(filepath.Join(d, "docs"), 0o755))
			return d
		}, "docs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := tt.dir(t)
			before := listTree(t, d)
			_, err := Run(context.Background(), []string{"true"}, WithDir(t.TempDir()), WithEnv(nil), WithReportDir(d))
			require.ErrorIs(t, err, ErrReportDir)
			assert.Contains(t, err.Error(), tt.offends, "the error names what is in the way")
			assert.Equal(t, before, listTree(t, d), "nothing is removed")
		})
	}

	// The earlier run's folder is emptied and used again.
	res, _, _ = runSh(t, t.TempDir(), `exit 0`, WithReportDir(earlier))
	_, err = res.WriteResults()
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(earlier, "junit.xml"), "the earlier run's report is gone")
	assert.NoFileExists(t, filepath.Join(earlier, RunFile))
	assert.FileExists(t, filepath.Join(earlier, ResultsFile))
}

// listTree lists every path under dir with its size.
func listTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		out = append(out, p+" "+strconv.FormatInt(fi.Size(), 10)+" "+fi.Mode().String())
		return nil
	}))
	return out
}

// TestRunReportFolderReplaced: a check that swaps its report folder for a
// link to another folder gets nothing written there, none of that folder's
// files read as its reports, and a run that says why.
func TestRunReportFolderReplaced(t *testing.T) {
	other := t.TempDir()
	planted := filepath.Join(other, "planted.xml")
	script := `rm -rf "$HANGAR_TESTS_DIR"; ln -s "$OTHER" "$HANGAR_TESTS_DIR"
echo '<testsuite name="s"><testcase classname="c" name="planted"/></testsuite>' > "$OTHER/planted.xml"`
	dir := filepath.Join(t.TempDir(), "run")
	res, err := Run(context.Background(), []string{"sh", "-c", script}, WithDir(t.TempDir()),
		WithEnv([]string{"PATH=" + os.Getenv("PATH"), "OTHER=" + other}), WithReportDir(dir))
	require.NoError(t, err)
	assert.FileExists(t, planted)
	assert.False(t, res.Run.Complete)
	assert.Contains(t, res.Run.IncompleteReasons, ReasonReplaced)
	assert.Nil(t, res.Run.Counts, "the other folder's report is not the run's")
	assert.NotContains(t, res.Run.Cases, "c::planted")
	assert.Empty(t, res.OutputFile, "the output is not kept through the link")

	_, err = res.WriteResults()
	assert.ErrorIs(t, err, ErrReplaced)
	_, err = WriteResults(res.Dir, res.Run)
	assert.ErrorIs(t, err, ErrReportDir, "a folder that is a link is not written through")
	_, err = WriteResultsJSON(res.Dir, res.Run, []byte(`{"id": "x"}`))
	assert.ErrorIs(t, err, ErrReportDir)
	entries, err := os.ReadDir(other)
	require.NoError(t, err)
	require.Len(t, entries, 1, "nothing but the check's own file is in the other folder")
	assert.Equal(t, "planted.xml", entries[0].Name())
}

// TestRunSparesOtherProcesses: a process other code of this program starts
// while a check runs is not the check's: it is neither killed nor reaped,
// and its own Wait still gets its status.
func TestRunSparesOtherProcesses(t *testing.T) {
	dir := t.TempDir()
	started, goOn := filepath.Join(dir, "started"), filepath.Join(dir, "go-on")
	script := `: > "$STARTED"; i=0; while [ ! -e "$GO_ON" ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done; exit 0`
	other := make(chan *exec.Cmd, 1)
	go func() {
		defer close(other)
		for range 500 {
			if _, err := os.Stat(started); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		cmd := exec.Command("sleep", "30")
		if cmd.Start() == nil {
			other <- cmd
		}
		os.WriteFile(goOn, nil, 0o644)
	}()
	res, err := Run(context.Background(), []string{"sh", "-c", script}, WithDir(dir),
		WithEnv([]string{"PATH=" + os.Getenv("PATH"), "STARTED=" + started, "GO_ON=" + goOn}), WithReportDir(filepath.Join(dir, "run")))
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	cmd := <-other
	require.NotNil(t, cmd, "the other process started")
	assert.True(t, processAlive(cmd.Process.Pid), "the other process still runs")
	require.NoError(t, cmd.Process.Kill())
	err = cmd.Wait()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "its own Wait gets its status (it was not reaped by the check)")
	assert.False(t, exitErr.Exited(), "it ended by the signal sent here")
}
