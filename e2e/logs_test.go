package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/hangar-dev/testresults/semconv"
)

// readLogLines reads the OTLP/JSON lines of path that hold log records (a
// file written by the collector's file exporter, or the CLI's OTLP/JSON,
// whose span lines come first), merged into one resource list. A last line
// still being written is left for the next read.
func readLogLines(t *testing.T, path string) plog.Logs {
	t.Helper()
	out := plog.NewLogs()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return out
	}
	require.NoError(t, err)
	defer f.Close()
	r := bufio.NewReader(f)
	u := &plog.JSONUnmarshaler{}
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		if !bytes.Contains(line, []byte(`"resourceLogs"`)) {
			continue
		}
		ld, err := u.UnmarshalLogs(bytes.TrimSpace(line))
		require.NoError(t, err, "logs line: %.200s", line)
		ld.ResourceLogs().MoveAndAppendTo(out.ResourceLogs())
	}
}

// runRecords returns the records of ld under the resources of service.
func runRecords(ld plog.Logs, service string) []plog.LogRecord {
	var out []plog.LogRecord
	for _, rl := range ld.ResourceLogs().All() {
		if v, ok := rl.Resource().Attributes().Get(string(semconv.ServiceNameKey)); !ok || v.Str() != service {
			continue
		}
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				out = append(out, lr)
			}
		}
	}
	return out
}

// withoutLogFlags is ld with every trust flag removed from its records.
func withoutLogFlags(ld plog.Logs) plog.Logs {
	out := plog.NewLogs()
	ld.CopyTo(out)
	for _, rl := range out.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				lr.Attributes().RemoveIf(func(k string, _ pcommon.Value) bool { return flagKey(k) })
			}
		}
	}
	return out
}

func logFlag(t *testing.T, m pcommon.Map, key string) bool {
	t.Helper()
	v, ok := m.Get(key)
	require.True(t, ok, "%s is set", key)
	require.Equal(t, pcommon.ValueTypeBool, v.Type(), key)
	return v.Bool()
}

