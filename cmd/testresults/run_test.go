package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/internal/testpty"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// runInProc runs `testresults run` in this process with PATH and the given
// variables as the whole environment.
func runInProc(t *testing.T, vars map[string]string, args ...string) (int, string, string) {
	t.Helper()
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	for k, v := range vars {
		env = append(env, k+"="+v)
	}
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"run"}, args...), Env{
		Stdin:   bytes.NewReader(nil),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(k string) string { return vars[k] },
		Environ: func() []string { return env },
	})
	return code, out.String(), errb.String()
}

func TestRunUsage(t *testing.T) {
	base := filepath.Join(t.TempDir(), "base.json")
	require.NoError(t, os.WriteFile(base, []byte("not json"), 0o644))
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no command", nil, "no command given"},
		{"no dash", []string{"true"}, "put the command after --"},
		{"empty command", []string{"--", ""}, "no command"},
		{"bad kind", []string{"--kind", "nightly", "--", "true"}, "unknown --kind"},
		{"grade without grader", []string{"--kind", "base", "--grade", "isolated", "--", "true"}, "--grade is only for --kind grader"},
		{"bad run id", []string{"--run-id", "../x", "--", "true"}, "cannot name a folder"},
		{"negative timeout", []string{"--timeout", "-1s", "--", "true"}, "negative"},
		{"export flag without --export", []string{"--format", "otel", "--", "true"}, "add --export"},
		{"otel to stdout", []string{"--export", "--format", "otel", "--", "true"}, "needs -o FILE"},
		{"unreadable base", []string{"--base-run", base, "--", "true"}, "--base-run"},
		{"bad mode", []string{"--", "true"}, "HANGAR_TEST_REPORTS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{}
			if tt.name == "bad mode" {
				vars["HANGAR_TEST_REPORTS"] = "sometimes"
			}
			code, out, stderr := runInProc(t, vars, tt.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tt.want)
		})
	}
	code, out, _ := runInProc(t, nil, "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "Usage: testresults run")
	assert.Contains(t, out, "124")
}

func TestRunOutFolder(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	require.NoError(t, os.MkdirAll(out, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(out, "mine.txt"), nil, 0o644))
	code, _, stderr := runInProc(t, nil, "--out", out, "--", "true")
	assert.Equal(t, exitUsage, code, "a folder of other files is never emptied")
	assert.Contains(t, stderr, "not empty")

	// The default folder is under HOME, named by the run id.
	home := t.TempDir()
	var errb bytes.Buffer
	code = run(context.Background(), []string{"run", "--run-id", "r-1", "-q", "--", "true"}, Env{
		Stdout: &bytes.Buffer{}, Stderr: &errb, Getenv: func(string) string { return "" },
		Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home} },
	})
	assert.Equal(t, exitOK, code, errb.String())
	assert.Empty(t, errb.String(), "--quiet")
	assert.FileExists(t, filepath.Join(home, ".hangar", "tests", "r-1", "TEST-RESULTS.json"))

	// The same --out again: the earlier run's files are replaced.
	out2 := filepath.Join(t.TempDir(), "again")
	for range 2 {
		code, _, stderr = runInProc(t, nil, "--out", out2, "--", "sh", "-c", `echo '<testsuite name="s"><testcase classname="c" name="t"/></testsuite>' > "$HANGAR_TESTS_DIR/r$$.xml"`)
		require.Equal(t, exitOK, code, stderr)
	}
	got := readResults(t, out2)
	assert.Len(t, got["reports"], 1, "the earlier run's report is gone")
}

const (
	baseReport = `<testsuite name="s">
<testcase classname="c" name="a"><failure message="a broke"/></testcase>
<testcase classname="c" name="b"><failure message="b broke"/></testcase>
<testcase classname="c" name="c"/>
</testsuite>`
	afterReport = `<testsuite name="s">
<testcase classname="c" name="a"/>
<testcase classname="c" name="b"><failure message="b still broke"/></testcase>
<testcase classname="c" name="c"><failure message="c broke now &#x202e;gnp.exe"/></testcase>
<testcase classname="c" name="&#x202e;lmth.exe"><failure message="x"/></testcase>
</testsuite>`
)

