package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// binDir holds the testresults binary that the end-to-end tests of run
// build once for the package (see builtBinary).
var binDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "testresults-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

var (
	buildOnce sync.Once
	buildErr  error
)

// builtBinary returns the testresults binary, built on first use into the
// package's temporary folder.
func builtBinary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the testresults binary; skipped with -short")
	}
	bin := filepath.Join(binDir, "testresults")
	buildOnce.Do(func() {
		// As a release builds it (.goreleaser.yaml): static, so that what
		// the start-up benchmark measures is what users run.
		cmd := exec.Command("go", "build", "-trimpath", "-o", bin, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v: %s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return bin
}

// needRunner skips a test whose runner is absent, except under CI=true,
// where scripts/install-runners.sh has installed it and its absence fails.
func needRunner(t *testing.T, name string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is absent under CI=true (scripts/install-runners.sh installs it): %v", name, err)
	}
	t.Skipf("%s is absent (scripts/install-runners.sh installs it): %v", name, err)
}

// pytestArgv is pytest run by Debian's python3, with its rerun plugin.
func pytestArgv(t *testing.T) []string {
	t.Helper()
	err := exec.Command("/usr/bin/python3", "-c", "import pytest, pytest_rerunfailures").Run()
	needRunner(t, "pytest with pytest-rerunfailures", err)
	return []string{"/usr/bin/python3", "-m", "pytest", "-p", "no:cacheprovider"}
}

func gotestsumPath(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("gotestsum"); err == nil {
		return p
	}
	out, err := exec.Command("go", "env", "GOPATH").Output()
	if err == nil {
		p := filepath.Join(strings.TrimSpace(string(out)), "bin", "gotestsum")
		if _, err = os.Stat(p); err == nil {
			return p
		}
	}
	needRunner(t, "gotestsum", err)
	return ""
}

// jestModules is the node_modules folder holding jest and jest-junit.
func jestModules(t *testing.T) string {
	t.Helper()
	dir := os.Getenv("TESTRESULTS_RUNNERS_DIR")
	if dir == "" {
		cache := os.Getenv("XDG_CACHE_HOME")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache")
		}
		dir = filepath.Join(cache, "testresults-runners")
	}
	mods := filepath.Join(dir, "node_modules")
	_, err := os.Stat(filepath.Join(mods, "jest-junit", "package.json"))
	if err == nil {
		_, err = exec.LookPath("node")
	}
	needRunner(t, "jest with jest-junit", err)
	return mods
}

// project copies a fixture project of testdata/projects into a fresh
// folder (with a state folder for its retried test) and returns it.
func project(t *testing.T, name string) string {
	t.Helper()
	src := filepath.Join(testcorpus.Root(t), "testdata", "projects", name)
	dst := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	require.NoError(t, os.MkdirAll(filepath.Join(dst, ".state"), 0o755))
	return dst
}

// checkRun is one `testresults run` of the built binary.
type checkRun struct {
	code    int
	stdout  string
	stderr  string
	out     string         // the report folder
	results map[string]any // TEST-RESULTS.json
}

// runCheck runs `testresults run --out OUT ARGS` in dir with a clean
// environment (no runner variables from this process) plus env.
func runCheck(t *testing.T, dir string, env []string, args ...string) checkRun {
	t.Helper()
	bin := builtBinary(t)
	out := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"run", "--out", out}, args...)...)
	cmd.Dir = dir
	cmd.Env = cleanEnv(t, dir, env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := checkRun{stdout: stdout.String(), stderr: stderr.String(), out: out}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else {
		require.NoError(t, err)
	}
	r.results = readResults(t, out)
	return r
}

func cleanEnv(t *testing.T, dir string, env []string) []string {
	var e []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case k == "PYTEST_ADDOPTS", k == "HOME", k == "NO_COLOR", strings.HasPrefix(k, "GOTESTSUM_"),
			strings.HasPrefix(k, "JEST_JUNIT_"), strings.HasPrefix(k, "HANGAR_"), strings.HasPrefix(k, "OTEL_"):
			continue
		}
		e = append(e, kv)
	}
	return append(append(e, "HOME="+t.TempDir(), "STATE_DIR="+filepath.Join(dir, ".state")), env...)
}

func readResults(t *testing.T, dir string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "TEST-RESULTS.json"))
	require.NoError(t, err, "TEST-RESULTS.json is always written")
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	return m
}

