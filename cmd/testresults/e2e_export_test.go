package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/internal/testotlp"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// e2eReceiver is the collector's OTLP receiver (gRPC on 127.0.0.1, request
// metadata kept) feeding a sink.
type e2eReceiver struct {
	addr string
	sink *consumertest.TracesSink
}

func startE2EReceiver(t *testing.T) *e2eReceiver {
	t.Helper()
	addr := testnet.FreeAddr(t)
	return startE2EReceiverAt(t, addr)
}

// startE2EReceiverAt starts the receiver of startE2EReceiver on addr.
func startE2EReceiverAt(t *testing.T, addr string) *e2eReceiver {
	t.Helper()
	sink := new(consumertest.TracesSink)
	testotlp.Start(t, testotlp.Options{Addr: addr, IncludeMetadata: true}, sink)
	return &e2eReceiver{addr: addr, sink: sink}
}

// wait returns the requests received once they hold n spans (at most 20 s).
func (r *e2eReceiver) wait(t *testing.T, n int) []ptrace.Traces {
	t.Helper()
	require.Eventually(t, func() bool { return r.sink.SpanCount() >= n }, 20*time.Second, 10*time.Millisecond)
	return r.sink.AllTraces()
}

// testresultsBinary builds the command into the test's temporary folder
// (the build cache makes every build after the first a link).
func testresultsBinary(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the testresults binary; skipped with -short")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go tool to build the binary with")
	}
	bin := filepath.Join(t.TempDir(), "testresults")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// runBinary runs the built command with a clean OTel environment plus env.
func runBinary(t *testing.T, bin string, env []string, args ...string) (int, string, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "OTEL_") || k == "TRACEPARENT" || k == "TRACESTATE" {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if err != nil {
		ee, ok := err.(*exec.ExitError)
		require.True(t, ok, "%v", err)
		code = ee.ExitCode()
	}
	return code, out.String(), errb.String()
}

// attrs returns a pdata map as plain values.
func attrs(m pcommon.Map) map[string]any { return m.AsRaw() }

