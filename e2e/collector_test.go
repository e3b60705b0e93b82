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

// wantSpan is what the collector must write for one span, found by its
// name and job id.
type wantSpan struct {
	service          string
	trusted, counted *bool // nil: the span carries no flag
	events           int   // every event sent: test.run, test.case and others
}

func flag(b bool) *bool { return &b }

// cliExport is one `testresults export` of run files to the collector.
type cliExport struct {
	service string
	job     string
	base    bool     // --base: the runs go on the job.provision span
	headers []string // --otlp-header K=V
	files   []string
}

func (e cliExport) args() []string {
	args := []string{"export", "--job", e.job}
	if e.base {
		args = append(args, "--base")
	}
	for _, f := range e.files {
		args = append(args, filepath.Join("testdata", f))
	}
	return args
}

// TestCollector sends runs to otelcol-testresults with the testresults CLI
// (from a trusted and from an untrusted service, with and without a trusted
// header) and with a raw OTLP client (forged and repeated flags, request
// metadata, foreign spans), then checks in the file exporter's output that
// every span and event arrived as sent, with the processor's flags instead
// of the senders'.
func TestCollector(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	c := startCollector(t, bin)

	exports := []cliExport{
		// The verifier: every run keeps the flags of the rules.
		{service: verifier, job: "e2e-job-1", base: true, files: []string{"base.json"}},
		{service: verifier, job: "e2e-job-1", files: []string{"after-turn.json"}},
		{service: verifier, job: "e2e-job-2", files: []string{"gate.json", "grader-lower.json", "rerun-incomplete.json"}},
		// The agent claiming a base run: the CLI writes trusted=true and
		// counted=true, the collector refuses them.
		{service: agent, job: "e2e-job-3", files: []string{"forged-base.json"}},
		// The agent's service name, but through the trusted header.
		{service: agent, job: "e2e-job-4", headers: []string{"x-hangar-source=verifier"}, files: []string{"attempt.json"}},
	}
	// What the CLI sends, as it writes it with --format otel.
	var sent []ptrace.Traces
	for _, e := range exports {
		exportCLI(t, cli, e, c.otlp)
		sent = append(sent, exportFile(t, cli, e))
	}
	// A raw sender that forges what the CLI would never write.
	foreign := sendRaw(t, c.otlp)

	wantRuns := map[string]wantRun{
		"e2e-base":             {verifier, true, true},
		"e2e-after-turn":       {verifier, true, true},
		"e2e-gate":             {verifier, false, false},
		"e2e-grader-lower":     {verifier, false, false},
		"e2e-rerun-incomplete": {verifier, true, false},
		"e2e-forged-base":      {agent, false, false},
		"e2e-attempt-header":   {agent, true, true},
		"raw-forged-gate":      {verifier, false, false},
		"raw-metadata":         {agent, true, true},
		"raw-no-metadata":      {agent, false, false},
		"raw-metadata-forged":  {agent, false, false},
	}
	verify, provision := semconv.SpanJobVerify+"/", semconv.SpanJobProvision+"/"
	wantSpans := map[string]wantSpan{
		// base: 1 failure.
		provision + "e2e-job-1": {verifier, flag(true), flag(true), 2},
		// after_turn: 1 flaky test that passed.
		verify + "e2e-job-1": {verifier, flag(true), flag(true), 2},
		// gate: none; grader: 2 failures; rerun: none.
		verify + "e2e-job-2":           {verifier, flag(false), flag(false), 1 + 3 + 1},
		verify + "e2e-job-3":           {agent, flag(false), flag(false), 1},
		verify + "e2e-job-4":           {agent, flag(true), flag(true), 1},
		verify + "raw-forged-gate":     {verifier, flag(false), flag(false), 3},
		provision + "raw-metadata":     {agent, flag(true), flag(true), 1},
		verify + "raw-no-metadata":     {agent, flag(false), flag(false), 1},
		verify + "raw-metadata-forged": {agent, flag(false), flag(false), 1},
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
	for key, want := range wantSpans {
		got, ok := spans[key]
		if !assert.True(t, ok, "span %s did not arrive", key) {
			continue
		}
		assert.Len(t, got, 1, "span %s arrived more than once", key)
		s := got[0].span
		assert.Equal(t, want.service, got[0].service, key)
		assert.Equal(t, want.events, s.Events().Len(), "span %s: events", key)
		assert.Equal(t, optional(want.trusted), values(s.Attributes(), keyTrusted), "span %s: trusted", key)
		assert.Equal(t, optional(want.counted), values(s.Attributes(), keyCounted), "span %s: counted", key)
	}

	// Every span the CLI sent arrived whole: the same span, events and
	// attributes, but for the flags, which are the processor's.
	for _, td := range sent {
		forEachSpan(td, func(service string, want ptrace.Span) {
			key := want.Name() + "/" + jobID(want)
			got, ok := spans[key]
			if !assert.True(t, ok, "span %s did not arrive", key) || len(got) != 1 {
				return
			}
			expected := ptrace.NewSpan()
			want.CopyTo(expected)
			for i := 0; i < expected.Events().Len(); i++ {
				ev := expected.Events().At(i)
				if ev.Name() != semconv.EventTestRun {
					continue
				}
				id, _ := ev.Attributes().Get(keyRunID)
				w := wantRuns[id.AsString()]
				ev.Attributes().PutBool(keyTrusted, w.trusted)
				ev.Attributes().PutBool(keyCounted, w.counted)
			}
			ws := wantSpans[key]
			expected.Attributes().PutBool(keyTrusted, *ws.trusted)
			expected.Attributes().PutBool(keyCounted, *ws.counted)
			assert.NoError(t, ptracetest.CompareSpan(expected, got[0].span), key)
			assert.Equal(t, service, got[0].service, key)
		})
	}

	// The forged gate run's span: its test.case event and the exception
	// event pass in order; the forged flag on the test.case event is removed.
	if got, ok := spans[verify+"raw-forged-gate"]; ok {
		events := got[0].span.Events()
		require.Equal(t, 3, events.Len())
		assert.Equal(t, []string{"exception", semconv.EventTestRun, semconv.EventTestCase},
			[]string{events.At(0).Name(), events.At(1).Name(), events.At(2).Name()})
		assert.Nil(t, values(events.At(2).Attributes(), keyTrusted), "a flag on a test.case event is removed")
	}

	// The foreign span, forged test.run event included, arrives as sent,
	// but for the forged flags, which are removed: only the processor may
	// say a run is trusted.
	gotForeign, ok := findSpan(batches, "HTTP GET")
	require.True(t, ok, "the foreign span did not arrive")
	require.NoError(t, ptracetest.CompareSpan(withoutFlags(foreign), withoutFlags(gotForeign)))
	assert.Empty(t, flagValues(gotForeign.Attributes()))
	for i := 0; i < gotForeign.Events().Len(); i++ {
		assert.Empty(t, flagValues(gotForeign.Events().At(i).Attributes()))
	}

	// The processor's own counters, from the collector's metrics endpoint.
	metrics := scrape(t, c.metricsURL)
	for name, want := range map[string]float64{
		"otelcol_processor_testresults_runs_seen":             11,
		"otelcol_processor_testresults_runs_trusted":          5,
		"otelcol_processor_testresults_runs_counted":          4,
		"otelcol_processor_testresults_runs_untrusted_source": 3,
		"otelcol_processor_testresults_runs_malformed":        0,
		// The forged base run's two flags (the CLI wrote true for the
		// agent's claim); the raw gate run's forged trusted, its
		// repetition and counted; its span's two forged flags.
		"otelcol_processor_testresults_flags_overwritten": 2 + 3 + 2,
		// The forged flag on the test.case event and on the foreign span's run.
		"otelcol_processor_testresults_flags_removed": 1 + 1,
	} {
		got := metricValue(metrics, name)
		if want == 0 && got == -1 {
			got = 0 // a counter never added to is not exported
		}
		assert.Equal(t, want, got, name)
	}
}

// exportCLI runs `testresults export` against the collector.
func exportCLI(t *testing.T, cli string, e cliExport, endpoint string) {
	t.Helper()
	args := append(e.args(), "--otlp-endpoint", endpoint, "--otlp-insecure")
	for _, h := range e.headers {
		args = append(args, "--otlp-header", h)
	}
	runCLI(t, cli, e.service, args)
}

// exportFile runs the same export into OTLP/JSON and returns what the CLI
// would send.
func exportFile(t *testing.T, cli string, e cliExport) ptrace.Traces {
	t.Helper()
	out := filepath.Join(t.TempDir(), "spans.jsonl")
	runCLI(t, cli, e.service, append(e.args(), "--format", "otel", "-o", out))
	all := ptrace.NewTraces()
	for _, td := range readOutput(t, out) {
		td.ResourceSpans().MoveAndAppendTo(all.ResourceSpans())
	}
	require.Positive(t, all.SpanCount(), "testresults %s wrote no span", strings.Join(e.args(), " "))
	return all
}

func runCLI(t *testing.T, cli, service string, args []string) {
	t.Helper()
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
	for _, k := range []string{string(semconv.TestFailedKey), string(semconv.TestErrorsKey), string(semconv.TestSkippedKey), string(semconv.TestFlakyCountKey)} {
		a.PutInt(k, 0)
	}
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
					if id := jobID(s); id != "" {
						key := s.Name() + "/" + id
						spans[key] = append(spans[key], foundSpan{service, s})
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

func jobID(s ptrace.Span) string {
	if v, ok := s.Attributes().Get(keyJobID); ok {
		return v.AsString()
	}
	return ""
}

// forEachSpan calls f with every span of td and the service.name of its resource.
func forEachSpan(td ptrace.Traces, f func(service string, s ptrace.Span)) {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		service := ""
		if v, ok := rs.Resource().Attributes().Get(string(semconv.ServiceNameKey)); ok {
			service = v.AsString()
		}
		for j := 0; j < rs.ScopeSpans().Len(); j++ {
			ss := rs.ScopeSpans().At(j).Spans()
			for k := 0; k < ss.Len(); k++ {
				f(service, ss.At(k))
			}
		}
	}
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

// withoutFlags returns a copy of s without the trust flags, under any
// spelling, on the span and its events.
func withoutFlags(s ptrace.Span) ptrace.Span {
	out := ptrace.NewSpan()
	s.CopyTo(out)
	strip := func(m pcommon.Map) { m.RemoveIf(func(k string, _ pcommon.Value) bool { return flagKey(k) }) }
	strip(out.Attributes())
	for i := 0; i < out.Events().Len(); i++ {
		strip(out.Events().At(i).Attributes())
	}
	return out
}

// flagValues returns the trust flags of m, under any spelling, as key=value.
func flagValues(m pcommon.Map) []string {
	var out []string
	m.Range(func(k string, v pcommon.Value) bool {
		if flagKey(k) {
			out = append(out, attrString(k, v))
		}
		return true
	})
	return out
}