func counts(t *testing.T, results map[string]any) map[string]int {
	t.Helper()
	c, ok := results["counts"].(map[string]any)
	require.True(t, ok, "counts: %v; incomplete: %v", results["counts"], results["incomplete_reasons"])
	out := map[string]int{}
	for k, v := range c {
		out[k] = int(v.(float64))
	}
	return out
}

func reportPaths(results map[string]any) []string {
	var paths []string
	for _, r := range results["reports"].([]any) {
		paths = append(paths, r.(map[string]any)["path"].(string))
	}
	return paths
}

// pytestSummary reads pytest's closing line ("1 failed, 2 passed, 1
// skipped, 1 error, 1 rerun in 0.13s").
func pytestSummary(t *testing.T, output string) map[string]int {
	t.Helper()
	line := regexp.MustCompile(`(?m)^=*\s*((?:\d+ \w+(?:, )?)+) in [\d.]+s`).FindStringSubmatch(output)
	require.NotNil(t, line, "pytest's summary line in %s", output)
	got := map[string]int{}
	for _, part := range strings.Split(line[1], ", ") {
		n, word, _ := strings.Cut(part, " ")
		v, err := strconv.Atoi(n)
		require.NoError(t, err)
		got[strings.TrimSuffix(word, "s")] = v
	}
	return got
}

func TestRunE2EPytest(t *testing.T) {
	argv := pytestArgv(t)
	dir := project(t, "pytest")
	r := runCheck(t, dir, nil, append([]string{"--kind", "base", "--"}, append(argv, "-q")...)...)
	assert.Equal(t, 1, r.code, "pytest's own exit code passes through; stderr: %s", r.stderr)
	summary := pytestSummary(t, r.stdout)
	assert.Equal(t, 1, summary["rerun"], "pytest-rerunfailures retried the flaky test")
	c := counts(t, r.results)
	assert.Equal(t, summary["passed"], c["passed"])
	assert.Equal(t, summary["failed"], c["failed"])
	assert.Equal(t, summary["error"], c["errors"])
	assert.Equal(t, summary["skipped"], c["skipped"])
	assert.Equal(t, 5, c["total"])
	assert.Equal(t, true, r.results["complete"])
	assert.Equal(t, true, r.results["counted"])
	assert.Equal(t, "failure", r.results["status"])
	assert.Equal(t, []string{filepath.Join(r.out, "pytest.xml")}, reportPaths(r.results))
	assert.Equal(t, "passed", r.results["cases"].(map[string]any)["test_sample::test_retried"])
	assert.Contains(t, r.stderr, "5 tests: 2 passed, 1 failed, 1 error, 1 skipped")
	assert.Contains(t, r.stderr, "test_sample::test_fails")
	assert.FileExists(t, filepath.Join(r.out, "output.log"))
}

func TestRunE2EPytestOwnReport(t *testing.T) {
	argv := pytestArgv(t)
	tests := []struct {
		name  string
		env   []string
		args  []string
		file  string
		body  string
		wants string // the report path, relative to the project
	}{
		{name: "PYTEST_ADDOPTS", env: []string{"PYTEST_ADDOPTS=-q --junitxml=own/env.xml"}, wants: "own/env.xml"},
		{name: "command line", args: []string{"--junit-xml", "own/cli.xml"}, wants: "own/cli.xml"},
		{name: "pytest.ini", file: "pytest.ini", body: "[pytest]\naddopts = -q --junitxml=own/ini.xml\n", wants: "own/ini.xml"},
		{name: "pyproject.toml", file: "pyproject.toml", body: "[tool.pytest.ini_options]\naddopts = [\"-q\", \"--junitxml=own/toml.xml\"]\n", wants: "own/toml.xml"},
		{name: "setup.cfg", file: "setup.cfg", body: "[tool:pytest]\naddopts =\n    -q\n    --junitxml=own/cfg.xml\n", wants: "own/cfg.xml"},
		{name: "tox.ini", file: "tox.ini", body: "[tox]\nenvlist = py3\n[pytest]\naddopts = --junitxml own/tox.xml\n", wants: "own/tox.xml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := project(t, "pytest")
			if tt.file != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, tt.file), []byte(tt.body), 0o644))
			}
			r := runCheck(t, dir, tt.env, append(append([]string{"--"}, argv...), tt.args...)...)
			assert.Equal(t, 1, r.code, r.stderr)
			assert.NoFileExists(t, filepath.Join(r.out, "pytest.xml"), "ours would have replaced the repository's")
			assert.FileExists(t, filepath.Join(dir, tt.wants))
			assert.Equal(t, []string{filepath.Join(dir, tt.wants)}, reportPaths(r.results))
			assert.Equal(t, 5, counts(t, r.results)["total"])
			assert.Contains(t, r.stderr, "--junitxml not added")
		})
	}
}

