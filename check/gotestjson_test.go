package check

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/testrun"
)

// tinyModule writes a Go module with no dependencies whose tests give 6
// tests as go test -json reads them: 2 passed, 3 failed, 1 skipped.
func tinyModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/tiny\n\ngo 1.22\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tiny_test.go"), []byte(`package tiny

import "testing"

func TestPass(t *testing.T) {}
func TestFail(t *testing.T) { t.Fatal("boom") }
func TestSkip(t *testing.T) { t.Skip("later") }
func TestSub(t *testing.T) {
	t.Run("a", func(t *testing.T) {})
	t.Run("b", func(t *testing.T) { t.Error("bad") })
}
`), 0o644))
	return dir
}

// goEnv is an environment for the real go command: its build cache is
// this process's (so the module builds fast), its toolchain the one
// installed.
func goEnv(t *testing.T, more ...string) []string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go is not on PATH: %v", err)
	}
	cache, err := exec.Command(gobin, "env", "GOCACHE").Output()
	require.NoError(t, err)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "GOTOOLCHAIN=local",
		"GOCACHE=" + strings.TrimSpace(string(cache)), "GOPATH=" + t.TempDir()}
	return append(env, more...)
}

func runGo(t *testing.T, dir string, env []string, argv []string, opts ...Option) (*Result, string) {
	t.Helper()
	var out bytes.Buffer
	all := append([]Option{WithDir(dir), WithEnv(env), WithStdio(nil, &out, nil),
		WithReportDir(filepath.Join(t.TempDir(), "run"))}, opts...)
	res, err := Run(context.Background(), argv, all...)
	require.NoError(t, err)
	return res, out.String()
}

func TestRunGoTestJSON(t *testing.T) {
	dir := tinyModule(t)
	tests := []struct {
		name string
		argv []string
		env  []string
	}{
		{name: "-json", argv: []string{"go", "test", "-json", "-count=1", "./..."}},
		{name: "--json after the packages", argv: []string{"go", "test", "-count=1", "./...", "--json"}},
		{name: "-json=true", argv: []string{"go", "test", "-json=true", "-count=1", "."}},
		{name: "GOFLAGS", argv: []string{"go", "test", "-count=1", "./..."}, env: []string{"GOFLAGS=-json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, stdout := runGo(t, dir, goEnv(t, tt.env...), tt.argv)
			run := res.Run
			assert.Equal(t, 1, res.ExitCode, "go test's own exit code: tests fail")
			assert.Equal(t, testrun.StatusFailure, run.Status)
			require.NotNil(t, run.Counts, "%v", run.IncompleteReasons)
			assert.Equal(t, testrun.Counts{Total: 6, Passed: 2, Failed: 3, Skipped: 1}, *run.Counts)
			assert.True(t, run.Complete, "%v", run.IncompleteReasons)
			assert.Equal(t, testrun.OutcomeFailed, run.Cases["example.com/tiny::TestSub/b"])
			assert.Equal(t, testrun.OutcomePassed, run.Cases["example.com/tiny::TestSub/a"])
			kept := filepath.Join(res.Dir, GoTestReport)
			require.Len(t, run.Reports, 1)
			assert.Equal(t, kept, run.Reports[0].Path)
			assert.Equal(t, gotestjson.Dialect, run.Reports[0].Dialect)
			b, err := os.ReadFile(kept)
			require.NoError(t, err)
			assert.Equal(t, stdout, string(b), "the check's standard output passes through unchanged and is the report")
			assert.Contains(t, stdout, `"Action":"fail"`)
		})
	}
}

func TestRunGoTestWithoutJSON(t *testing.T) {
	dir := tinyModule(t)
	tests := []struct {
		name string
		argv []string
		env  []string
	}{
		{name: "plain", argv: []string{"go", "test", "-count=1", "./..."}},
		{name: "-json=false wins over GOFLAGS", argv: []string{"go", "test", "-json=false", "-count=1", "./..."}, env: []string{"GOFLAGS=-json"}},
		{name: "-json after -args is the test binary's", argv: []string{"go", "test", "-count=1", ".", "-args", "-json"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, stdout := runGo(t, dir, goEnv(t, tt.env...), tt.argv)
			assert.Equal(t, 1, res.ExitCode)
			assert.Contains(t, stdout, "FAIL")
			assert.Nil(t, res.Run.Counts, "no report: no counts, never zero")
			assert.False(t, res.Run.Complete)
			assert.Equal(t, []string{ReasonGoTestNoReport}, res.Run.IncompleteReasons)
			assert.Equal(t, "no report found: go test writes none; use go test -json (read from its output) or gotestsum (GOTESTSUM_JUNITFILE)", ReasonGoTestNoReport)
			assert.NoFileExists(t, filepath.Join(res.Dir, GoTestReport))
		})
	}
}

func TestRunGoTestJSONModeOff(t *testing.T) {
	fake := fakeGo(t, []byte(smallStream))
	res, stdout := runGo(t, t.TempDir(), fakeEnv(fake), []string{"go", "test", "-json", "./..."}, WithMode(ModeOff))
	assert.Equal(t, smallStream, stdout)
	assert.Equal(t, []string{ReasonOff}, res.Run.IncompleteReasons)
	assert.NoFileExists(t, filepath.Join(res.Dir, GoTestReport), "reports off: nothing is kept")
}

const smallStream = `{"Action":"start","Package":"p"}
{"Action":"run","Package":"p","Test":"TestA"}
{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0}
{"Action":"pass","Package":"p","Elapsed":0.1}
`

// fakeGo writes a go command that prints stream and exits 0, in a folder
// of its own, and returns that folder.
func fakeGo(t *testing.T, stream []byte) string {
	t.Helper()
	bin := t.TempDir()
	file := filepath.Join(t.TempDir(), "stream")
	require.NoError(t, os.WriteFile(file, stream, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "go"), []byte("#!/bin/sh\nexec cat '"+file+"'\n"), 0o755))
	return bin
}

func fakeEnv(bin string) []string {
	return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + bin}
}

// bigStream is a go test -json stream whose first package ends with the
// byte goTestCaptureBytes; a second package, which fails, follows.
func bigStream(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	b.WriteString("{\"Action\":\"start\",\"Package\":\"p\"}\n{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n")
	end := "{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"TestA\",\"Elapsed\":0}\n{\"Action\":\"pass\",\"Package\":\"p\",\"Elapsed\":1}\n"
	line := func(n int) string { // an output event of n bytes, its newline included
		const head, tail = `{"Action":"output","Package":"p","Test":"TestA","Output":"`, "\\n\"}\n"
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	for b.Len()+len(end)+2*1000 < goTestCaptureBytes {
		b.WriteString(line(1000))
	}
	b.WriteString(line(goTestCaptureBytes - len(end) - b.Len()))
	b.WriteString(end)
	require.Equal(t, goTestCaptureBytes, b.Len())
	b.WriteString("{\"Action\":\"start\",\"Package\":\"q\"}\n{\"Action\":\"run\",\"Package\":\"q\",\"Test\":\"TestB\"}\n")
	b.WriteString("{\"Action\":\"fail\",\"Package\":\"q\",\"Test\":\"TestB\",\"Elapsed\":0}\n{\"Action\":\"fail\",\"Package\":\"q\",\"Elapsed\":1}\n")
	return b.Bytes()
}

