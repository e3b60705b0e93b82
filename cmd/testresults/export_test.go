package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/internal/testpty"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

const (
	exportRun     = "../../testdata/export/run.json"
	exportBase    = "../../testdata/export/base.json"
	translateData = "../../translate/testdata"
)

// exportEnvKeys are the variables an export reads; tests start without them.
var exportEnvKeys = []string{
	"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "TRACEPARENT", "TRACESTATE",
	"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
	"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
	"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION",
	"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION",
}

func clearExportEnv(t *testing.T) {
	for _, k := range exportEnvKeys {
		t.Setenv(k, "")
		require.NoError(t, os.Unsetenv(k))
	}
}

// exportCmd runs "testresults export args..." in process with env as the
// variables Env.Getenv sees and stdin as its input.
func exportCmd(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), append([]string{"export"}, args...), Env{
		Stdin:   strings.NewReader(stdin),
		Stdout:  &out,
		Stderr:  &errb,
		Getenv:  func(k string) string { return env[k] },
		Environ: func() []string { return nil },
	})
	return code, out.String(), errb.String()
}

func loadRun(t testing.TB, path string) *testrun.Run {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var r testrun.Run
	require.NoError(t, json.Unmarshal(b, &r))
	return &r
}

func unmarshalLine(t testing.TB, line string) ptrace.Traces {
	t.Helper()
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces([]byte(line))
	require.NoError(t, err)
	return td
}

// pdataFace is what the pdata face of translate makes of spans, under the
// resource an export without OTEL_* variables has.
func pdataFace(t testing.TB, spans []translate.Span, err error) ptrace.Traces {
	t.Helper()
	require.NoError(t, err)
	res, err := exporter.NewResource(context.Background(), "", func(string) string { return "" })
	require.NoError(t, err)
	return translate.Traces(spans, res)
}

func TestExportHelp(t *testing.T) {
	code, out, _ := exportCmd(t, nil, "", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "Usage: testresults export")
	assert.Contains(t, out, "--otlp-endpoint")
}

func TestExportUsage(t *testing.T) {
	clearExportEnv(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no runs", nil, "no RUN.json given"},
		{"unknown flag", []string{"--nope", exportRun}, "unknown flag"},
		{"unknown format", []string{"--format", "zipkin", exportRun}, "--format"},
		{"output with otlp", []string{"--format", "otlp", "-o", "x.json", exportRun}, "-o is for --format otlp-json"},
		{"otlp flag with otel", []string{"--format", "otel", "--otlp-endpoint", "127.0.0.1:4317", exportRun}, "--otlp-endpoint is for sending (--format otlp), not for --format otel"},
		{"otlp flag with otlp-json", []string{"--format", "otlp-json", "--otlp-insecure", exportRun}, "--otlp-insecure is for sending (--format otlp), not for --format otlp-json"},
		{"protocol with a file", []string{"-o", "x.json", "--protocol", "grpc", exportRun}, "--protocol is for sending"},
		{"unknown protocol", []string{"--protocol", "http/json", exportRun}, `--protocol "http/json": want grpc or http/protobuf`},
		{"bad header", []string{"--otlp-header", "novalue", exportRun}, "--otlp-header"},
		{"empty header key", []string{"--otlp-header", "=v", exportRun}, "--otlp-header"},
		{"bad timeout", []string{"--otlp-timeout", "soon", exportRun}, "otlp-timeout"},
		{"zero timeout", []string{"--otlp-timeout", "0s", exportRun}, "--otlp-timeout"},
		{"bad compression", []string{"--otlp-compression", "zstd", exportRun}, "--otlp-compression"},
		{"bad cap", []string{"--max-case-events", "0", exportRun}, "--max-case-events"},
		{"bad parent", []string{"--parent", "00-xyz", exportRun}, "--parent"},
		{"bad case spans", []string{"--case-spans", "failing", exportRun}, `--case-spans "failing": want none, failed or all`},
		{"turn without session", []string{"--turn", "1", exportRun}, "--turn is for --session"},
		{"session without turn", []string{"--session", "s", exportRun}, "--session needs --turn"},
		{"session with job", []string{"--session", "s", "--job", "j", "--turn", "1", exportRun}, "--session cannot go with --job"},
		{"session with base", []string{"--session", "s", "--base", "--turn", "1", exportRun}, "--session cannot go with --job or --base"},
		{"bad turn", []string{"--session", "s", "--turn", "x", exportRun}, "--turn \"x\""},
		{"negative turn", []string{"--session", "s", "--turn", "-1", exportRun}, "--turn \"-1\""},
		{"two bare turns", []string{"--session", "s", "--turn", "1", "--turn", "2", exportRun}, "given twice"},
		{"bare turn without runs", []string{"--session", "s", "--turn", "1", "--turn", "2=" + exportRun}, "--turn 1 has no RUN.json"},
		{"runs without bare turn", []string{"--session", "s", "--turn", "2=" + exportRun, exportRun}, "need a --turn N"},
		{"turn without path", []string{"--session", "s", "--turn", "2="}, "no RUN.json"},
		{"stdin twice", []string{"-", "-"}, "stdin (-) given twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := exportCmd(t, nil, runWith(t, "", ""), tt.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, out)
			assert.Contains(t, stderr, tt.want)
			assert.Contains(t, stderr, "Usage: testresults export")
		})
	}
}