// goEnv lets go test reuse its build cache across the fixture's copies in
// different folders.
var goEnv = []string{"GOFLAGS=-trimpath"}

func TestRunE2EGotestsum(t *testing.T) {
	gotestsum := gotestsumPath(t)
	dir := project(t, "gotestsum")
	r := runCheck(t, dir, goEnv, "--", gotestsum, "--rerun-fails", "--packages", "./...", "--", "-count=1")
	assert.Equal(t, 1, r.code, "gotestsum's exit code; stderr: %s", r.stderr)
	// gotestsum counts executions, reruns included: "DONE 3 runs, 7 tests,
	// 1 skipped, 4 failures". The run counts tests: a rerun is the same test.
	// It prints a DONE line after each pass; the last one is the total.
	all := regexp.MustCompile(`DONE (\d+) runs, (\d+) tests, (\d+) skipped, (\d+) failures`).FindAllStringSubmatch(r.stdout, -1)
	require.NotEmpty(t, all, r.stdout)
	m := all[len(all)-1]
	execs, _ := strconv.Atoi(m[2])
	skipped, _ := strconv.Atoi(m[3])
	c := counts(t, r.results)
	assert.Equal(t, map[string]int{"total": 4, "passed": 2, "failed": 1, "errors": 0, "skipped": 1, "flaky": 1}, c)
	assert.Equal(t, skipped, c["skipped"])
	reports := r.results["reports"].([]any)
	require.Len(t, reports, 1)
	assert.Equal(t, filepath.Join(r.out, "gotestsum.xml"), reports[0].(map[string]any)["path"])
	assert.EqualValues(t, execs, reports[0].(map[string]any)["tests"], "every execution gotestsum counted is in the report")
	assert.Equal(t, []any{"example.com/fixture::TestRetried"}, r.results["flaky"])
	assert.Equal(t, true, r.results["complete"])
}

func TestRunE2EDeclaredReports(t *testing.T) {
	gotestsum := gotestsumPath(t)
	// --junitfile on the command line wins over GOTESTSUM_JUNITFILE: the
	// report lands where only the repository knows.
	args := []string{"--", gotestsum, "--junitfile", "out-gs/go-tests.xml", "--packages", "./...", "--", "-count=1", "-run", "TestPasses|TestSkipped"}

	dir := project(t, "gotestsum")
	r := runCheck(t, dir, goEnv, args...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Nil(t, r.results["counts"], "without the declaration the report is not found")
	assert.Equal(t, []any{"no report found"}, r.results["incomplete_reasons"])
	assert.Equal(t, false, r.results["complete"])
	assert.Contains(t, r.stderr, "no report found")
	assert.NotContains(t, r.stderr, "0 failed")

	dir = project(t, "gotestsum")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".hangar"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".hangar", "environment.yaml"), []byte("verify_reports:\n  - out-gs/*.xml\n"), 0o644))
	r = runCheck(t, dir, goEnv, args...)
	assert.Equal(t, 0, r.code, r.stderr)
	assert.Equal(t, []string{filepath.Join(dir, "out-gs", "go-tests.xml")}, reportPaths(r.results))
	assert.Equal(t, map[string]int{"total": 2, "passed": 1, "failed": 0, "errors": 0, "skipped": 1, "flaky": 0}, counts(t, r.results))
}

func TestRunE2EJest(t *testing.T) {
	mods := jestModules(t)
	dir := project(t, "jest")
	require.NoError(t, os.Symlink(mods, filepath.Join(dir, "node_modules")))
	r := runCheck(t, dir, nil, "--", "node", filepath.Join(mods, "jest", "bin", "jest.js"), "--ci")
	assert.Equal(t, 1, r.code, r.stderr)
	// jest prints its summary on stderr, which passes through too.
	m := regexp.MustCompile(`Tests:\s+(\d+) failed, (\d+) skipped, (\d+) passed, (\d+) total`).FindStringSubmatch(r.stderr)
	require.NotNil(t, m, r.stderr)
	c := counts(t, r.results)
	for i, k := range []string{"failed", "skipped", "passed", "total"} {
		n, _ := strconv.Atoi(m[i+1])
		assert.Equal(t, n, c[k], k)
	}
	assert.Equal(t, []string{filepath.Join(r.out, "junit.xml")}, reportPaths(r.results), "JEST_JUNIT_OUTPUT_DIR pointed jest-junit at the report folder")
	assert.NoFileExists(t, filepath.Join(dir, "junit.xml"))
	assert.Equal(t, "passed", r.results["cases"].(map[string]any)[" retried:: retried"], "jest.retryTimes retried it")

	// A test file that fails to load: jest-junit leaves it out unless told
	// to write it, which run does.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "broken.test.js"), []byte("require('./no-such-module');\ntest('never runs', () => {});\n"), 0o644))
	r = runCheck(t, dir, nil, "--", "node", filepath.Join(mods, "jest", "bin", "jest.js"), "--ci")
	assert.Equal(t, 1, r.code, r.stderr)
	require.Contains(t, r.stderr, "Test suite failed to run")
	var broken []string
	for _, f := range r.results["failures"].([]any) {
		if msg := f.(map[string]any)["message"].(string); strings.Contains(msg, "no-such-module") {
			broken = append(broken, f.(map[string]any)["id"].(string))
		}
	}
	assert.Len(t, broken, 1, "the file that failed to load is a failing test")
}