func TestRunBase(t *testing.T) {
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.json")
	p := writeReport(t, dir, "base.xml", baseReport)
	code, out, stderr := runCmd(t, "parse", "--kind", "base", "--id", "base-1", p)
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, os.WriteFile(basePath, []byte(out), 0o644))

	after := writeReport(t, dir, "after.xml", afterReport)
	outDir := filepath.Join(dir, "out")
	code, stdout, stderr := runInProc(t, nil, "--out", outDir, "--kind", "after_turn", "--base-run", basePath,
		"--", "cp", after, filepath.Join(outDir, "after.xml"))
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stdout, "stdout belongs to the check")
	b, err := os.ReadFile(filepath.Join(outDir, "TEST-RESULTS.json"))
	require.NoError(t, err)
	var got struct {
		ID          string `json:"id"`
		BaseID      string `json:"base_id"`
		NewFailures []struct {
			ID      string  `json:"id"`
			Outcome string  `json:"outcome"`
			Message *string `json:"message"`
		} `json:"new_failures"`
		Available    bool             `json:"available"`
		Unavailable  *string          `json:"unavailable_reason"`
		Flaky        []map[string]any `json:"flaky_on_list"`
		Output       []map[string]any `json:"output_failures"`
		BaseFailures []map[string]any `json:"base_failures"`
		Fixed        []string         `json:"fixed"`
		Delta        *float64         `json:"coverage_delta"`
	}
	require.NoError(t, json.Unmarshal(b, &got))
	assert.Equal(t, "base-1", got.BaseID)
	require.Len(t, got.NewFailures, 2)
	assert.Equal(t, "c::c", got.NewFailures[0].ID)
	require.NotNil(t, got.NewFailures[0].Message)
	assert.Contains(t, *got.NewFailures[0].Message, "c broke now")
	assert.True(t, got.Available)
	assert.Nil(t, got.Unavailable)
	assert.Empty(t, got.Flaky)
	assert.NotNil(t, got.Output, "the check's output was read")
	assert.Empty(t, got.Output)
	assert.Len(t, got.BaseFailures, 2)
	assert.Equal(t, []string{"c::a"}, got.Fixed)
	assert.Nil(t, got.Delta, "no coverage on either side: unknown, not 0")
	// The run alone sits beside it, for readers of runs.
	ecode, _, eerr := runCmd(t, "export", "--format", "otlp-json", "-o", filepath.Join(dir, "spans.json"), filepath.Join(outDir, "run.json"))
	assert.Equal(t, exitOK, ecode, eerr)

	assert.Contains(t, stderr, "new failures against base-1: ")
	assert.Contains(t, stderr, `c::\u202elmth.exe`, "names reach the terminal escaped")
	assert.NotContains(t, stderr, "\u202e")
	assert.NotContains(t, stderr, "\x1b[", "no colour off a terminal")

	// A base that read nothing: the comparison is unavailable, not empty.
	code, emptyRun, _ := runCmd(t, "parse", "--kind", "base", "--id", "base-2", t.TempDir())
	require.Equal(t, exitRejected, code, "parse still prints the run that read nothing")
	empty := filepath.Join(dir, "empty.json")
	require.NoError(t, os.WriteFile(empty, []byte(emptyRun), 0o644))
	out3 := filepath.Join(dir, "out3")
	code, _, stderr = runInProc(t, nil, "--out", out3, "--base-run", empty, "--", "cp", after, filepath.Join(out3, "after.xml"))
	require.Equal(t, exitOK, code, stderr)
	res := readResults(t, out3)
	assert.Nil(t, res["new_failures"])
	assert.Equal(t, false, res["available"])
	assert.Contains(t, res["unavailable_reason"], "comparison unavailable")
	assert.Contains(t, stderr, "new failures: unknown")
}

// TestRunSummaryColourOnTerminal: on a terminal the summary of run is
// painted through the terminal writer: the status and the new failures
// arrive as colour codes, not as escaped text, and a report's own control
// characters still arrive as text. With NO_COLOR no code arrives.
func TestRunSummaryColourOnTerminal(t *testing.T) {
	dir := t.TempDir()
	basePath := filepath.Join(dir, "base.json")
	code, out, stderr := runCmd(t, "parse", "--kind", "base", "--id", "base-1", writeReport(t, dir, "base.xml", baseReport))
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, os.WriteFile(basePath, []byte(out), 0o644))
	after := writeReport(t, dir, "after.xml", afterReport)
	onTerminal := func(vars map[string]string) string {
		t.Helper()
		master, slave, err := testpty.Open()
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skip("no pseudo-terminal here")
		}
		require.NoError(t, err)
		defer master.Close()
		outDir := filepath.Join(t.TempDir(), "out")
		getenv := func(k string) string { return vars[k] }
		code := run(context.Background(), []string{"run", "--out", outDir, "--base-run", basePath,
			"--", "sh", "-c", `cp "$0" "$HANGAR_TESTS_DIR/after.xml"; exit 1`, after}, Env{
			Stdin:   bytes.NewReader(nil),
			Stdout:  io.Discard,
			Stderr:  term.ForTerminal(slave, getenv),
			Getenv:  getenv,
			Environ: func() []string { return []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()} },
		})
		require.NoError(t, slave.Close())
		got, err := testpty.ReadAll(master)
		require.NoError(t, err)
		require.Equal(t, 1, code, got)
		return got
	}
	got := onTerminal(nil)
	assert.Contains(t, got, "testresults: \x1b[31mfailure\x1b[0m (exit 1, ", "the status is painted: %q", got)
	assert.Contains(t, got, "new failures against base-1: \x1b[31mc::c, c::\\u202elmth.exe\x1b[0m", "%q", got)
	assert.Contains(t, got, "\x1b[31mfailed\x1b[0m", "%q", got)
	assert.NotContains(t, got, `\x1b[`, "codes are written as codes, not escaped into text")
	assert.NotContains(t, got, "\u202e", "a report's control characters arrive as text")

	plain := onTerminal(map[string]string{"NO_COLOR": "1"})
	assert.Contains(t, plain, "testresults: failure (exit 1, ", "%q", plain)
	assert.Contains(t, plain, "new failures against base-1: c::c, c::\\u202elmth.exe", "%q", plain)
	assert.NotContains(t, plain, "\x1b", "no colour code with NO_COLOR")
}