// TestE2EExportEveryAttribute sends the full run (failures, flaky tests,
// errors, coverage, a base) with the real binary to the collector's OTLP
// receiver and checks every attribute of the hangar.trace/v1 tables, literally.
func TestE2EExportEveryAttribute(t *testing.T) {
	bin := testresultsBinary(t)
	r := startE2EReceiver(t)
	code, out, stderr := runBinary(t, bin, []string{
		"OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=ci",
		"OTEL_EXPORTER_OTLP_HEADERS=x-tenant=hangar",
	},
		"export", "--otlp-endpoint", r.addr, "--otlp-insecure", "--otlp-timeout", "10s",
		"--job", "job-e2e", "--base-run", exportBase, exportRun)
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, out)
	got := r.wait(t, 1)
	require.Len(t, got, 1)
	require.Equal(t, 1, got[0].SpanCount())
	assert.Equal(t, []string{"hangar"}, client.FromContext(r.sink.Contexts()[0]).Metadata.Get("x-tenant"))

	rs := got[0].ResourceSpans().At(0)
	res := attrs(rs.Resource().Attributes())
	assert.Equal(t, "testresults", res["service.name"])
	assert.Equal(t, "ci", res["deployment.environment.name"])
	ss := rs.ScopeSpans().At(0)
	assert.Equal(t, translate.ScopeName, ss.Scope().Name())

	span := ss.Spans().At(0)
	assert.Equal(t, "job.verify", span.Name())
	assert.Equal(t, ptrace.SpanKindInternal, span.Kind())
	assert.Equal(t, map[string]any{
		"hangar.job.id": "job-e2e", "test.suite.name": "pytest -q --cov=app tests",
		"hangar.test.total": int64(9), "hangar.test.passed": int64(4), "hangar.test.failed": int64(3),
		"hangar.test.errors": int64(1), "hangar.test.skipped": int64(1), "hangar.test.flaky": int64(2),
		"hangar.test.complete": true,
		"hangar.test.failed_ids": []any{"tests/test_orders.py::test_total", "tests/test_orders.py::test_refund",
			"tests/test_db.py::test_connect", "tests/test_cart.py::test_add_item"},
	}, attrs(span.Attributes()))
	assert.True(t, span.ParentSpanID().IsEmpty())
	assert.False(t, span.TraceID().IsEmpty())
	assert.False(t, span.SpanID().IsEmpty())
	started := time.Date(2025, 11, 12, 14, 0, 0, 0, time.UTC)
	ended := time.Date(2025, 11, 12, 14, 1, 15, 250_000_000, time.UTC)
	assert.Equal(t, started, span.StartTimestamp().AsTime())
	// The span ends at its last event, 1us per test.case event after the run's end.
	assert.Equal(t, ended.Add(5*time.Microsecond), span.EndTimestamp().AsTime())
	assert.Zero(t, span.DroppedEventsCount())
	assert.Equal(t, ptrace.StatusCodeError, span.Status().Code())
	assert.Equal(t, "3 failed, 1 error of 9", span.Status().Message())

	events := span.Events()
	require.Equal(t, 6, events.Len(), "one test.run and five test.case events")
	for i := range events.Len() {
		assert.Equal(t, ended.Add(time.Duration(i)*time.Microsecond), events.At(i).Timestamp().AsTime(), "test.run at the run's end, then 1us apart")
		assert.Zero(t, events.At(i).DroppedAttributesCount())
	}
	assert.Equal(t, "test.run", events.At(0).Name())
	assert.Equal(t, map[string]any{
		"test.suite.name":                "pytest -q --cov=app tests",
		"test.suite.run.status":          "failure",
		"hangar.test.total":              int64(9),
		"hangar.test.passed":             int64(4),
		"hangar.test.failed":             int64(3),
		"hangar.test.errors":             int64(1),
		"hangar.test.skipped":            int64(1),
		"hangar.test.flaky":              int64(2),
		"hangar.test.complete":           true,
		"hangar.test.coverage.line_rate": 0.734,
		"hangar.test.run.id":             "run-e2e-1",
		"hangar.test.run.kind":           "after_turn",
		"hangar.test.exit_code":          int64(1),
		"hangar.test.run.trusted":        true,
		"hangar.test.run.counted":        true,
		"vcs.ref.head.revision":          "3f9d2c1b0a8e7d6c5b4a39281706f5e4d3c2b1a0",
		"hangar.run.id":                  "agent-run-1",
	}, attrs(events.At(0).Attributes()))

	wantCases := []map[string]any{
		{
			"test.case.name": "tests/test_orders.py::test_total", "test.case.result.status": "fail",
			"hangar.test.outcome": "failed", "hangar.test.flaky": false, "hangar.test.new_failure": false,
			"hangar.test.message": "AssertionError: assert 41.99 == 42.0",
		},
		{
			"test.case.name": "tests/test_orders.py::test_refund", "test.case.result.status": "fail",
			"hangar.test.outcome": "failed", "hangar.test.flaky": true, "hangar.test.new_failure": true,
			"hangar.test.message": "TimeoutError: refund service did not answer in 5s",
		},
		{
			"test.case.name": "tests/test_db.py::test_connect", "test.case.result.status": "fail",
			"hangar.test.outcome": "error", "hangar.test.flaky": false, "hangar.test.new_failure": true,
			"hangar.test.message": "fixture 'db' raised: OperationalError: could not connect (password=[REDACTED])",
		},
		{
			"test.case.name": "tests/test_cart.py::test_add_item", "test.case.result.status": "fail",
			"hangar.test.outcome": "failed", "hangar.test.flaky": false, "hangar.test.new_failure": true,
		},
		{
			"test.case.name": "tests/test_cart.py::test_checkout", "test.case.result.status": "pass",
			"hangar.test.flaky": true, "hangar.test.new_failure": false,
		},
	}
	for i, want := range wantCases {
		ev := events.At(i + 1)
		assert.Equal(t, "test.case", ev.Name())
		assert.Equal(t, want, attrs(ev.Attributes()), "test.case %d", i)
	}

	// The same run written to a file by the same binary is the same trace,
	// ids included: exports are replayable.
	code, line, stderr := runBinary(t, bin, []string{
		"OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=ci",
	}, "export", "--format", "otel", "--job", "job-e2e", "--base-run", exportBase, exportRun)
	require.Equal(t, exitOK, code, stderr)
	require.NoError(t, ptracetest.CompareTraces(unmarshalLine(t, line), got[0]))
}

