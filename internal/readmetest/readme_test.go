package readmetest

import (
	"bufio"
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
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// block is one fenced code block of the README.
type block struct {
	line int      // the line of its opening fence, from 1
	info []string // the words of its info string
	body string
}

var fenceRE = regexp.MustCompile("^(`{3,}|~{3,})(.*)$")

// fences returns the fenced code blocks of a Markdown text, in order.
func fences(t *testing.T, text string) []block {
	t.Helper()
	var (
		out   []block
		open  string // the opening fence while inside a block
		cur   block
		lines []string
	)
	sc := bufio.NewScanner(strings.NewReader(text))
	for n := 1; sc.Scan(); n++ {
		l := sc.Text()
		if open == "" {
			if m := fenceRE.FindStringSubmatch(l); m != nil {
				open, cur, lines = m[1], block{line: n, info: strings.Fields(m[2])}, nil
			}
			continue
		}
		// A closing fence: at least as many of the same character, nothing after.
		if rest := strings.TrimLeft(l, open[:1]); len(l)-len(rest) >= len(open) && strings.TrimSpace(rest) == "" {
			cur.body = strings.Join(lines, "\n") + "\n"
			out = append(out, cur)
			open = ""
			continue
		}
		lines = append(lines, l)
	}
	require.NoError(t, sc.Err())
	require.Empty(t, open, "README.md: the block opened on line %d is never closed", cur.line)
	return out
}

// quickstart is a block marked to be run: info string "sh quickstart",
// optionally followed by exit=N, the code the block ends with (0 without).
type quickstart struct {
	block
	exit int
}

func quickstarts(t *testing.T, blocks []block) []quickstart {
	t.Helper()
	var out []quickstart
	for _, b := range blocks {
		if len(b.info) < 2 || b.info[1] != "quickstart" {
			continue
		}
		require.Equal(t, "sh", b.info[0], "README.md:%d: a quickstart block is a sh block", b.line)
		q := quickstart{block: b}
		for _, w := range b.info[2:] {
			v, ok := strings.CutPrefix(w, "exit=")
			require.True(t, ok, "README.md:%d: unknown word %q in the info string (only exit=N)", b.line, w)
			n, err := strconv.Atoi(v)
			require.NoError(t, err, "README.md:%d: %q", b.line, w)
			q.exit = n
		}
		out = append(out, q)
	}
	return out
}

func readme(t *testing.T) (root string, blocks []block) {
	t.Helper()
	root = testcorpus.Root(t)
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	require.NoError(t, err)
	return root, fences(t, string(b))
}

// binEnv names the testresults binary the tests run instead of one built
// from this tree: the installed package's (scripts/install-check.sh sets it
// to /usr/bin/testresults).
const binEnv = "TESTRESULTS_README_BIN"

// binDir returns a folder whose testresults is the one the README's
// commands run: the binary $TESTRESULTS_README_BIN names, or else one
// freshly built from this tree.
func binDir(t *testing.T, root string) string {
	t.Helper()
	bin := t.TempDir()
	if p := os.Getenv(binEnv); p != "" {
		require.True(t, filepath.IsAbs(p), "%s=%s: want an absolute path", binEnv, p)
		out, err := exec.Command(p, "--version").CombinedOutput()
		require.NoError(t, err, "%s=%s: %s", binEnv, p, out)
		t.Logf("testresults: %s: %s", p, strings.TrimSpace(string(out)))
		require.NoError(t, os.Symlink(p, filepath.Join(bin, "testresults")))
		return bin
	}
	cmd := exec.Command("go", "build", "-o", filepath.Join(bin, "testresults"), "./cmd/testresults")
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// needPytest skips the test when pytest cannot run, except under CI=true,
// where scripts/install-runners.sh has installed it and its absence fails.
func needPytest(t *testing.T, env []string) {
	t.Helper()
	cmd := exec.Command("bash", "--noprofile", "--norc", "-c", "pytest --version")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("pytest is absent (scripts/install-runners.sh installs it): %v: %s", err, out)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (under CI=true it must be there)")
	}
	t.Skip(msg)
}

// cleanEnv is the test's environment without anything that would steer
// testresults or the runners: a reader of the README starts from none of it.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "OTEL_"), strings.HasPrefix(k, "HANGAR_"),
			strings.HasPrefix(k, "PYTEST_"), strings.HasPrefix(k, "GOTESTSUM_"),
			strings.HasPrefix(k, "JEST_JUNIT_"), strings.HasPrefix(k, "GITHUB_"),
			k == "TRACEPARENT", k == "TRACESTATE", k == "HOME", k == "PATH", k == "STATE_DIR":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func run(t *testing.T, dir string, env []string, script string) (string, int) {
	t.Helper()
	// A block is waited for until shortly before the test's own deadline
	// (go test -timeout), never a guess of how fast a loaded machine is.
	deadline := time.Now().Add(time.Hour)
	if d, ok := t.Deadline(); ok {
		deadline = d.Add(-30 * time.Second)
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit) && ctx.Err() == nil:
		return string(out), exit.ExitCode()
	}
	t.Fatalf("bash: %v\n%s", err, out)
	return "", 0
}