func TestExportRejectsInput(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  string
	}{
		{"missing file", []string{filepath.Join(dir, "absent.json")}, "", "no such file"},
		{"not JSON", []string{write("bad.json", "<testsuite/>")}, "", "bad.json"},
		{"two objects", []string{write("two.json", `{"id":"a"}{"id":"b"}`)}, "", "two.json"},
		{"no id", []string{write("noid.json", runWith(t, `"id": "run-e2e-1"`, `"id": null`))}, "", "the run has no id"},
		{"unknown kind", []string{write("kind.json", runWith(t, `"kind": "after_turn"`, `"kind": "nightly"`))}, "", "unknown kind"},
		{"counts that do not add up", []string{write("counts.json", runWith(t, `"total": 9`, `"total": 3`))}, "", "counts do not add up"},
		{"bad stdin", []string{"-"}, "nope", "-: "},
		{"bad base run", []string{"--base-run", write("base.json", "[]"), exportRun}, "", "base.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.json")
			code, _, stderr := exportCmd(t, nil, tt.stdin, append([]string{"-o", out}, tt.args...)...)
			assert.Equal(t, exitRejected, code, stderr)
			assert.Contains(t, stderr, tt.want)
			assert.NoFileExists(t, out, "nothing is written")
		})
	}
}

func TestExportEnvironmentErrors(t *testing.T) {
	clearExportEnv(t)
	out := filepath.Join(t.TempDir(), "out.json")
	code, _, stderr := exportCmd(t, map[string]string{"TRACEPARENT": "garbage"}, "", "-o", out, exportRun)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `TRACEPARENT "garbage" is not a W3C traceparent`)
	assert.NoFileExists(t, out)

	code, _, stderr = exportCmd(t, map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "no-equals"}, "", "-o", out, exportRun)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "OTEL_RESOURCE_ATTRIBUTES")
	assert.NoFileExists(t, out)
}