func TestRunGoTestJSONOverLimit(t *testing.T) {
	stream := bigStream(t)
	fake := fakeGo(t, stream)
	dir := t.TempDir()

	// The whole stream, read as a file, is 2 tests; the check keeps one
	// byte more than a report may hold, so it is refused as too big.
	whole, err := report.Parse(bytes.NewReader(stream), "whole", report.WithMaxBytes(int64(2*len(stream))))
	require.NoError(t, err)
	assert.Equal(t, 2, *whole.Info.Tests)

	res, stdout := runGo(t, dir, fakeEnv(fake), []string{"go", "test", "-json", "./..."})
	assert.Equal(t, len(stream), len(stdout), "the standard output passes through whole")
	assert.True(t, stdout == string(stream), "the standard output passes through unchanged")
	kept := filepath.Join(res.Dir, GoTestReport)
	fi, err := os.Stat(kept)
	require.NoError(t, err)
	assert.EqualValues(t, report.DefaultMaxBytes+1, fi.Size())
	run := res.Run
	assert.Nil(t, run.Counts)
	assert.False(t, run.Complete)
	require.Len(t, run.Reports, 1)
	assert.Equal(t, fmt.Sprintf("bytes limit of %d exceeded", report.DefaultMaxBytes), run.Reports[0].Error)

	// With the report limit raised, the start kept reads as a whole
	// package: it must not pass for the stream.
	res, _ = runGo(t, dir, fakeEnv(fake), []string{"go", "test", "-json", "./..."},
		WithReportOptions(report.WithMaxBytes(64<<20)))
	run = res.Run
	kept = filepath.Join(res.Dir, GoTestReport)
	require.Len(t, run.Reports, 1)
	assert.Empty(t, run.Reports[0].Error)
	assert.False(t, run.Complete)
	assert.Contains(t, run.IncompleteReasons, fmt.Sprintf("%s: the go test -json output was longer than the %d bytes kept", kept, goTestCaptureBytes))
}