func readJSON(t *testing.T, path string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var v map[string]any
	require.NoError(t, json.Unmarshal(b, &v), "%s", path)
	return v
}

// project is a suite the README's quickstart runs on.
type project struct {
	name string
	// dir is its folder under testdata/projects.
	dir string
	// swap replaces, in the README's commands, pytest's by this runner's,
	// each at least once: the commands are the README's but for the
	// runner.
	swap [][2]string
	// need skips or fails the test when the runner is absent.
	need func(t *testing.T, env []string)
	// total and baseFailures are the run's test count and what diff says
	// of the base's failures.
	total, baseFailures int
}

// projects are the suites the quickstart runs on: a pytest project, as the
// README is written for, and a Go module through go test -json, the
// README's commands with pytest's command swapped for go test's.
var projects = []project{
	{
		// Five tests: one fails, one errors on purpose; one fails once and
		// is rerun (pytest-rerunfailures).
		name: "pytest", dir: "pytest", need: needPytest,
		total: 5, baseFailures: 2,
	},
	{
		// Four tests: one fails on purpose, one is skipped, one fails on
		// its first run only (TestRetried: in the first block).
		name: "go", dir: "gotestsum", need: func(*testing.T, []string) {},
		swap: [][2]string{
			{"pytest --junitxml=test-results/pytest.xml", "mkdir -p test-results && go test -json ./... > test-results/go-test.json"},
			{`--command "pytest"`, `--command "go test -json ./..."`},
			{"-- pytest", "-- go test -json ./..."},
		},
		total: 4, baseFailures: 1,
	},
}

// swapRunner returns the quickstart blocks with p's runner in place of
// pytest; a swap that matches nothing fails the test, so that a change of
// the README cannot leave a block running pytest on the Go module.
func swapRunner(t *testing.T, qs []quickstart, p project) []quickstart {
	t.Helper()
	out := make([]quickstart, len(qs))
	copy(out, qs)
	for _, sw := range p.swap {
		n := 0
		for i := range out {
			n += strings.Count(out[i].body, sw[0])
			out[i].body = strings.ReplaceAll(out[i].body, sw[0], sw[1])
		}
		require.Positive(t, n, "%s: the README's quickstart no longer holds %q", p.name, sw[0])
	}
	for _, q := range out {
		if len(p.swap) == 0 {
			break
		}
		require.NotRegexp(t, `(^|[\s;|&(])pytest($|\s)`, q.body, "%s: README.md:%d: a block still runs pytest", p.name, q.line)
	}
	return out
}

// TestQuickstart runs the README's quickstart blocks in order, as written,
// in a copy of testdata/projects/pytest (five tests: one fails, one errors
// on purpose), and again with go test -json in place of pytest in a copy
// of the Go module testdata/projects/gotestsum; it checks that each block
// ends with the exit code its info string states and that the outcomes the
// README's text states hold.
func TestQuickstart(t *testing.T) {
	root, blocks := readme(t)
	qs := quickstarts(t, blocks)
	var all strings.Builder
	for _, q := range qs {
		all.WriteString(q.body)
	}
	for _, cmd := range []string{"testresults run ", "testresults parse ", "testresults diff ", "testresults export ", "testresults packet "} {
		require.Contains(t, all.String(), cmd, "the README's quickstart blocks (```sh quickstart) should show %q", cmd)
	}
	bin := binDir(t, root)
	for _, p := range projects {
		t.Run(p.name, func(t *testing.T) {
			quickstartOn(t, root, bin, swapRunner(t, qs, p), p)
		})
	}
}