func TestRunE2EStaleAndLinks(t *testing.T) {
	argv := pytestArgv(t)
	dir := project(t, "pytest")
	// A report left by an earlier attempt, and one planted elsewhere to be
	// linked in during the run: neither may count.
	planted := `<testsuite name="x"><testcase classname="planted" name="all_green"/></testsuite>`
	stale := filepath.Join(dir, "test-results", "old-junit.xml")
	require.NoError(t, os.MkdirAll(filepath.Dir(stale), 0o755))
	require.NoError(t, os.WriteFile(stale, []byte(planted), 0o644))
	old := time.Now().Add(-time.Hour)
	require.NoError(t, os.Chtimes(stale, old, old))
	elsewhere := filepath.Join(t.TempDir(), "planted.xml")
	require.NoError(t, os.WriteFile(elsewhere, []byte(planted), 0o644))

	script := strings.Join(argv, " ") + ` -q; rc=$?; ln -s ` + elsewhere + ` test-results/linked-junit.xml; exit $rc`
	r := runCheck(t, dir, nil, "--", "sh", "-c", script)
	assert.Equal(t, 1, r.code, r.stderr)
	summary := pytestSummary(t, r.stdout)
	c := counts(t, r.results)
	assert.Equal(t, summary["passed"], c["passed"], "the planted passing test is not counted")
	assert.NotContains(t, r.results["cases"], "planted::all_green")
	paths := reportPaths(r.results)
	assert.NotContains(t, paths, stale, "a stale report is not read")
	assert.Contains(t, paths, filepath.Join(dir, "test-results", "linked-junit.xml"), "the link is listed as refused")
	assert.Equal(t, false, r.results["complete"])
	assert.Contains(t, fmt.Sprint(r.results["incomplete_reasons"]), "symbolic link")
}

func TestRunE2EExitCodes(t *testing.T) {
	dir := t.TempDir()
	for _, code := range []int{0, 1, 7, 42} {
		r := runCheck(t, dir, nil, "--", "sh", "-c", fmt.Sprintf("echo out; exit %d", code))
		assert.Equal(t, code, r.code)
		assert.Equal(t, "out\n", r.stdout, "stdout belongs to the check")
		assert.EqualValues(t, code, r.results["exit_code"])
	}
	r := runCheck(t, dir, nil, "--", "sh", "-c", "kill -USR1 $$")
	assert.Equal(t, 128+int(syscall.SIGUSR1), r.code)
	assert.Equal(t, "aborted", r.results["status"])
}

func TestRunE2ETimeout(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "grandchild.pid")
	script := `(trap '' TERM; exec sleep 300) & echo $! > ` + pidFile + `; wait`
	start := time.Now()
	r := runCheck(t, dir, nil, "--timeout", "1s", "--kill-after", "500ms", "--", "sh", "-c", script)
	assert.Less(t, time.Since(start), 30*time.Second)
	assert.Equal(t, 124, r.code, r.stderr) // as timeout(1) gives it
	assert.Equal(t, "timed_out", r.results["status"])
	b, err := os.ReadFile(pidFile)
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return syscall.Kill(pid, 0) != nil || zombie(pid) }, 5*time.Second, 20*time.Millisecond,
		"the grandchild %d, which ignored SIGTERM, is killed with its group", pid)
}

func zombie(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
	return len(f) > 0 && f[0] == "Z"
}