// TestE2EExportCapped sends a run with 5,000 failing tests: 1,000
// test.case events, 4,000 counted as omitted, one request under 4 MiB.
func TestE2EExportCapped(t *testing.T) {
	bin := testresultsBinary(t)
	const n = 5000
	run := &testrun.Run{
		ID: "run-5000", Kind: testrun.KindAfterTurn, Command: "go test ./...", Status: testrun.StatusFailure,
		Complete: true, StartedAt: time.Date(2025, 11, 12, 15, 0, 0, 0, time.UTC), EndedAt: time.Date(2025, 11, 12, 15, 9, 0, 0, time.UTC),
		Counts: &testrun.Counts{Total: n, Failed: n}, Cases: make(map[string]testrun.Outcome, n),
	}
	for i := range n {
		id := fmt.Sprintf("github.com/acme/shop/internal/pkg%03d::TestCase%05d", i%97, i)
		run.Cases[id] = testrun.OutcomeFailed
		if i < testrun.DefaultMaxFailures {
			run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed,
				Message: strings.Repeat("expected response body to match the golden file; diff follows. ", 40)[:testrun.DefaultMaxMessageRunes]})
		}
	}
	b, err := json.Marshal(run)
	require.NoError(t, err)
	path := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, os.WriteFile(path, b, 0o644))

	r := startE2EReceiver(t)
	code, _, stderr := runBinary(t, bin, []string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://" + r.addr}, "export", "--job", "job-5000", path)
	require.Equal(t, exitOK, code, stderr)
	got := r.wait(t, 1)
	require.Len(t, got, 1, "one request")
	size, err := ptraceotlp.NewExportRequestFromTraces(got[0]).MarshalProto()
	require.NoError(t, err)
	t.Logf("request for %d failing tests: %d bytes (%.2f MiB)", n, len(size), float64(len(size))/(1<<20))
	assert.Less(t, len(size), 4<<20)

	span := got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	require.Equal(t, 1+translate.DefaultMaxCaseEvents, span.Events().Len())
	assert.Zero(t, span.DroppedEventsCount())
	runEvent := attrs(span.Events().At(0).Attributes())
	assert.Equal(t, int64(4000), runEvent["hangar.test.case_events.omitted"])
	assert.Equal(t, int64(n), runEvent["hangar.test.failed"])
	messages := 0
	for i := 1; i < span.Events().Len(); i++ {
		ev := attrs(span.Events().At(i).Attributes())
		assert.Equal(t, "fail", ev["test.case.result.status"])
		if m, ok := ev["hangar.test.message"]; ok {
			messages++
			assert.Len(t, []rune(m.(string)), translate.MaxEventMessageRunes)
		}
	}
	assert.Equal(t, testrun.DefaultMaxFailures, messages, "messages only for the failures the run kept")
}