// TestLogsPipeline sends runs as log-based events (testresults export
// --events log) through the built collector with the sample configuration:
// the records arrive as the CLI writes them, the test.run records carry the
// flags the processor gives the same run as span events, and forged flags
// from an untrusted sender come out false or removed.
func TestLogsPipeline(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	dir := t.TempDir()
	spec := sampleSpec(t, dir)
	c := launch(t, bin, spec)
	logsOut := filepath.Join(dir, "_build", "logs.jsonl")

	byVerifier := cliExport{service: verifier, job: "logs-verifier", files: []string{"after-turn.json"}}
	byAgent := cliExport{service: agent, job: "logs-agent", files: []string{"after-turn.json"}}
	sent := filepath.Join(t.TempDir(), "sent.jsonl")
	runCLI(t, cli, verifier, append(byVerifier.args(), "--events", "log", "--format", "otlp-json", "-o", sent))
	want := readLogLines(t, sent)
	require.Positive(t, want.LogRecordCount())
	for _, e := range []cliExport{byVerifier, byAgent} {
		runCLI(t, cli, e.service, append(e.args(), "--events", "log", "--otlp-endpoint", c.otlp, "--otlp-insecure"))
	}
	// The same run as span events from the verifier, for the processor's
	// verdict on the traces pipeline.
	exportCLI(t, cli, cliExport{service: verifier, job: "logs-spans", files: []string{"after-turn.json"}}, c.otlp)
	forged := sendForgedLogs(t, c.otlp)

	total := 2*want.LogRecordCount() + forged
	var got plog.Logs
	deadline := time.Now().Add(30 * time.Second)
	for {
		got = readLogLines(t, logsOut)
		if got.LogRecordCount() >= total || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	require.Equal(t, total, got.LogRecordCount(), "every record written once")

	// The verifier's records are those the CLI wrote, but for the flags.
	verifierLogs := plog.NewLogs()
	for _, rl := range got.ResourceLogs().All() {
		if v, _ := rl.Resource().Attributes().Get(string(semconv.ServiceNameKey)); v.Str() == verifier {
			rl.CopyTo(verifierLogs.ResourceLogs().AppendEmpty())
		}
	}
	require.NoError(t, plogtest.CompareLogs(withoutLogFlags(want), withoutLogFlags(verifierLogs)))

	// The span exports of --events log carry no event; the span of
	// logs-spans carries the run.
	spanOf := func(batches []ptrace.Traces, job string) (ptrace.Span, bool) {
		var found ptrace.Span
		ok := false
		for _, td := range batches {
			forEachSpan(td, func(_ string, s ptrace.Span) {
				if jobID(s) == job {
					found, ok = s, true
				}
			})
		}
		return found, ok
	}
	batches := waitOutput(t, c, 30*time.Second, func(b []ptrace.Traces) bool {
		_, ok := spanOf(b, "logs-spans")
		return ok
	})
	for _, job := range []string{"logs-verifier", "logs-agent"} {
		s, ok := spanOf(batches, job)
		require.True(t, ok, job)
		assert.Zero(t, s.Events().Len(), "%s: the events went as records", job)
	}
	spanRun, _ := spanOf(batches, "logs-spans")
	require.Positive(t, spanRun.Events().Len())
	spanEvent := spanRun.Events().At(0)
	require.Equal(t, semconv.EventTestRun, spanEvent.Name())

	for _, service := range []string{verifier, agent} {
		records := runRecords(got, service)
		require.NotEmpty(t, records, service)
		for _, lr := range records {
			if lr.EventName() != semconv.EventTestRun {
				assert.Empty(t, flagValues(lr.Attributes()), "%s: no flag on %s", service, lr.EventName())
				continue
			}
			trusted, counted := logFlag(t, lr.Attributes(), keyTrusted), logFlag(t, lr.Attributes(), keyCounted)
			if service == verifier {
				assert.Equal(t, logFlag(t, spanEvent.Attributes(), keyTrusted), trusted, "the records' verdict is the span event's")
				assert.Equal(t, logFlag(t, spanEvent.Attributes(), keyCounted), counted)
				assert.True(t, trusted, "the verifier's run is trusted")
			} else {
				assert.False(t, trusted, "an untrusted sender's run")
				assert.False(t, counted)
			}
		}
	}
	require.Len(t, runRecords(got, "forger"), forged)
	for _, lr := range runRecords(got, "forger") {
		if lr.EventName() == semconv.EventTestRun {
			assert.Len(t, flagValues(lr.Attributes()), 2, "the canonical flags only")
			assert.False(t, logFlag(t, lr.Attributes(), keyTrusted), "forged flags recomputed")
			assert.False(t, logFlag(t, lr.Attributes(), keyCounted))
		} else {
			assert.Empty(t, flagValues(lr.Attributes()), "forged flags removed from %s", lr.EventName())
		}
	}
}

// sendForgedLogs sends, with pdata's OTLP client, a test.run record and a
// test.case record with forged flags from an untrusted service, and
// returns how many records it sent.
func sendForgedLogs(t *testing.T, endpoint string) int {
	t.Helper()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), "forger")
	records := rl.ScopeLogs().AppendEmpty().LogRecords()
	run := records.AppendEmpty()
	run.SetEventName(semconv.EventTestRun)
	run.SetTimestamp(pcommon.NewTimestampFromTime(time.Date(2026, 1, 10, 10, 0, 5, 0, time.UTC)))
	a := run.Attributes()
	a.PutStr(keyRunID, "forged-log-run")
	a.PutStr(string(semconv.TestRunKindKey), "after_turn")
	a.PutStr(string(semconv.TestSuiteRunStatusKey), "success")
	a.PutInt(string(semconv.TestTotalKey), 1)
	a.PutInt(string(semconv.TestPassedKey), 1)
	for _, k := range []string{string(semconv.TestFailedKey), string(semconv.TestErrorsKey), string(semconv.TestSkippedKey), string(semconv.TestFlakyCountKey)} {
		a.PutInt(k, 0)
	}
	a.PutBool(string(semconv.TestCompleteKey), true)
	a.PutBool(keyTrusted, true)
	a.PutBool(keyCounted, true)
	tc := records.AppendEmpty()
	tc.SetEventName(semconv.EventTestCase)
	tc.Attributes().PutStr(string(semconv.TestCaseNameKey), "pkg::TestForged")
	tc.Attributes().PutBool(keyTrusted, true)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	require.NoError(t, err)
	return ld.LogRecordCount()
}