// TestExportOTelRoundTrip: what --format otel writes reads back into the
// traces the pdata face makes of the same runs.
func TestExportOTelRoundTrip(t *testing.T) {
	clearExportEnv(t)
	run := loadRun(t, exportRun)
	base := loadRun(t, exportBase)
	job := func(j translate.Job, runs ...*testrun.Run) ([]translate.Span, error) {
		return translate.JobSpans(j, runs, translate.WithBase(base))
	}
	t.Run("job to stdout", func(t *testing.T) {
		code, out, stderr := exportCmd(t, nil, "", "--format", "otel", "--job", "job-7", "--base-run", exportBase, exportRun)
		require.Equal(t, exitOK, code, stderr)
		require.Equal(t, 1, strings.Count(out, "\n"))
		spans, err := job(translate.Job{ID: "job-7"}, run)
		want := pdataFace(t, spans, err)
		got := unmarshalLine(t, out)
		require.NoError(t, ptracetest.CompareTraces(want, got))
	})
	t.Run("base run to a file", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "spans.json")
		code, out, stderr := exportCmd(t, nil, "", "-o", path, "--job", "job-7", "--base", exportBase)
		require.Equal(t, exitOK, code, stderr)
		assert.Empty(t, out)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		spans, err := translate.JobSpans(translate.Job{ID: "job-7", Provision: true}, []*testrun.Run{base})
		got := unmarshalLine(t, string(b))
		require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, err), got))
		assert.Equal(t, "job.provision", got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Name())
	})
	t.Run("run from stdin", func(t *testing.T) {
		b, err := os.ReadFile(exportRun)
		require.NoError(t, err)
		code, out, stderr := exportCmd(t, nil, string(b), "--format", "otel", "-")
		require.Equal(t, exitOK, code, stderr)
		spans, err := translate.JobSpans(translate.Job{}, []*testrun.Run{run})
		require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, err), unmarshalLine(t, out)))
	})
	t.Run("session turns", func(t *testing.T) {
		t1 := filepath.Join(translateData, "session", "turn1.json")
		t2a := filepath.Join(translateData, "session", "turn2a.json")
		t2b := filepath.Join(translateData, "session", "turn2b.json")
		code, out, stderr := exportCmd(t, nil, "", "--format", "otel", "--session", "sess-3",
			"--turn", "2="+t2a, "--turn", "1="+t1, "--turn", "2", t2b, exportRun)
		require.Equal(t, exitOK, code, stderr)
		spans, err := translate.SessionSpans(translate.Session{ID: "sess-3", Turns: []translate.Turn{
			{Number: 1, Runs: []*testrun.Run{loadRun(t, t1)}},
			{Number: 2, Runs: []*testrun.Run{loadRun(t, t2a), loadRun(t, t2b), run}},
		}})
		got := unmarshalLine(t, out)
		require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, err), got))
		assert.Equal(t, 3, got.SpanCount())
	})
	t.Run("the same export twice is the same bytes", func(t *testing.T) {
		_, first, _ := exportCmd(t, nil, "", "--format", "otel", "--job", "j", exportRun)
		_, second, _ := exportCmd(t, nil, "", "--format", "otel", "--job", "j", exportRun)
		assert.Equal(t, first, second)
	})
	t.Run("service name, cap and parent flags", func(t *testing.T) {
		const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		code, out, stderr := exportCmd(t, map[string]string{"TRACEPARENT": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, "",
			"--format", "otel", "--service-name", "ci-verify", "--max-case-events", "2", "--parent", parent, exportRun)
		require.Equal(t, exitOK, code, stderr)
		got := unmarshalLine(t, out)
		rs := got.ResourceSpans().At(0)
		assert.Equal(t, "ci-verify", rs.Resource().Attributes().AsRaw()["service.name"])
		span := rs.ScopeSpans().At(0).Spans().At(0)
		assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", span.TraceID().String())
		assert.Equal(t, "00f067aa0ba902b7", span.ParentSpanID().String())
		require.Equal(t, 3, span.Events().Len())
		omitted, ok := span.Events().At(0).Attributes().Get("hangar.test.case_events.omitted")
		require.True(t, ok)
		assert.Equal(t, int64(3), omitted.Int())
	})
}

func TestExportOutputFileReplaced(t *testing.T) {
	clearExportEnv(t)
	path := filepath.Join(t.TempDir(), "spans.json")
	require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o644))
	code, _, stderr := exportCmd(t, nil, "", "-o", path, exportRun)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(b), `{"resourceSpans":`))
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file left")

	code, _, stderr = exportCmd(t, nil, "", "-o", filepath.Join(t.TempDir(), "absent", "spans.json"), exportRun)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "write ")
}