// TestE2EExportSessionInProcess runs the command in process against the
// receiver, with the OTLP settings from the environment and a parent.
func TestE2EExportSessionInProcess(t *testing.T) {
	clearExportEnv(t)
	// The process environment would send elsewhere: only the injected
	// environment counts.
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:1")
	t.Setenv("OTEL_SERVICE_NAME", "process")
	r := startE2EReceiver(t)
	t1 := filepath.Join(translateData, "session", "turn1.json")
	t2 := filepath.Join(translateData, "session", "turn2a.json")
	code, _, stderr := exportCmd(t, map[string]string{
		"TRACEPARENT":                    "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
		"OTEL_EXPORTER_OTLP_ENDPOINT":    "http://" + r.addr,
		"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
		"OTEL_SERVICE_NAME":              "harness",
	}, "",
		"--session", "sess-e2e", "--turn", "1="+t1, "--turn", "2="+t2, "--otlp-compression", "none")
	require.Equal(t, exitOK, code, stderr)
	got := r.wait(t, 3)
	require.Len(t, got, 1)
	rs := got[0].ResourceSpans().At(0)
	assert.Equal(t, "harness", rs.Resource().Attributes().AsRaw()["service.name"])
	spans := rs.ScopeSpans().At(0).Spans()
	require.Equal(t, 3, spans.Len())
	session, turn1, turn2 := spans.At(0), spans.At(1), spans.At(2)
	assert.Equal(t, "session", session.Name())
	assert.Equal(t, "00f067aa0ba902b7", session.ParentSpanID().String())
	for _, s := range []ptrace.Span{session, turn1, turn2} {
		assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", s.TraceID().String())
	}
	assert.Equal(t, session.SpanID(), turn1.ParentSpanID())
	assert.Equal(t, session.SpanID(), turn2.ParentSpanID())
	assert.Equal(t, "sess-e2e", attrs(turn1.Attributes())["hangar.session.id"])
	assert.Equal(t, int64(1), attrs(turn1.Attributes())["hangar.session.turn"])
	assert.Equal(t, "sess-e2e", attrs(turn2.Attributes())["hangar.session.id"])
	assert.Equal(t, int64(2), attrs(turn2.Attributes())["hangar.session.turn"])
	assert.Equal(t, ptrace.StatusCodeUnset, turn1.Status().Code(), "turn 1 passed")
	assert.Equal(t, ptrace.StatusCodeError, turn2.Status().Code(), "turn 2 failed")
	assert.NotContains(t, attrs(session.Attributes()), "hangar.test.total", "the session span carries no run")
	assert.Equal(t, "run-s-1", attrs(turn1.Events().At(0).Attributes())["hangar.test.run.id"])
	assert.Equal(t, "run-s-2a", attrs(turn2.Events().At(0).Attributes())["hangar.test.run.id"])
}

// TestE2EExportFails: nothing listens, the export fails with exit 1 and a
// reason, within its timeout.
func TestE2EExportFails(t *testing.T) {
	bin := testresultsBinary(t)
	addr := testnet.FreeAddr(t)
	start := time.Now()
	code, _, stderr := runBinary(t, bin, nil, "export", "--otlp-endpoint", addr, "--otlp-insecure", "--otlp-timeout", "1s", exportRun)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "testresults export: exporter: nothing delivered (1 span, 1 run): OTLP/gRPC "+addr+": not delivered within 1s")
	assert.Less(t, time.Since(start), 30*time.Second)
}

