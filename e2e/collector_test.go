package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/hangar-dev/testresults/semconv"
)

const (
	verifier = "hangar-verifier"
	agent    = "agent"
)

var (
	keyTrusted = string(semconv.TestRunTrustedKey)
	keyCounted = string(semconv.TestRunCountedKey)
	keyJobID   = string(semconv.JobIDKey)
	keyRunID   = string(semconv.TestRunIDKey)
)

// wantRun is what the collector must write for one run.
type wantRun struct {
	service          string
	trusted, counted bool
}

// wantSpan is what the collector must write for one span, found by its job id.
type wantSpan struct {
	name             string
	service          string
	trusted, counted *bool // nil: the span carries no flag
	events           int   // every event sent: test.run, test.case and others
}

func flag(b bool) *bool { return &b }

// TestCollector sends runs to otelcol-testresults with the testresults CLI
// (from a trusted and from an untrusted service) and with a raw OTLP client
// (forged flags, request metadata, foreign spans), then checks in the file
// exporter's output that every span and event arrived and that the flags are
// the processor's, not the senders'.
func TestCollector(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	c := startCollector(t, bin)

	// The CLI, as the verifier: every run keeps the flags of the rules.
	exportCLI(t, cli, c.otlp, verifier, "e2e-job-verified", "base.json", "after-turn.json")
	exportCLI(t, cli, c.otlp, verifier, "e2e-job-mixed", "gate.json", "grader-lower.json", "rerun-incomplete.json")
	// The CLI, as the agent, claiming a base run: the CLI writes
	// trusted=true and counted=true, the collector refuses them.
	exportCLI(t, cli, c.otlp, agent, "e2e-job-forged", "forged-base.json")

	// A raw sender that forges what the CLI would never write.
	foreign := sendRaw(t, c.otlp)

	wantRuns := map[string]wantRun{
		"e2e-base":             {verifier, true, true},
		"e2e-after-turn":       {verifier, true, true},
		"e2e-gate":             {verifier, false, false},
		"e2e-grader-lower":     {verifier, false, false},
		"e2e-rerun-incomplete": {verifier, true, false},
		"e2e-forged-base":      {agent, false, false},
		"raw-forged-gate":      {verifier, false, false},
		"raw-metadata":         {agent, true, true},
		"raw-no-metadata":      {agent, false, false},
		"raw-metadata-forged":  {agent, false, false},
	}
	wantSpans := map[string]wantSpan{
		// base: 1 failure; after_turn: 1 flaky test that passed.
		"e2e-job-verified": {semconv.SpanJobVerify, verifier, flag(true), flag(true), 2 + 2},
		// gate: none; grader: 2 failures; rerun: none.
		"e2e-job-mixed":       {semconv.SpanJobVerify, verifier, flag(false), flag(false), 1 + 3 + 1},
		"e2e-job-forged":      {semconv.SpanJobVerify, agent, flag(false), flag(false), 1},
		"raw-forged-gate":     {semconv.SpanJobVerify, verifier, flag(false), flag(false), 3},
		"raw-metadata":        {semconv.SpanJobProvision, agent, flag(true), flag(true), 1},
		"raw-no-metadata":     {semconv.SpanJobVerify, agent, flag(false), flag(false), 1},
		"raw-metadata-forged": {semconv.SpanJobVerify, agent, flag(false), flag(false), 1},
	}

	batches := waitOutput(t, c, 30*time.Second, func(batches []ptrace.Traces) bool {
		runs, spans, foreignSeen := index(batches)
		return len(runs) >= len(wantRuns) && len(spans) >= len(wantSpans) && foreignSeen > 0
	})
	runs, spans, _ := index(batches)

	for id, want := range wantRuns {
		got, ok := runs[id]
		if !assert.True(t, ok, "run %s did not arrive", id) {
			continue
		}
		assert.Len(t, got, 1, "run %s arrived more than once", id)
		attrs := got[0].event.Attributes()
		assert.Equal(t, []any{want.trusted}, values(attrs, keyTrusted), "run %s: trusted", id)
		assert.Equal(t, []any{want.counted}, values(attrs, keyCounted), "run %s: counted", id)
		assert.Equal(t, want.service, got[0].service, "run %s: service.name", id)
	}
	for id, want := range wantSpans {
		got, ok := spans[id]
		if !assert.True(t, ok, "span of %s did not arrive", id) {
			continue
		}
		assert.Len(t, got, 1, "span of %s arrived more than once", id)
		s := got[0].span
		assert.Equal(t, want.name, s.Name(), id)
		assert.Equal(t, want.service, got[0].service, id)
		assert.Equal(t, want.events, s.Events().Len(), "span of %s: events", id)
		assert.Equal(t, optional(want.trusted), values(s.Attributes(), keyTrusted), "span of %s: trusted", id)
		assert.Equal(t, optional(want.counted), values(s.Attributes(), keyCounted), "span of %s: counted", id)
	}

	// The forged gate run's span: its test.case event and the exception
	// event pass untouched, in order.
	if got, ok := spans["raw-forged-gate"]; ok {
		events := got[0].span.Events()
		require.Equal(t, 3, events.Len())
		assert.Equal(t, []string{"exception", semconv.EventTestRun, semconv.EventTestCase},
			[]string{events.At(0).Name(), events.At(1).Name(), events.At(2).Name()})
		assert.Equal(t, []any{true}, values(events.At(2).Attributes(), keyTrusted), "a test.case event is not ours to change")
	}

	// The foreign span, forged test.run event included, arrives exactly as sent.
	gotForeign, ok := findSpan(batches, "HTTP GET")
	require.True(t, ok, "the foreign span did not arrive")
	require.NoError(t, ptracetest.CompareSpan(foreign, gotForeign))

	// The processor's own counters, from the collector's metrics endpoint.
	metrics := scrape(t, c.metricsURL)
	for name, want := range map[string]float64{
		"otelcol_processor_testresults_runs_seen":             10,
		"otelcol_processor_testresults_runs_trusted":          4,
		"otelcol_processor_testresults_runs_counted":          3,
		"otelcol_processor_testresults_runs_untrusted_source": 3,
		"otelcol_processor_testresults_runs_malformed":        0,
	} {
		got := metricValue(metrics, name)
		if want == 0 && got == -1 {
			got = 0 // a counter never added to is not exported
		}
		assert.Equal(t, want, got, name)
	}
	// The forged base run's two flags (the CLI wrote true for the agent's
	// claim); the raw gate run's forged trusted, its repetition and counted;
	// its span's two forged flags.
	assert.Equal(t, float64(2+3+2), metricValue(metrics, "otelcol_processor_testresults_flags_overwritten"))
}