// TestExportOutputSpecialFiles: -o writes a FIFO in place (its reader gets
// the spans; it stays a FIFO) and follows a symbolic link instead of
// replacing it.
func TestExportOutputSpecialFiles(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	t.Run("FIFO", func(t *testing.T) {
		fifo := filepath.Join(dir, "pipe")
		require.NoError(t, syscall.Mkfifo(fifo, 0o600))
		got := make(chan []byte, 1)
		go func() {
			b, err := os.ReadFile(fifo)
			if err != nil {
				b = []byte("read: " + err.Error())
			}
			got <- b
		}()
		done := make(chan int, 1)
		go func() {
			code, _, _ := exportCmd(t, nil, "", "--format", "otel", "-o", fifo, exportRun)
			done <- code
		}()
		select {
		case code := <-done:
			require.Equal(t, exitOK, code)
		case <-time.After(20 * time.Second):
			t.Fatal("the export did not end")
		}
		select {
		case b := <-got:
			unmarshalLine(t, strings.TrimSpace(string(b)))
		case <-time.After(10 * time.Second):
			t.Fatal("the reader got nothing")
		}
		fi, err := os.Lstat(fifo)
		require.NoError(t, err)
		assert.Equal(t, os.ModeNamedPipe, fi.Mode().Type(), "still a FIFO")
	})
	t.Run("symbolic link", func(t *testing.T) {
		target := filepath.Join(dir, "target.json")
		require.NoError(t, os.WriteFile(target, []byte("old\n"), 0o644))
		link := filepath.Join(dir, "link.json")
		require.NoError(t, os.Symlink(target, link))
		code, _, stderr := exportCmd(t, nil, "", "-o", link, exportRun)
		require.Equal(t, exitOK, code, stderr)
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.Equal(t, os.ModeSymlink, fi.Mode().Type(), "still a link")
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		unmarshalLine(t, strings.TrimSpace(string(b)))
	})
}

// TestExportFormatNames: otlp-json and its former name otel write the same
// bytes; -o alone implies otlp-json.
func TestExportFormatNames(t *testing.T) {
	clearExportEnv(t)
	var outs []string
	for _, args := range [][]string{
		{"--format", "otlp-json"},
		{"--format", "otel"},
		{"-o", "-"},
	} {
		code, out, stderr := exportCmd(t, nil, "", append(args, "--quiet", exportRun)...)
		require.Equal(t, exitOK, code, stderr)
		unmarshalLine(t, strings.TrimSpace(out))
		outs = append(outs, out)
	}
	assert.Equal(t, outs[0], outs[1])
	assert.Equal(t, outs[0], outs[2])
}