// TestE2EExportNothingListensThenResend: with nothing listening the export
// fails (exit 1, a clear reason) and leaves the run file as it was; once a
// receiver is up the same export delivers, and sending it again gives the
// same trace and span ids, so a resend is an exact duplicate.
func TestE2EExportNothingListensThenResend(t *testing.T) {
	clearExportEnv(t)
	dir := t.TempDir()
	runFile := filepath.Join(dir, "run.json")
	orig, err := os.ReadFile(exportRun)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(runFile, orig, 0o644))
	before, err := os.Stat(runFile)
	require.NoError(t, err)

	addr := testnet.FreeAddr(t)
	args := []string{"--otlp-endpoint", addr, "--otlp-insecure", "--otlp-timeout", "1s", "--job", "job-resend", runFile}
	start := time.Now()
	code, _, stderr := exportCmd(t, nil, "", args...)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "nothing delivered (1 span, 1 run): OTLP/gRPC "+addr+": not delivered within 1s")
	assert.Contains(t, stderr, "connection refused")
	assert.Contains(t, stderr, "is the collector running")
	assert.Less(t, time.Since(start), 5*time.Second)
	after, err := os.Stat(runFile)
	require.NoError(t, err)
	b, err := os.ReadFile(runFile)
	require.NoError(t, err)
	assert.Equal(t, orig, b, "the run file is untouched")
	assert.Equal(t, before.ModTime(), after.ModTime())

	r := startE2EReceiverAt(t, addr)
	for range 2 {
		code, _, stderr = exportCmd(t, nil, "", args...)
		require.Equal(t, exitOK, code, stderr)
	}
	got := r.wait(t, 2)
	require.Len(t, got, 2)
	first := got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	again := got[1].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assert.Equal(t, first.TraceID(), again.TraceID())
	assert.Equal(t, first.SpanID(), again.SpanID())
	require.NoError(t, ptracetest.CompareTraces(got[0], got[1]))
}

// startE2EHTTPReceiver starts the collector's OTLP receiver, HTTP only, on
// 127.0.0.1 with request metadata kept, feeding a sink.
func startE2EHTTPReceiver(t *testing.T) *e2eReceiver {
	t.Helper()
	sink := new(consumertest.TracesSink)
	addr := testotlp.Start(t, testotlp.Options{Protocol: testotlp.HTTP, IncludeMetadata: true}, sink)
	return &e2eReceiver{addr: addr, sink: sink}
}