// TestRunE2ESigterm sends SIGTERM, and SIGHUP (a terminal or ssh session
// that hung up), to a running `testresults run`: the signal goes to the
// check, and the run is written as aborted.
func TestRunE2ESigterm(t *testing.T) {
	bin := builtBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			out := filepath.Join(dir, "out")
			ready := filepath.Join(dir, "ready")
			cmd := exec.Command(bin, "run", "--out", out, "--", "sh", "-c", "touch "+ready+"; sleep 30 & wait")
			cmd.Env = cleanEnv(t, dir, nil)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			require.NoError(t, cmd.Start())
			require.Eventually(t, func() bool { _, err := os.Stat(ready); return err == nil }, 20*time.Second, 10*time.Millisecond)
			require.NoError(t, cmd.Process.Signal(sig))
			err := cmd.Wait()
			var ee *exec.ExitError
			require.ErrorAs(t, err, &ee, stderr.String())
			assert.Equal(t, 128+int(sig), ee.ExitCode(), "the check's own end (killed by the forwarded signal)")
			results := readResults(t, out)
			assert.Equal(t, "aborted", results["status"])
			assert.Contains(t, stderr.String(), "aborted")
		})
	}
}

// TestRunE2EBrokenPipe runs `testresults run` with its standard output a
// pipe whose reader went away (`testresults run ... | head -1`): the
// writes fail, the check runs to its end and the run is written, with the
// check's exit code.
func TestRunE2EBrokenPipe(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	r, w, err := os.Pipe()
	require.NoError(t, err)
	require.NoError(t, r.Close())
	defer w.Close()
	cmd := exec.Command(bin, "run", "--out", out, "--", "sh", "-c", "echo one; echo two; exit 3")
	cmd.Env = cleanEnv(t, dir, nil)
	cmd.Stdout = w
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee, stderr.String())
	assert.Equal(t, 3, ee.ExitCode(), "the check's exit code, not a death by SIGPIPE: %v; %s", err, stderr.String())
	results := readResults(t, out)
	assert.Equal(t, "failure", results["status"])
	assert.Contains(t, stderr.String(), "results: ")
}

// TestRunE2EExpectIDs runs real pytest on a project whose test_parse.py
// fails to import: pytest writes one error test for the module and stops
// (exit 2). Checked against every test of the project (the ids pytest
// collects once the import works), the run names the seven that never ran
// and is not counted.
func TestRunE2EExpectIDs(t *testing.T) {
	argv := pytestArgv(t)
	dir := project(t, "pytest-collection-error")
	expected := filepath.Join(testcorpus.Root(t), "testdata", "runners", "pytest-collection-error", "expected-ids.txt")
	r := runCheck(t, dir, nil, append([]string{"--kind", "after_turn", "--expect-ids", expected, "--"}, append(argv, "-q")...)...)
	assert.Equal(t, 2, r.code, "pytest's own exit code (interrupted) passes through; stderr: %s", r.stderr)
	assert.Contains(t, r.stdout, "ERROR collecting test_parse.py")
	c := counts(t, r.results)
	assert.Equal(t, map[string]int{"total": 1, "passed": 0, "failed": 0, "errors": 1, "skipped": 0, "flaky": 0}, c)
	assert.Equal(t, map[string]any{"test_parse": "error"}, r.results["cases"], "the collection error, read as today")
	notRun := []any{
		"test_calc.TestRounding::test_rounds_half_to_even", "test_calc::test_adds", "test_calc::test_skipped", "test_calc::test_subtracts",
		"test_parse.TestParseErrors::test_rejects_letters", "test_parse::test_parses_float", "test_parse::test_parses_int",
	}
	assert.Equal(t, notRun, r.results["not_run"])
	assert.Equal(t, float64(7), r.results["not_run_count"])
	assert.Equal(t, false, r.results["complete"])
	assert.Equal(t, false, r.results["counted"])
	assert.Equal(t, []any{"7 expected tests never ran (no report read mentions them)"}, r.results["incomplete_reasons"])
	assert.Contains(t, r.stderr, "not run test_calc::test_adds")

	// The other modules still run with --continue-on-collection-errors:
	// only test_parse's three tests are missing.
	dir = project(t, "pytest-collection-error")
	r = runCheck(t, dir, nil, append([]string{"--kind", "after_turn", "--expect-ids", expected, "--"}, append(argv, "-q", "--continue-on-collection-errors")...)...)
	assert.Equal(t, 1, r.code, r.stderr)
	assert.Equal(t, 5, counts(t, r.results)["total"])
	assert.Equal(t, notRun[4:], r.results["not_run"])
	assert.Equal(t, false, r.results["counted"])
}