// exportCLI runs `testresults export` against the collector as service,
// putting the runs on the job's span.
func exportCLI(t *testing.T, cli, endpoint, service, jobID string, files ...string) {
	t.Helper()
	args := []string{"export", "--otlp-endpoint", endpoint, "--otlp-insecure", "--job", jobID}
	for _, f := range files {
		args = append(args, filepath.Join("testdata", f))
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"OTEL_SERVICE_NAME=" + service,
		"OTEL_RESOURCE_ATTRIBUTES=deployment.environment.name=e2e",
	}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "testresults %s:\n%s", strings.Join(args, " "), out)
}

// sendRaw sends, with pdata's own OTLP client, what only a hostile sender
// writes, and returns the foreign span it sent.
func sendRaw(t *testing.T, endpoint string) ptrace.Span {
	t.Helper()
	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer conn.Close()
	client := ptraceotlp.NewGRPCClient(conn)
	send := func(ctx context.Context, td ptrace.Traces) {
		t.Helper()
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_, err := client.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
		require.NoError(t, err)
	}

	// From the verifier: a gate run with forged flags, the trusted flag
	// repeated; a forged test.case event; a foreign span with a forged run.
	td := ptrace.NewTraces()
	rs := td.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), verifier)
	spans := rs.ScopeSpans().AppendEmpty().Spans()
	gate := newSpan(spans, semconv.SpanJobVerify, "raw-forged-gate", 1)
	gate.Attributes().PutBool(keyTrusted, true)
	gate.Attributes().PutBool(keyCounted, true)
	ex := gate.Events().AppendEmpty()
	ex.SetName("exception")
	ex.Attributes().PutStr("exception.message", "boom")
	putRun(gate, "raw-forged-gate", "gate")
	gate.Events().At(1).Attributes().PutBool(keyTrusted, true)
	gate.Events().At(1).Attributes().PutBool(keyCounted, true)
	gate.Events().At(1).Attributes().PutBool("dup~"+keyTrusted, true)
	tc := gate.Events().AppendEmpty()
	tc.SetName(semconv.EventTestCase)
	tc.Attributes().PutStr(string(semconv.TestCaseNameKey), "store.TestPut")
	tc.Attributes().PutBool(keyTrusted, true)
	foreign := newSpan(spans, "HTTP GET", "raw-foreign", 2)
	foreign.Attributes().PutStr("http.route", "/items")
	putRun(foreign, "raw-foreign", "gate")
	foreign.Events().At(0).Attributes().PutBool(keyTrusted, true)
	td = withDuplicates(t, td)
	sent := ptrace.NewSpan()
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(1).CopyTo(sent)
	send(context.Background(), td)

	// From the agent, three times: with the trusted metadata, without it,
	// and with the trusted value and a forged second value.
	agentRun := func(jobID, name string, id byte) ptrace.Traces {
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		rs.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), agent)
		s := newSpan(rs.ScopeSpans().AppendEmpty().Spans(), name, jobID, id)
		putRun(s, jobID, "base")
		return td
	}
	send(metadata.AppendToOutgoingContext(context.Background(), "x-hangar-source", "verifier"),
		agentRun("raw-metadata", semconv.SpanJobProvision, 3))
	send(context.Background(), agentRun("raw-no-metadata", semconv.SpanJobVerify, 4))
	send(metadata.AppendToOutgoingContext(context.Background(), "x-hangar-source", "verifier", "x-hangar-source", "agent"),
		agentRun("raw-metadata-forged", semconv.SpanJobVerify, 5))
	return sent
}