func TestRunGoTestJSONSmall(t *testing.T) {
	fake := fakeGo(t, []byte(smallStream))
	res, stdout := runGo(t, t.TempDir(), fakeEnv(fake), []string{"go", "test", "-json", "./..."}, WithMode(ModeCollect))
	assert.Equal(t, smallStream, stdout)
	require.NotNil(t, res.Run.Counts, "%v", res.Run.IncompleteReasons)
	assert.Equal(t, testrun.Counts{Total: 1, Passed: 1}, *res.Run.Counts)
	assert.True(t, res.Run.Complete, "%v", res.Run.IncompleteReasons)
	assert.Equal(t, testrun.OutcomePassed, res.Run.Cases["p::TestA"])

	// The folder of a run that kept go-test.json is an earlier run's: a
	// run again into it empties it and keeps its own.
	_, err := res.WriteResults()
	require.NoError(t, err)
	require.NoError(t, res.Close())
	var out bytes.Buffer
	again, err := Run(context.Background(), []string{"go", "test", "-json"}, WithDir(t.TempDir()), WithEnv(fakeEnv(fake)),
		WithStdio(nil, &out, nil), WithReportDir(res.Dir))
	require.NoError(t, err)
	assert.Equal(t, smallStream, out.String())
	require.NotNil(t, again.Run.Counts, "%v", again.Run.IncompleteReasons)
	assert.Equal(t, 1, again.Run.Counts.Total)
	assert.True(t, again.Run.Complete, "%v", again.Run.IncompleteReasons)
}

func TestGoTestDetection(t *testing.T) {
	tests := []struct {
		argv       []string
		goflags    string
		test, json bool
	}{
		{argv: []string{"go", "test", "./..."}, test: true},
		{argv: []string{"/usr/local/go/bin/go", "test", "-json", "./..."}, test: true, json: true},
		{argv: []string{"go", "test", "--json", "./..."}, test: true, json: true},
		{argv: []string{"go", "test", "-json=true", "./..."}, test: true, json: true},
		{argv: []string{"go", "test", "./...", "-json"}, test: true, json: true},
		{argv: []string{"go", "test", "-json", "-json=false"}, test: true},
		{argv: []string{"go", "test", "-json=maybe"}, test: true},
		{argv: []string{"go", "test", "-args", "-json"}, test: true},
		{argv: []string{"go", "test", "--args", "-json"}, test: true},
		{argv: []string{"go", "test", "./..."}, goflags: "-mod=mod -json", test: true, json: true},
		{argv: []string{"go", "test", "-json=0"}, goflags: "-json", test: true},
		{argv: []string{"go", "test", "---json"}, test: true},
		{argv: []string{"go", "test", "json"}, test: true},
		{argv: []string{"go", "vet", "-json"}},
		{argv: []string{"go"}},
		{argv: []string{"gotestsum", "test", "-json"}},
		{argv: []string{"./go-test", "test", "-json"}},
		{argv: []string{"sh", "-c", "go test -json ./..."}},
	}
	for _, tt := range tests {
		env := environ{"GOFLAGS=" + tt.goflags}
		test, json := goTest(tt.argv, env)
		assert.Equal(t, tt.test, test, "%q GOFLAGS=%q is go test", tt.argv, tt.goflags)
		assert.Equal(t, tt.json, json, "%q GOFLAGS=%q writes go test -json", tt.argv, tt.goflags)
	}
}