// TestE2EExportOverHTTP: --protocol http/protobuf, and the standard
// variables that choose it, deliver to the collector's OTLP/HTTP receiver;
// the line on stderr says what went where.
func TestE2EExportOverHTTP(t *testing.T) {
	for _, tc := range []struct {
		name string
		env  func(addr string) map[string]string
		args func(addr string) []string
	}{
		{name: "flags", args: func(addr string) []string {
			return []string{"--protocol", "http/protobuf", "--otlp-endpoint", addr, "--otlp-insecure"}
		}},
		{name: "OTEL_EXPORTER_OTLP_PROTOCOL with a base endpoint", env: func(addr string) map[string]string {
			return map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://" + addr}
		}},
		{name: "the traces variables win", env: func(addr string) map[string]string {
			return map[string]string{
				"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/protobuf",
				"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1",
				"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://" + addr + "/v1/traces",
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clearExportEnv(t)
			r := startE2EHTTPReceiver(t)
			var env map[string]string
			if tc.env != nil {
				env = tc.env(r.addr)
			}
			var args []string
			if tc.args != nil {
				args = tc.args(r.addr)
			}
			code, _, stderr := exportCmd(t, env, "", append(args, "--job", "job-http", exportRun)...)
			require.Equal(t, exitOK, code, stderr)
			got := r.wait(t, 1)
			span := got[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			assert.Equal(t, "job.verify", span.Name())
			assert.Equal(t, fmt.Sprintf("testresults export: exported 1 run in 1 span to OTLP/HTTP http://%s/v1/traces; trace %s (trusted/counted are recomputed by the collector)\n",
				r.addr, span.TraceID()), stderr)
		})
	}
}

// TestE2EVersionAndPermanentError: the built binary answers --version, and
// an export with TLS to a plaintext receiver fails at once with exit 1 and
// the hint, not after its timeout.
func TestE2EVersionAndPermanentError(t *testing.T) {
	bin := testresultsBinary(t)
	code, out, stderr := runBinary(t, bin, nil, "--version")
	require.Equal(t, exitOK, code, stderr)
	assert.Regexp(t, `^testresults \S+( \(.*\))? go\S+\n$`, out)

	r := startE2EReceiver(t)
	start := time.Now()
	code, _, stderr = runBinary(t, bin, nil, "export", "--otlp-endpoint", r.addr, "--otlp-timeout", "10s", exportRun)
	elapsed := time.Since(start)
	assert.Equal(t, exitFailed, code)
	assert.Contains(t, stderr, "refused the request (not retried)")
	assert.Contains(t, stderr, "add --otlp-insecure")
	assert.Less(t, elapsed, 5*time.Second, "not retried for the 10 s timeout")
	t.Logf("TLS to a plaintext receiver: exit %d after %s", code, elapsed)
}

// signalReceiver is the collector's OTLP receiver on 127.0.0.1 taking
// traces and logs on one port, over gRPC or HTTP.
type signalReceiver struct {
	addr   string
	traces *consumertest.TracesSink
	logs   *consumertest.LogsSink
}

func startSignalReceiver(t *testing.T, http bool) *signalReceiver {
	t.Helper()
	r := &signalReceiver{addr: testnet.FreeAddr(t), traces: new(consumertest.TracesSink), logs: new(consumertest.LogsSink)}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	if http {
		cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = r.addr
	} else {
		cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = r.addr
	}
	set := receivertest.NewNopSettings(f.Type())
	// One configuration gives one receiver serving both signals.
	tr, err := f.CreateTraces(context.Background(), set, cfg, r.traces)
	require.NoError(t, err)
	lr, err := f.CreateLogs(context.Background(), set, cfg, r.logs)
	require.NoError(t, err)
	require.NoError(t, tr.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, lr.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() {
		require.NoError(t, lr.Shutdown(context.Background()))
		require.NoError(t, tr.Shutdown(context.Background()))
	})
	return r
}

// TestE2EExportEvents: export --events log and both deliver the log
// records to a real OTLP receiver over gRPC and HTTP (/v1/logs), equal to
// translate.Logs of the same run, after the spans, and the summary counts
// them; with log the spans carry no event.
func TestE2EExportEvents(t *testing.T) {
	run := loadRun(t, exportRun)
	for _, proto := range []string{"grpc", "http/protobuf"} {
		for _, events := range []translate.Events{translate.EventsLog, translate.EventsBoth} {
			t.Run(proto+"/"+events.String(), func(t *testing.T) {
				clearExportEnv(t)
				rcv := startSignalReceiver(t, proto == "http/protobuf")
				code, _, stderr := exportCmd(t, nil, "", "--protocol", proto, "--otlp-endpoint", rcv.addr, "--otlp-insecure",
					"--job", "job-ev", "--events", events.String(), exportRun)
				require.Equal(t, exitOK, code, stderr)
				spans, err := translate.JobSpans(translate.Job{ID: "job-ev"}, []*testrun.Run{run}, translate.WithEvents(events))
				require.NoError(t, err)
				want := translate.Logs(spans, testResource(t))
				n := want.LogRecordCount()
				require.Eventually(t, func() bool { return rcv.logs.LogRecordCount() >= n }, 20*time.Second, 10*time.Millisecond)
				all := rcv.logs.AllLogs()
				require.Len(t, all, 1)
				require.NoError(t, plogtest.CompareLogs(want, all[0]))
				require.Eventually(t, func() bool { return rcv.traces.SpanCount() >= 1 }, 20*time.Second, 10*time.Millisecond)
				require.NoError(t, ptracetest.CompareTraces(pdataFace(t, spans, nil), rcv.traces.AllTraces()[0]))
				summary := fmt.Sprintf("exported 1 run in 1 span and %d log records to OTLP/gRPC %s;", n, rcv.addr)
				if proto == "http/protobuf" {
					summary = fmt.Sprintf("exported 1 run in 1 span and %d log records to OTLP/HTTP http://%s/v1/traces (log records to OTLP/HTTP http://%s/v1/logs);", n, rcv.addr, rcv.addr)
				}
				assert.Contains(t, stderr, summary)
			})
		}
	}
}