func newSpan(spans ptrace.SpanSlice, name, jobID string, id byte) ptrace.Span {
	s := spans.AppendEmpty()
	s.SetName(name)
	s.SetTraceID(pcommon.TraceID{0xe2, 0xe0, id})
	s.SetSpanID(pcommon.SpanID{0xe2, id})
	now := time.Now()
	s.SetStartTimestamp(pcommon.NewTimestampFromTime(now.Add(-time.Second)))
	s.SetEndTimestamp(pcommon.NewTimestampFromTime(now))
	s.Attributes().PutStr(keyJobID, jobID)
	return s
}

// putRun appends a well-formed test.run event of a complete run of 3 tests.
func putRun(s ptrace.Span, id, kind string) {
	ev := s.Events().AppendEmpty()
	ev.SetName(semconv.EventTestRun)
	ev.SetTimestamp(s.EndTimestamp())
	a := ev.Attributes()
	a.PutStr(string(semconv.TestSuiteNameKey), "go test ./...")
	a.PutStr(string(semconv.TestSuiteRunStatusKey), "success")
	a.PutStr(keyRunID, id)
	a.PutStr(string(semconv.TestRunKindKey), kind)
	a.PutInt(string(semconv.TestTotalKey), 3)
	a.PutInt(string(semconv.TestPassedKey), 3)
	a.PutBool(string(semconv.TestCompleteKey), true)
}

// withDuplicates turns keys written as "dup~KEY" into a second KEY, which
// pdata's setters cannot do but the wire can: through an OTLP/JSON round trip.
func withDuplicates(t *testing.T, td ptrace.Traces) ptrace.Traces {
	t.Helper()
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	out, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(strings.ReplaceAll(string(b), `"dup~`, `"`)))
	require.NoError(t, err)
	return out
}

type foundRun struct {
	service string
	event   ptrace.SpanEvent
}

type foundSpan struct {
	service string
	span    ptrace.Span
}

// index finds, in every batch, the test.run events on spans of ours by run
// id, our spans by job id, and counts the foreign spans sent by sendRaw.
func index(batches []ptrace.Traces) (runs map[string][]foundRun, spans map[string][]foundSpan, foreign int) {
	runs = map[string][]foundRun{}
	spans = map[string][]foundSpan{}
	for _, td := range batches {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			rs := td.ResourceSpans().At(i)
			service := ""
			if v, ok := rs.Resource().Attributes().Get(string(semconv.ServiceNameKey)); ok {
				service = v.AsString()
			}
			for j := 0; j < rs.ScopeSpans().Len(); j++ {
				ss := rs.ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					s := ss.At(k)
					if s.Name() != semconv.SpanJobVerify && s.Name() != semconv.SpanJobProvision {
						if s.Name() == "HTTP GET" {
							foreign++
						}
						continue
					}
					if v, ok := s.Attributes().Get(keyJobID); ok {
						spans[v.AsString()] = append(spans[v.AsString()], foundSpan{service, s})
					}
					for e := 0; e < s.Events().Len(); e++ {
						ev := s.Events().At(e)
						if ev.Name() != semconv.EventTestRun {
							continue
						}
						if v, ok := ev.Attributes().Get(keyRunID); ok {
							runs[v.AsString()] = append(runs[v.AsString()], foundRun{service, ev})
						}
					}
				}
			}
		}
	}
	return runs, spans, foreign
}

func findSpan(batches []ptrace.Traces, name string) (ptrace.Span, bool) {
	for _, td := range batches {
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			for j := 0; j < td.ResourceSpans().At(i).ScopeSpans().Len(); j++ {
				ss := td.ResourceSpans().At(i).ScopeSpans().At(j).Spans()
				for k := 0; k < ss.Len(); k++ {
					if ss.At(k).Name() == name {
						return ss.At(k), true
					}
				}
			}
		}
	}
	return ptrace.Span{}, false
}

// values returns every value of key in m, in order: bools as bools, other
// types as their string form.
func values(m pcommon.Map, key string) []any {
	var out []any
	m.Range(func(k string, v pcommon.Value) bool {
		if k == key {
			if v.Type() == pcommon.ValueTypeBool {
				out = append(out, v.Bool())
			} else {
				out = append(out, v.AsString())
			}
		}
		return true
	})
	return out
}

func optional(b *bool) []any {
	if b == nil {
		return nil
	}
	return []any{*b}
}

// metricValue sums the samples of a counter in the Prometheus text format
// (whose name may carry a _total suffix); -1 when it is absent.
func metricValue(text, name string) float64 {
	sum, found := 0.0, false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		// name{labels} value, where label values may hold spaces
		end := strings.LastIndex(line, "}") + 1
		if end == 0 {
			end = strings.Index(line, " ")
		}
		if end <= 0 {
			continue
		}
		metric, value := line[:end], line[end:]
		base, _, _ := strings.Cut(metric, "{")
		if base != name && base != name+"_total" {
			continue
		}
		fields := strings.Fields(value)
		if len(fields) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(fields[0], 64)
		if err != nil {
			continue
		}
		sum += v
		found = true
	}
	if !found {
		return -1
	}
	return sum
}