func quickstartOn(t *testing.T, root, bin string, qs []quickstart, p project) {
	work := t.TempDir()
	dir := filepath.Join(work, "project")
	require.NoError(t, os.CopyFS(dir, os.DirFS(filepath.Join(root, "testdata", "projects", p.dir))))
	home, state := filepath.Join(work, "home"), filepath.Join(work, "state")
	require.NoError(t, os.Mkdir(home, 0o755))
	require.NoError(t, os.Mkdir(state, 0o755))
	summary := filepath.Join(work, "step-summary.md")
	env := append(cleanEnv(),
		"HOME="+home,
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		// The project's retried test keeps how often it ran here.
		"STATE_DIR="+state,
		// GitHub Actions sets it; the packet step appends to it.
		"GITHUB_STEP_SUMMARY="+summary,
	)
	p.need(t, env)
	// The testresults the blocks run is bin's.
	which, code := run(t, dir, env, "command -v testresults")
	require.Equal(t, 0, code, which)
	require.Equal(t, filepath.Join(bin, "testresults"), strings.TrimSpace(which))

	outputs := map[string]string{}
	for _, q := range qs {
		out, code := run(t, dir, env, q.body)
		require.Equal(t, q.exit, code, "README.md:%d: the block should end with exit %d:\n%s\noutput:\n%s", q.line, q.exit, q.body, out)
		outputs[strings.Fields(q.body)[0]+" "+strings.Fields(q.body)[1]] = out
	}

	// "The run above is counted, although pytest failed."
	after := readJSON(t, filepath.Join(dir, "results", "after", "TEST-RESULTS.json"))
	assert.Equal(t, true, after["complete"], "results/after: %v", after["incomplete_reasons"])
	assert.Equal(t, true, after["counted"])
	assert.Equal(t, "failure", after["status"])
	assert.Equal(t, "after_turn", after["kind"])
	assert.Equal(t, float64(p.total), after["counts"].(map[string]any)["total"])
	// "parse their reports after the fact".
	parsed := readJSON(t, filepath.Join(dir, "run.json"))
	assert.Equal(t, true, parsed["counted"])
	assert.Equal(t, float64(1), parsed["exit_code"])
	assert.Equal(t, float64(p.total), parsed["counts"].(map[string]any)["total"])
	// "here: new failures: none, the base failed the same tests".
	assert.Contains(t, outputs["testresults diff"], "new failures: none")
	assert.Contains(t, outputs["testresults diff"], fmt.Sprintf("base failures: %d\n", p.baseFailures))
	// The export wrote the file; the packet went into the step summary.
	st, err := os.Stat(filepath.Join(dir, "spans.jsonl"))
	require.NoError(t, err)
	assert.Positive(t, st.Size())
	b, err := os.ReadFile(summary)
	require.NoError(t, err)
	assert.Contains(t, string(b), "No new failures against the base")
}

// TestSetUp runs the set-up's first command, the parse of the bundled
// pytest reports, with a freshly built testresults in place of go run, and
// checks the run the README says it prints; the second command is the test
// script itself.
func TestSetUp(t *testing.T) {
	root, blocks := readme(t)
	var setup []string
	for _, b := range blocks {
		if strings.Contains(b.body, "scripts/test.sh") {
			for _, l := range strings.Split(b.body, "\n") {
				if l != "" && !strings.HasPrefix(l, "#") {
					setup = append(setup, l)
				}
			}
			break
		}
	}
	require.Len(t, setup, 2, "the README's set-up is two commands: %q", setup)
	parse, ok := strings.CutPrefix(setup[0], "go run ./cmd/testresults ")
	require.True(t, ok, "the set-up's first command runs the CLI: %q", setup[0])
	assert.Equal(t, "scripts/test.sh", setup[1])
	st, err := os.Stat(filepath.Join(root, "scripts", "test.sh"))
	require.NoError(t, err)
	assert.NotZero(t, st.Mode()&0o111, "scripts/test.sh is executable")

	env := append(cleanEnv(), "HOME="+t.TempDir(), "PATH="+os.Getenv("PATH"))
	out, code := run(t, root, env, filepath.Join(binDir(t, root), "testresults")+" "+parse+" 2>/dev/null")
	require.Equal(t, 0, code, out)
	var r struct {
		Counts struct {
			Total, Passed, Failed, Errors, Skipped int
		}
		Complete, Counted bool
		Failures          []struct{ Message string }
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	// "18 tests, 10 passed, 5 failed, 1 error, 2 skipped, complete: true,
	// counted: true, secrets in the failure messages replaced by [REDACTED]".
	assert.Equal(t, [5]int{18, 10, 5, 1, 2}, [5]int{r.Counts.Total, r.Counts.Passed, r.Counts.Failed, r.Counts.Errors, r.Counts.Skipped})
	assert.True(t, r.Complete)
	assert.True(t, r.Counted)
	redacted := false
	for _, f := range r.Failures {
		redacted = redacted || strings.Contains(f.Message, "[REDACTED]")
	}
	assert.True(t, redacted, "a failure message has a secret replaced by [REDACTED]")
}