// escapeControl is term.EscapeLine, the one escaper of what the commands
// print within a line, for the tests that name it.
var escapeControl = term.EscapeLine

// TestEscapeControl: what the run summary, prune and pair print within a
// line is escaped by term.EscapeLine, which shows every character that
// could drive a terminal or break the line.
func TestEscapeControl(t *testing.T) {
	for in, want := range map[string]string{
		"plain::name":       "plain::name",
		"a\x1b[31mred":      `a\x1b[31mred`,
		"tab\there":         `tab\there`,
		"new\nline":         `new\nline`,
		"cr\rback":          `cr\rback`,
		"del\x7f":           `del\x7f`,
		"bidi\u202eexe":     `bidi\u202eexe`,
		"c1\u009bx":         `c1\u009bx`,
		"bad\xffutf8":       `bad\xffutf8`,
		"zero\u200bwidth":   `zero\u200bwidth`,
		"line\u2028sep":     `line\u2028sep`,
		"unicode é ü 名前 ok": "unicode é ü 名前 ok",
	} {
		assert.Equal(t, want, escapeControl(in), "%q", in)
	}
}

// TestRunCompareOutputAndFlaky: TEST-RESULTS.json's comparison reads the
// check's output beside its reports, and marks flaky ids from the flaky
// list when --repo names one.
func TestRunCompareOutputAndFlaky(t *testing.T) {
	dir := t.TempDir()
	passing := writeReport(t, dir, "pass.xml", `<testsuite name="s"><testcase classname="c" name="a"/>`+
		`<testcase classname="c" name="f"><flakyFailure message="once"/></testcase></testsuite>`)
	baseDir := filepath.Join(dir, "base")
	require.NoError(t, os.MkdirAll(baseDir, 0o755))
	code, out, stderr := runCmd(t, "parse", "--kind", "base", "--id", "base-1", passing)
	require.Equal(t, exitOK, code, stderr)
	basePath := filepath.Join(baseDir, "run.json")
	require.NoError(t, os.WriteFile(basePath, []byte(out), 0o644))
	baseLog := filepath.Join(dir, "base-output.log")
	require.NoError(t, os.WriteFile(baseLog, []byte("--- FAIL: TestHidden (0.00s)\n"), 0o644))

	db := filepath.Join(dir, "store.db")
	seen := writeRun(t, dir, "seen-1", "attempt", "t1", map[string]testrun.Outcome{"c::a": testrun.OutcomePassed}, "c::f")
	code, _, stderr = runCmdEnv(t, nil, "flaky", "record", "--store", db, "--repo", "r", seen)
	require.Equal(t, exitOK, code, stderr)

	// The check writes a passing report and prints a go failure the
	// reports do not hold.
	check := []string{"sh", "-c", `cp "$0" "$HANGAR_TESTS_DIR/r.xml"; echo "--- FAIL: TestHidden (0.00s)"`, passing}
	onList := true
	tests := []struct {
		name      string
		args      []string
		available bool
		onList    *bool
	}{
		{"output names an unreported failure", nil, false, nil},
		{"the base's output named it too", []string{"--base-output", baseLog}, true, nil},
		{"flaky id on the list", []string{"--base-output", baseLog, "--store", db, "--repo", "r"}, true, &onList},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			outDir := filepath.Join(t.TempDir(), "out")
			args := append(append([]string{"--out", outDir, "--base-run", basePath}, tt.args...), "--")
			code, _, stderr := runInProc(t, nil, append(args, check...)...)
			require.Equal(t, exitOK, code, stderr)
			res := readResults(t, outDir)
			assert.Equal(t, tt.available, res["available"], res["unavailable_reason"])
			if !tt.available {
				assert.Nil(t, res["new_failures"], "never an empty list that reads as nothing new")
				assert.Contains(t, res["unavailable_reason"], "TestHidden")
				assert.Contains(t, stderr, "new failures: unknown")
			} else {
				assert.Equal(t, []any{}, res["new_failures"])
			}
			flaky, ok := res["flaky_on_list"].([]any)
			require.True(t, ok, "the comparison's marks are flaky_on_list: %v", res["flaky_on_list"])
			require.Len(t, flaky, 1)
			mark := flaky[0].(map[string]any)
			assert.Equal(t, "c::f", mark["id"])
			if tt.onList == nil {
				assert.Nil(t, mark["on_list"], "no store: unmarked")
			} else {
				assert.Equal(t, *tt.onList, mark["on_list"])
			}
			assert.FileExists(t, filepath.Join(outDir, "run.json"))
		})
	}

	// output.log beside the --base-run file is the base's output.
	require.NoError(t, os.WriteFile(filepath.Join(baseDir, "output.log"), []byte("--- FAIL: TestHidden (0.00s)\n"), 0o644))
	outDir := filepath.Join(t.TempDir(), "out")
	code, _, stderr = runInProc(t, nil, append([]string{"--out", outDir, "--base-run", basePath, "--"}, check...)...)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, true, readResults(t, outDir)["available"])
}