// TestExportSummaryLine: one line on stderr for people says how many runs
// and spans went where and the trace id, and that the trust flags are the
// collector's to set; --quiet silences it.
func TestExportSummaryLine(t *testing.T) {
	clearExportEnv(t)
	path := filepath.Join(t.TempDir(), "spans.json")
	t1 := filepath.Join(translateData, "session", "turn1.json")
	t2a := filepath.Join(translateData, "session", "turn2a.json")
	t2b := filepath.Join(translateData, "session", "turn2b.json")
	code, _, stderr := exportCmd(t, nil, "", "-o", path, "--session", "s-1", "--turn", "1="+t1, "--turn", "2="+t2a, "--turn", "2="+t2b)
	require.Equal(t, exitOK, code, stderr)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	td := unmarshalLine(t, strings.TrimSpace(string(b)))
	traceID := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).TraceID()
	assert.Equal(t, fmt.Sprintf("testresults export: exported 3 runs in 3 spans to %s (OTLP/JSON); trace %s (trusted/counted are recomputed by the collector)\n", path, traceID), stderr)

	code, _, stderr = exportCmd(t, nil, "", "--format", "otlp-json", exportRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^testresults export: exported 1 run in 1 span to stdout \(OTLP/JSON\); trace [0-9a-f]{32} \(trusted/counted are recomputed by the collector\)\n$`, stderr)

	for _, q := range []string{"--quiet", "-q"} {
		code, _, stderr = exportCmd(t, nil, "", q, "-o", path, exportRun)
		require.Equal(t, exitOK, code)
		assert.Empty(t, stderr)
	}
}

// TestExportColour: colour only on the terminal writer of a real terminal
// (a pseudo-terminal), never with NO_COLOR or TERM=dumb, never on a file,
// /dev/null or a buffer that is not the terminal writer.
func TestExportColour(t *testing.T) {
	master, slave, err := testpty.Open()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no pseudo-terminal here")
	}
	require.NoError(t, err)
	t.Cleanup(func() { master.Close(); slave.Close() })
	devnull, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	require.NoError(t, err)
	t.Cleanup(func() { devnull.Close() })
	file, err := os.Create(filepath.Join(t.TempDir(), "stderr"))
	require.NoError(t, err)
	t.Cleanup(func() { file.Close() })
	noColor := map[string]string{"NO_COLOR": "1"}
	dumb := map[string]string{"TERM": "dumb"}
	getenv := func(env map[string]string) func(string) string { return func(k string) string { return env[k] } }
	for _, tc := range []struct {
		name   string
		stderr io.Writer
		env    map[string]string
		want   bool
	}{
		{name: "pseudo-terminal", stderr: term.ForTerminal(slave, getenv(nil)), want: true},
		{name: "pseudo-terminal NO_COLOR", stderr: term.ForTerminal(slave, getenv(noColor)), env: noColor},
		{name: "pseudo-terminal NO_COLOR set later", stderr: term.ForTerminal(slave, getenv(nil)), env: noColor},
		{name: "pseudo-terminal TERM=dumb", stderr: term.ForTerminal(slave, getenv(dumb)), env: dumb},
		{name: "pseudo-terminal TERM=dumb set later", stderr: term.ForTerminal(slave, getenv(nil)), env: dumb},
		{name: "bare pseudo-terminal file", stderr: slave},
		{name: "bare /dev/null", stderr: devnull},
		{name: "/dev/null through the terminal writer: a character device, not a terminal", stderr: term.ForTerminal(devnull, getenv(nil))},
		{name: "regular file", stderr: term.ForTerminal(file, getenv(nil))},
		{name: "buffer", stderr: term.NewWriter(&bytes.Buffer{})},
		{name: "bare buffer", stderr: &bytes.Buffer{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, term.Paints(tc.stderr, getenv(tc.env)))
		})
	}
	id := trace.TraceID{1}
	r := exporter.Result{Runs: 2, Spans: 1, Destination: "OTLP/gRPC localhost:4317", TraceIDs: []trace.TraceID{id, {2}}}
	assert.Equal(t, "exported 2 runs in 1 span to OTLP/gRPC localhost:4317; traces "+
		id.String()+", 02000000000000000000000000000000 (trusted/counted are recomputed by the collector)", r.Summary(exporter.Options{}),
		"the line holds no colour codes: the terminal writer would show them escaped")
}

// TestExportSummaryColourOnTerminal: on a pseudo-terminal the summary's
// "exported" arrives in green, as codes the terminal acts on (not escaped
// text), and the line is otherwise the one printed without colour; with
// NO_COLOR it is that line exactly.
func TestExportSummaryColourOnTerminal(t *testing.T) {
	clearExportEnv(t)
	b, err := os.ReadFile(exportRun)
	require.NoError(t, err)
	args := []string{"export", "--format", "otlp-json", "--job", "j", "-"}
	onTerminal := func(env map[string]string) string {
		t.Helper()
		master, slave, err := testpty.Open()
		if errors.Is(err, errors.ErrUnsupported) {
			t.Skip("no pseudo-terminal here")
		}
		require.NoError(t, err)
		defer master.Close()
		getenv := func(k string) string { return env[k] }
		var out bytes.Buffer
		code := run(context.Background(), args, Env{
			Stdin:   bytes.NewReader(b),
			Stdout:  &out,
			Stderr:  term.ForTerminal(slave, getenv),
			Getenv:  getenv,
			Environ: func() []string { return nil },
		})
		require.NoError(t, slave.Close())
		got, err := testpty.ReadAll(master)
		require.NoError(t, err)
		require.Equal(t, exitOK, code, got)
		// The terminal shows a newline as CR LF.
		return strings.ReplaceAll(got, "\r\n", "\n")
	}
	code, _, plain := exportCmd(t, nil, string(b), args[1:]...)
	require.Equal(t, exitOK, code, plain)
	require.True(t, strings.HasPrefix(plain, "testresults export: exported "), plain)
	require.NotContains(t, plain, "\x1b")
	require.NotContains(t, plain, `\x1b`)

	coloured := onTerminal(nil)
	assert.Contains(t, coloured, "testresults export: \x1b[32mexported\x1b[0m ", "green codes, not escaped text")
	assert.NotContains(t, coloured, `\x1b`, "no code shown escaped")
	assert.Equal(t, plain, strings.Replace(strings.Replace(coloured, "\x1b[32m", "", 1), "\x1b[0m", "", 1))
	assert.Equal(t, plain, onTerminal(map[string]string{"NO_COLOR": "1"}))
}

// TestExportCaseSpans: a real pytest report, parsed and exported with
// --case-spans, gives one child span per kept case (or per failing and
// flaky case), each as long as the report says, and the same spans as
// translate gives.
func TestExportCaseSpans(t *testing.T) {
	clearExportEnv(t)
	report := "../../testdata/runners/pytest/reports/pytest-xunit2.xml"
	code, runJSON, stderr := runCmd(t, "parse", "-q", "--kind", "after_turn", report)
	require.Equal(t, exitOK, code, stderr)
	var r testrun.Run
	require.NoError(t, json.Unmarshal([]byte(runJSON), &r))
	require.NotEmpty(t, r.Durations, "pytest states each case's time")
	// parse does not time the run; with times, the export reads no clock.
	r.StartedAt = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(3 * time.Second)
	b, err := json.Marshal(r)
	require.NoError(t, err)
	runJSON = string(b)

	for _, mode := range []translate.CaseSpans{translate.CaseSpansNone, translate.CaseSpansFailed, translate.CaseSpansAll} {
		t.Run(mode.String(), func(t *testing.T) {
			code, out, stderr := exportCmd(t, nil, runJSON, "--format", "otlp-json", "--job", "j", "--case-spans", mode.String(), "-")
			require.Equal(t, exitOK, code, stderr)
			got := unmarshalLine(t, out)
			spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{&r}, translate.WithCaseSpans(mode))
			require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, err), got))
			want := 1
			switch mode {
			case translate.CaseSpansFailed:
				want += r.Counts.Failed + r.Counts.Errors + r.Counts.Flaky
			case translate.CaseSpansAll:
				want += len(r.Cases)
			}
			require.Equal(t, want, got.SpanCount())
			assert.Regexp(t, fmt.Sprintf(`exported 1 run in %d spans? `, want), stderr)
			ss := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
			for i := 1; i < ss.Len(); i++ {
				s := ss.At(i)
				name, _ := s.Attributes().Get("test.case.name")
				assert.Equal(t, name.Str(), s.Name())
				if d, ok := r.Durations[s.Name()]; ok {
					assert.Equal(t, d, s.EndTimestamp().AsTime().Sub(s.StartTimestamp().AsTime()), s.Name())
				}
			}
		})
	}
}

// TestExportEventsFile: --events log and both write the log records as
// ExportLogsServiceRequest lines after the span lines, equal to
// translate.Logs of the same runs; a bad --events is a usage error.
func TestExportEventsFile(t *testing.T) {
	clearExportEnv(t)
	run := loadRun(t, exportRun)
	for _, events := range []translate.Events{translate.EventsLog, translate.EventsBoth} {
		t.Run(events.String(), func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "out.json")
			code, _, stderr := exportCmd(t, nil, "", "-o", path, "--job", "job-ev", "--events", events.String(), exportRun)
			require.Equal(t, exitOK, code, stderr)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			lines := strings.Split(strings.TrimSpace(string(b)), "\n")
			require.Len(t, lines, 2)
			spans, err := translate.JobSpans(translate.Job{ID: "job-ev"}, []*testrun.Run{run}, translate.WithEvents(events))
			require.NoError(t, err)
			require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, nil), unmarshalLine(t, lines[0])))
			var u plog.JSONUnmarshaler
			got, err := u.UnmarshalLogs([]byte(lines[1]))
			require.NoError(t, err)
			want := translate.Logs(spans, testResource(t))
			require.NoError(t, plogtest.CompareLogs(want, got))
			assert.Contains(t, stderr, fmt.Sprintf("exported 1 run in 1 span and %d log records to %s (OTLP/JSON); trace", want.LogRecordCount(), path))
		})
	}
	t.Run("span is the default and writes no log line", func(t *testing.T) {
		code, out, stderr := exportCmd(t, nil, "", "--format", "otlp-json", "--events", "span", exportRun)
		require.Equal(t, exitOK, code, stderr)
		assert.Equal(t, 1, strings.Count(out, "\n"))
		assert.NotContains(t, stderr, "log record")
	})
	t.Run("bad value", func(t *testing.T) {
		code, _, stderr := exportCmd(t, nil, "", "--events", "logs", exportRun)
		assert.Equal(t, exitUsage, code)
		assert.Contains(t, stderr, `--events "logs": want span, log or both`)
		assert.Contains(t, stderr, "Usage: testresults export")
	})
}

// testResource is the resource an export without OTEL_* variables has.
func testResource(t *testing.T) *resource.Resource {
	t.Helper()
	res, err := exporter.NewResource(context.Background(), "", func(string) string { return "" })
	require.NoError(t, err)
	return res
}

// TestExportEventsNotCapped: with --events log, every failing test of a
// run gets a log record, beyond the span events' default cap, unless
// --max-case-events is given; the span events stay capped.
func TestExportEventsNotCapped(t *testing.T) {
	clearExportEnv(t)
	const n = translate.DefaultMaxCaseEvents + 500
	r := &testrun.Run{
		ID: "run-many", Kind: testrun.KindAfterTurn, Command: "go test ./...", Status: testrun.StatusFailure, Complete: true,
		EndedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Counts:  &testrun.Counts{Total: n, Failed: n},
		Cases:   make(map[string]testrun.Outcome, n),
	}
	for i := range n {
		r.Cases[fmt.Sprintf("pkg::Test%05d", i)] = testrun.OutcomeFailed
	}
	b, err := json.Marshal(r)
	require.NoError(t, err)
	runPath := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, os.WriteFile(runPath, b, 0o600))
	records := func(t *testing.T, args ...string) (spanEvents, logRecords int) {
		t.Helper()
		code, out, stderr := exportCmd(t, nil, "", append([]string{"--format", "otlp-json"}, append(args, runPath)...)...)
		require.Equal(t, exitOK, code, stderr)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 2)
		spanEvents = unmarshalLine(t, lines[0]).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().Len()
		var u plog.JSONUnmarshaler
		ld, err := u.UnmarshalLogs([]byte(lines[1]))
		require.NoError(t, err)
		return spanEvents, ld.LogRecordCount()
	}
	ev, recs := records(t, "--events", "both")
	assert.Equal(t, 1+translate.DefaultMaxCaseEvents, ev, "span events stop at the cap")
	assert.Equal(t, 1+n, recs, "a log record for every failing test")
	ev, recs = records(t, "--events", "both", "--max-case-events", "10")
	assert.Equal(t, 11, ev)
	assert.Equal(t, 11, recs, "a cap given bounds the records too")
}
