package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/semconv"
)

// TestParseExportOTel parses reports and writes their spans in one step;
// the run printed and the run exported are the same run.
func TestParseExportOTel(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	spans := filepath.Join(dir, "spans.json")

	code, out, stderr := runCmd(t, "parse", "--kind", "after_turn", "--export", "--job", "job-1", "-o", spans, report)
	require.Equal(t, exitOK, code, stderr)
	var printed map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &printed), "stdout holds the run alone")

	data, err := os.ReadFile(spans)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 1)
	td := unmarshalLine(t, lines[0])
	require.Equal(t, 1, td.SpanCount())
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assert.Equal(t, semconv.SpanJobVerify, span.Name())
	require.Equal(t, 2, span.Events().Len(), "one test.run and one test.case (the failure)")
	ev := span.Events().At(0)
	assert.Equal(t, semconv.EventTestRun, ev.Name())
	id, ok := ev.Attributes().Get(string(semconv.TestRunIDKey))
	require.True(t, ok)
	assert.Equal(t, printed["id"], id.Str())
	trusted, ok := ev.Attributes().Get(string(semconv.TestRunTrustedKey))
	require.True(t, ok)
	assert.True(t, trusted.Bool())
	assert.Equal(t, semconv.EventTestCase, span.Events().At(1).Name())
}

func TestParseExportSession(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	spans := filepath.Join(dir, "spans.json")
	code, _, stderr := runCmd(t, "parse", "--export", "--session", "s-1", "--turn", "3", "--format", "otel", "-o", spans, report)
	require.Equal(t, exitOK, code, stderr)
	data, err := os.ReadFile(spans)
	require.NoError(t, err)
	td := unmarshalLine(t, strings.TrimSpace(string(data)))
	names := map[string]int{}
	ss := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := range ss.Len() {
		names[ss.At(i).Name()]++
	}
	assert.Equal(t, map[string]int{semconv.SpanSession: 1, semconv.SpanTurn: 1}, names)
}

func TestParseExportUsage(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	for name, args := range map[string][]string{
		"export flag without --export": {"parse", "--job", "j", report},
		"output without --export":      {"parse", "-o", filepath.Join(dir, "x.json"), report},
		"otel to stdout":               {"parse", "--export", "--format", "otel", report},
		"session without turn":         {"parse", "--export", "--session", "s", "-o", filepath.Join(dir, "x.json"), report},
		"session with turn=file":       {"parse", "--export", "--session", "s", "--turn", "1=a.json", "-o", filepath.Join(dir, "x.json"), report},
		"bad format":                   {"parse", "--export", "--format", "zipkin", report},
	} {
		t.Run(name, func(t *testing.T) {
			code, out, stderr := runCmd(t, args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, out, "nothing is parsed on a usage error")
		})
	}
}

// TestParseExportFails: a failed export exits 1, after the run is printed.
func TestParseExportFails(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	report := writeReport(t, dir, "junit.xml", junitDoc)
	code, out, stderr := runCmd(t, "parse", "--export", "--otlp-endpoint", "127.0.0.1:1", "--otlp-insecure", "--otlp-timeout", "2s", report)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "export")
	var printed map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &printed))
}