// TestRunRecord: run --record --job-id stores the run in the store, where
// testresults serve reads it.
func TestRunRecord(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	after := writeReport(t, dir, "after.xml", afterReport)
	outDir := filepath.Join(dir, "out")
	code, _, stderr := runInProc(t, nil, "--out", outDir, "--kind", "after_turn", "--run-id", "rec-1",
		"--record", "--store", db, "--job-id", "job-9", "--", "cp", after, filepath.Join(outDir, "after.xml"))
	require.Equal(t, exitOK, code, stderr)

	st, err := store.Open(context.Background(), db)
	require.NoError(t, err)
	defer st.Close()
	runs, err := st.JobRuns(context.Background(), "job-9")
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.Equal(t, "rec-1", runs[0].Run.ID)
}

// TestRunExpectIDs: run checks its run against the expected tests (the
// rule is testrun's), keeps the check's exit code, and an unreadable file
// stops it before the check starts.
func TestRunExpectIDs(t *testing.T) {
	dir := t.TempDir()
	expected := writeReport(t, dir, "expected.txt", "c::a\nc::b\nc::gone\nd::gone\n")
	report := `echo '<testsuite name="s"><testcase classname="c" name="a"/><testcase classname="c" name="b"><skipped/></testcase></testsuite>' > "$HANGAR_TESTS_DIR/r.xml"`
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runInProc(t, nil, "--out", out, "--expect-ids", expected, "--", "sh", "-c", report)
	require.Equal(t, exitOK, code, "the check's own exit code: %s", stderr)
	got := readResults(t, out)
	assert.Equal(t, []any{"c::gone", "d::gone"}, got["not_run"], "a skipped test ran")
	assert.Equal(t, float64(2), got["not_run_count"])
	assert.Equal(t, false, got["complete"])
	assert.Equal(t, false, got["counted"])
	assert.Contains(t, got["incomplete_reasons"], testrun.NotRunReason(2))
	assert.Contains(t, stderr, "not run c::gone")
	assert.Contains(t, stderr, "incomplete: "+testrun.NotRunReason(2))

	// Without the flag nothing changes: no not_run key at all.
	out = filepath.Join(t.TempDir(), "out")
	code, _, stderr = runInProc(t, nil, "--out", out, "--", "sh", "-c", report)
	require.Equal(t, exitOK, code, stderr)
	got = readResults(t, out)
	assert.NotContains(t, got, "not_run")
	assert.Equal(t, true, got["complete"])

	marker := filepath.Join(dir, "ran")
	for name, path := range map[string]string{
		"missing": filepath.Join(dir, "nope"),
		"empty":   writeReport(t, dir, "empty.txt", ""),
	} {
		t.Run(name, func(t *testing.T) {
			code, _, stderr := runInProc(t, nil, "--expect-ids", path, "--", "touch", marker)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, "--expect-ids")
			assert.NoFileExists(t, marker, "the check never started")
		})
	}
}

// TestRunStoreUnopenable: a flaky list whose store cannot be opened is
// said once, naming the list and the store once each; the check's own
// exit code stands.
func TestRunStoreUnopenable(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	code, _, stderr := runInProc(t, nil, "-q", "--out", filepath.Join(dir, "out"), "--store", filepath.Join(file, "x", "store.db"),
		"--repo", "r", "--quarantine", "--", "true")
	assert.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "testresults run: flaky list: store: mkdir "+file+": not a directory\n")
	assert.Equal(t, 1, strings.Count(stderr, "store:"), stderr)
}
