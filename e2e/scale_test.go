package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"golang.org/x/net/dns/dnsmessage"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/hangar-dev/testresults/e2e/loadgen"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/semconv"
)

// Environment variables of the scale-out test.
const (
	// envScaleSpans sets how many spans the trusted runner sends through
	// the edge (default scaleSpans).
	envScaleSpans = "TESTRESULTS_SCALE_SPANS"
)

const (
	scaleSpans     = 10_000
	scaleRate      = 2_000 // spans/s
	scaleBatch     = 100   // spans per request: one request is one job's export
	scaleGateways  = 3
	untrustedSpans = 1_000
	// gatewayName is the name the edge resolves to every gateway.
	gatewayName   = "gateways.test."
	trustedToken  = "runner-trusted-token"
	agentToken    = "runner-agent-token"
	edgeToken     = "edge-token"
	authorization = "authorization"
)

// TestScaleOut runs the two-tier deployment of otelcol-testresults-edge.yaml
// and otelcol-testresults-gateway.yaml on 127.0.0.1: one edge that
// authenticates runners and judges trust, balancing (gRPC round robin over a
// DNS name with one address per gateway, answered by a DNS server of the
// test) over three gateways that keep its verdicts. It sends the load
// generator's mix through the edge, and the same spans to one collector of
// the single-tier sample configuration, and kills one gateway mid-stream.
// The union of the gateways' file outputs holds every span the edge
// accepted (0 lost), each exactly as the single collector gives it (the
// spans and the flags), duplicates only as identical copies of a span; each
// request (a job's export) lands whole on one gateway; every gateway took a
// share. Through the tier, a run from the trusted runner comes out trusted
// as from the single collector; the same runs from an authenticated runner
// that is not trusted come out untrusted; a runner without a token is
// refused. A gateway told to trust whatever reaches it does not start.
func TestScaleOut(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	requireComponent(t, bin, "bearertokenauth")
	spans := scaleSpans
	if s := os.Getenv(envScaleSpans); s != "" {
		_, err := fmt.Sscan(s, &spans)
		require.NoError(t, err, envScaleSpans)
	}
	g, err := loadgen.NewGenerator()
	require.NoError(t, err)

	dns := startDNS(t, gatewayName, []net.IP{{127, 0, 0, 1}, {127, 0, 0, 2}, {127, 0, 0, 3}})
	gwPort := testnet.FreePort(t)
	var gateways []*collector
	for i := range scaleGateways {
		gateways = append(gateways, launchGateway(t, bin, fmt.Sprintf("127.0.0.%d:%d", i+1, gwPort)))
	}
	edge := launchEdge(t, bin, fmt.Sprintf("dns://%s/%s:%d", dns, strings.TrimSuffix(gatewayName, "."), gwPort))
	single := launch(t, bin, sampleSpec(t, t.TempDir()))

	// The single collector's answer, the golden.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	load := loadgen.Config{Rate: scaleRate, Duration: time.Duration(spans) * time.Second / scaleRate, Batch: scaleBatch, Workers: 4}
	single1 := load
	single1.Endpoint = single.otlp
	res, err := loadgen.Send(ctx, g, single1)
	require.NoError(t, err)
	require.Equal(t, res.SentSpans, res.AcceptedSpans, "single collector: %v %s", res.Errors, res.FirstError)
	golden := collectSpans(t, []*collector{single}, res.AcceptedSpans, time.Minute)

	// Through the edge, killing the third gateway once it wrote a share.
	trusted := load
	trusted.Endpoint = edge.otlp
	trusted.Headers = map[string]string{authorization: "Bearer " + trustedToken}
	sent := make(chan loadgen.Result, 1)
	go func() {
		r, err := loadgen.Send(ctx, g, trusted)
		assert.NoError(t, err)
		sent <- r
	}()
	victim := gateways[scaleGateways-1]
	require.Eventually(t, func() bool { return countOutput(t, victim.output) >= spans/(4*scaleGateways) },
		time.Minute, 20*time.Millisecond, "the third gateway wrote a share of the spans")
	victim.kill(t)
	viaEdge := <-sent
	require.Equal(t, viaEdge.SentSpans, viaEdge.AcceptedSpans, "edge: %v %s", viaEdge.Errors, viaEdge.FirstError)
	start := time.Now()
	got := collectSpans(t, gateways, viaEdge.AcceptedSpans, 2*time.Minute)
	t.Logf("through the edge: %d spans in %d requests at %.0f spans/s, every one at a gateway %s after the last answer; per gateway %v; %d duplicates (identical)",
		viaEdge.SentSpans, viaEdge.Requests, viaEdge.Rate(), time.Since(start).Round(time.Millisecond), got.perGateway, got.duplicates)

	// 0 lost, each span as the single collector gives it.
	require.Len(t, got.spans, len(golden.spans))
	runsSent, trustedRuns := 0, 0
	for seq, want := range golden.spans {
		have, ok := got.spans[seq]
		if !assert.True(t, ok, "span %d lost", seq) {
			continue
		}
		assert.Equal(t, want.form, have.form, "span %d through the tier differs from the single collector's", seq)
		runsSent += want.runs
		trustedRuns += want.trustedRuns
	}
	t.Logf("test.run events in the spans: %d (%d trusted)", runsSent, trustedRuns)
	assert.Empty(t, got.different, "copies of a span that differ")
	assert.Positive(t, trustedRuns, "trusted runs through the tier")
	// Each request lands whole on one gateway (a copy of it may be on
	// another, after the kill); every gateway took a share.
	for req, where := range got.requests {
		whole := false
		for _, n := range where {
			whole = whole || n == scaleBatch
		}
		assert.True(t, whole, "request %d is spread over gateways %v", req, where)
	}
	for i, n := range got.perGateway {
		assert.Positive(t, n, "gateway %d took no share", i)
	}

	// The same runs from a runner that is authenticated but not trusted.
	agent := load
	agent.Endpoint, agent.First = edge.otlp, uint64(viaEdge.SentSpans)
	agent.Duration = time.Duration(untrustedSpans) * time.Second / scaleRate
	agent.Headers = map[string]string{authorization: "Bearer " + agentToken}
	res, err = loadgen.Send(ctx, g, agent)
	require.NoError(t, err)
	require.Equal(t, res.SentSpans, res.AcceptedSpans, "agent: %v %s", res.Errors, res.FirstError)
	all := collectSpans(t, gateways, viaEdge.AcceptedSpans+res.AcceptedSpans, time.Minute)
	runs := 0
	for seq, s := range all.spans {
		if seq >= agent.First {
			runs += s.runs
			assert.Zero(t, s.trustedRuns+s.countedRuns, "span %d from an untrusted runner came out trusted", seq)
		}
	}
	assert.Positive(t, runs)

	// A runner without a token is refused.
	anon := load
	anon.Endpoint, anon.First, anon.Headers = edge.otlp, agent.First+uint64(res.SentSpans), nil
	anon.Duration = time.Duration(scaleBatch*2) * time.Second / scaleRate
	res, err = loadgen.Send(ctx, g, anon)
	require.NoError(t, err)
	assert.Zero(t, res.AcceptedSpans)
	assert.Equal(t, res.SentSpans, res.Errors["Unauthenticated"]*scaleBatch, "%v", res.Errors)

	// Runs as log-based events take the same way: through the edge's and
	// the gateways' logs pipelines, trusted from the trusted runner only.
	sendRunLogs(t, edge.otlp, trustedToken, "log-trusted")
	sendRunLogs(t, edge.otlp, agentToken, "log-agent")
	flags := waitRunLogs(t, gateways[:scaleGateways-1], []string{"log-trusted", "log-agent"}, time.Minute)
	assert.Equal(t, [2]bool{true, true}, flags["log-trusted"], "trusted, counted")
	assert.Equal(t, [2]bool{false, false}, flags["log-agent"], "trusted, counted")

	// The gateways counted the edge's runs as forwarded, none as from an
	// untrusted source.
	for _, gw := range gateways[:scaleGateways-1] {
		m := scrape(t, gw.metricsURL)
		assert.Positive(t, metricValue(m, "otelcol_processor_testresults_runs_forwarded"))
		assert.LessOrEqual(t, metricValue(m, "otelcol_processor_testresults_runs_untrusted_source"), 0.0, "absent (-1) or 0")
	}
	logCPU(t, "edge", edge, viaEdge)
	for i, gw := range gateways[:scaleGateways-1] {
		logCPU(t, fmt.Sprintf("gateway %d", i), gw, viaEdge)
	}
}

// TestGatewayRefusesTrustAll: a gateway configured to trust whatever the
// edge tier sends (trust_all_sources, or trusted_sources, with tier:
// gateway) does not start, and the error names the key.
func TestGatewayRefusesTrustAll(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	requireComponent(t, bin, "bearertokenauth")
	sample, err := os.ReadFile(filepath.Join(repoRoot(t), "otelcol-testresults-gateway.yaml"))
	require.NoError(t, err)
	edges := "    trusted_edges:\n      - metadata:\n          authorization: Bearer ${env:TESTRESULTS_EDGE_TOKEN}\n"
	require.Equal(t, 1, strings.Count(string(sample), edges))
	for _, tt := range []struct{ name, replace, key string }{
		{"trust_all_sources", "    trust_all_sources: true\n", "trust_all_sources: must not be true when tier is gateway"},
		{"trusted_sources", "    trusted_sources:\n      - metadata:\n          authorization: Bearer ${env:TESTRESULTS_EDGE_TOKEN}\n", "trusted_sources: must be empty when tier is gateway"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			config := filepath.Join(t.TempDir(), "gateway.yaml")
			require.NoError(t, os.WriteFile(config, []byte(strings.Replace(string(sample), edges, tt.replace, 1)), 0o600))
			cmd := exec.Command(bin, "--config", "file:"+config)
			cmd.Dir = t.TempDir()
			cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + cmd.Dir, "TESTRESULTS_EDGE_TOKEN=" + edgeToken,
				"TESTRESULTS_OTLP_GRPC=" + fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
				"TESTRESULTS_METRICS_PORT=" + fmt.Sprint(testnet.FreePort(t))}
			done := make(chan struct{})
			var out []byte
			var runErr error
			go func() { out, runErr = cmd.CombinedOutput(); close(done) }()
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				_ = cmd.Process.Kill()
				<-done
				t.Fatalf("the gateway started:\n%s", out)
			}
			require.Error(t, runErr)
			assert.Contains(t, string(out), "processors::testresults: "+tt.key)
		})
	}
}

// requireComponent skips the test when the collector lacks a component
// the configuration needs, naming it.
func requireComponent(t *testing.T, bin, name string) {
	t.Helper()
	out, err := exec.Command(bin, "components").CombinedOutput()
	require.NoError(t, err, "%s components: %s", bin, out)
	if !strings.Contains(string(out), "name: "+name) {
		t.Skipf("%s has no %s component: add it to builder-config.yaml (see otelcol-testresults-edge.yaml)", bin, name)
	}
}

func launchGateway(t *testing.T, bin, endpoint string) *collector {
	t.Helper()
	dir := t.TempDir()
	metricsPort := testnet.FreePort(t)
	spec := collectorSpec{
		config:     filepath.Join(repoRoot(t), "otelcol-testresults-gateway.yaml"),
		dir:        dir,
		otlp:       endpoint,
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		output:     filepath.Join(dir, "traces.jsonl"),
	}
	spec.env = map[string]string{
		"TESTRESULTS_OTLP_GRPC":    endpoint,
		"TESTRESULTS_METRICS_PORT": fmt.Sprint(metricsPort),
		"TESTRESULTS_EDGE_TOKEN":   edgeToken,
		"TESTRESULTS_OUTPUT":       spec.output,
		"TESTRESULTS_LOGS_OUTPUT":  filepath.Join(dir, "logs.jsonl"),
	}
	return launch(t, bin, spec)
}

func launchEdge(t *testing.T, bin, gateways string) *collector {
	t.Helper()
	dir := t.TempDir()
	tokens := filepath.Join(dir, "runner-tokens")
	require.NoError(t, os.WriteFile(tokens, []byte(trustedToken+"\n"+agentToken+"\n"), 0o600))
	metricsPort := testnet.FreePort(t)
	spec := collectorSpec{
		config:     filepath.Join(repoRoot(t), "otelcol-testresults-edge.yaml"),
		dir:        dir,
		otlp:       fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
	}
	spec.env = map[string]string{
		"TESTRESULTS_OTLP_GRPC":          spec.otlp,
		"TESTRESULTS_OTLP_HTTP":          fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		"TESTRESULTS_METRICS_PORT":       fmt.Sprint(metricsPort),
		"TESTRESULTS_RUNNER_TOKENS_FILE": tokens,
		"TESTRESULTS_TRUSTED_TOKEN":      trustedToken,
		"TESTRESULTS_EDGE_TOKEN":         edgeToken,
		"TESTRESULTS_GATEWAYS":           gateways,
		"TESTRESULTS_STATE":              filepath.Join(dir, "state"),
	}
	return launch(t, bin, spec)
}

// seenSpan is one span as a collector wrote it: its form (the resource's
// attributes and the span, timestamps cleared: each run of the load
// generator stamps its own), and its runs and flags.
type seenSpan struct {
	form                           string
	runs, trustedRuns, countedRuns int
	gateway                        int
}

// spanSet is what a set of collectors wrote.
type spanSet struct {
	spans      map[uint64]seenSpan
	duplicates int
	different  []uint64         // spans written twice with another form
	requests   map[uint64][]int // request number → spans of it per collector
	perGateway []int
}

// collectSpans reads the outputs of cs until they hold want distinct spans
// of the load generator, for at most timeout.
func collectSpans(t *testing.T, cs []*collector, want int, timeout time.Duration) spanSet {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		set := readSpans(t, cs)
		if len(set.spans) >= want {
			return set
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d spans written after %s", len(set.spans), want, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func readSpans(t *testing.T, cs []*collector) spanSet {
	t.Helper()
	set := spanSet{spans: map[uint64]seenSpan{}, requests: map[uint64][]int{}, perGateway: make([]int, len(cs))}
	m := &ptrace.ProtoMarshaler{}
	for i, c := range cs {
		for _, td := range readOutput(t, c.output) {
			rss := td.ResourceSpans()
			for r := 0; r < rss.Len(); r++ {
				res := rss.At(r).Resource().Attributes().AsRaw()
				sss := rss.At(r).ScopeSpans()
				for k := 0; k < sss.Len(); k++ {
					spans := sss.At(k).Spans()
					for j := 0; j < spans.Len(); j++ {
						s := spans.At(j)
						seq, ok := loadgen.SeqOf(s)
						require.True(t, ok, "a span the load generator did not send")
						one := ptrace.NewTraces()
						out := one.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
						s.CopyTo(out)
						out.SetStartTimestamp(0)
						out.SetEndTimestamp(0)
						ss := seenSpan{gateway: i}
						for e := 0; e < out.Events().Len(); e++ {
							ev := out.Events().At(e)
							ev.SetTimestamp(0)
							if ev.Name() == semconv.EventTestRun {
								ss.runs++
								ss.trustedRuns += boolAttr(ev.Attributes(), string(semconv.TestRunTrustedKey))
								ss.countedRuns += boolAttr(ev.Attributes(), string(semconv.TestRunCountedKey))
							}
						}
						b, err := m.MarshalTraces(one)
						require.NoError(t, err)
						ss.form = fmt.Sprintf("%v %x", res, b)
						set.perGateway[i]++
						req := seq / scaleBatch
						if set.requests[req] == nil {
							set.requests[req] = make([]int, len(cs))
						}
						set.requests[req][i]++
						if prev, dup := set.spans[seq]; dup {
							set.duplicates++
							if prev.form != ss.form {
								set.different = append(set.different, seq)
							}
							continue
						}
						set.spans[seq] = ss
					}
				}
			}
		}
	}
	return set
}

// boolAttr is 1 when m holds key as the bool true.
func boolAttr(m pcommon.Map, key string) int {
	if v, ok := m.Get(key); ok && v.Type() == pcommon.ValueTypeBool && v.Bool() {
		return 1
	}
	return 0
}

// countOutput is how many spans a collector's output holds now.
func countOutput(t *testing.T, path string) int {
	t.Helper()
	n := 0
	for _, td := range readOutput(t, path) {
		n += td.SpanCount()
	}
	return n
}

func logCPU(t *testing.T, name string, c *collector, sent loadgen.Result) {
	t.Helper()
	select {
	case <-c.exited:
		return
	default:
	}
	cpu := procCPU(t, c.cmd.Process.Pid)
	t.Logf("%s: CPU %s over the whole test (%.0f µs per span sent through the edge), peak RSS %.1f MiB",
		name, cpu.Round(time.Millisecond), float64(cpu.Microseconds())/float64(sent.SentSpans), float64(procPeakRSS(t, c.cmd.Process.Pid))/(1<<20))
}

// startDNS answers, on a UDP port of 127.0.0.1, A queries for name with
// addrs and every other query with no answer, until the test ends. It
// returns its address.
func startDNS(t *testing.T, name string, addrs []net.IP) string {
	t.Helper()
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { pc.Close() })
	go func() {
		buf := make([]byte, 1500)
		for {
			n, from, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			if reply, ok := dnsAnswer(buf[:n], name, addrs); ok {
				_, _ = pc.WriteTo(reply, from)
			}
		}
	}()
	return pc.LocalAddr().String()
}

func dnsAnswer(query []byte, name string, addrs []net.IP) ([]byte, bool) {
	var p dnsmessage.Parser
	h, err := p.Start(query)
	if err != nil {
		return nil, false
	}
	q, err := p.Question()
	if err != nil {
		return nil, false
	}
	b := dnsmessage.NewBuilder(nil, dnsmessage.Header{ID: h.ID, Response: true, Authoritative: true, RecursionDesired: h.RecursionDesired})
	b.EnableCompression()
	if b.StartQuestions() != nil || b.Question(q) != nil || b.StartAnswers() != nil {
		return nil, false
	}
	if q.Type == dnsmessage.TypeA && strings.EqualFold(q.Name.String(), name) {
		for _, ip := range addrs {
			var a [4]byte
			copy(a[:], ip.To4())
			if b.AResource(dnsmessage.ResourceHeader{Name: q.Name, Class: dnsmessage.ClassINET, TTL: 1}, dnsmessage.AResource{A: a}) != nil {
				return nil, false
			}
		}
	}
	reply, err := b.Finish()
	return reply, err == nil
}

// sendRunLogs sends one test.run log record (a well-formed base run from
// the verifier, claiming trusted and counted) with the runner's token.
func sendRunLogs(t *testing.T, endpoint, token, runID string) {
	t.Helper()
	ld := plog.NewLogs()
	rl := ld.ResourceLogs().AppendEmpty()
	rl.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), loadgen.ServiceVerifier)
	lr := rl.ScopeLogs().AppendEmpty().LogRecords().AppendEmpty()
	lr.SetEventName(semconv.EventTestRun)
	lr.SetTimestamp(pcommon.NewTimestampFromTime(time.Now()))
	lr.SetTraceID(pcommon.TraceID{0xab, 1})
	lr.SetSpanID(pcommon.SpanID{0xab, 1})
	m := lr.Attributes()
	m.PutStr(string(semconv.TestRunIDKey), runID)
	m.PutStr(string(semconv.TestRunKindKey), "base")
	for _, k := range []string{string(semconv.TestTotalKey), string(semconv.TestPassedKey)} {
		m.PutInt(k, 3)
	}
	for _, k := range []string{string(semconv.TestFailedKey), string(semconv.TestErrorsKey), string(semconv.TestSkippedKey), string(semconv.TestFlakyCountKey)} {
		m.PutInt(k, 0)
	}
	m.PutBool(string(semconv.TestCompleteKey), true)
	m.PutBool(string(semconv.TestRunTrustedKey), true)
	m.PutBool(string(semconv.TestRunCountedKey), true)

	conn, err := grpc.NewClient(endpoint, grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer func() { _ = conn.Close() }()
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), authorization, "Bearer "+token), 10*time.Second)
	defer cancel()
	_, err = plogotlp.NewGRPCClient(conn).Export(ctx, plogotlp.NewExportRequestFromLogs(ld))
	require.NoError(t, err)
}

// waitRunLogs reads the gateways' logs outputs until every run id has its
// test.run record, and returns each run's trusted and counted flags.
func waitRunLogs(t *testing.T, cs []*collector, runIDs []string, timeout time.Duration) map[string][2]bool {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		found := map[string][2]bool{}
		for _, c := range cs {
			b, err := os.ReadFile(filepath.Join(c.spec.dir, "logs.jsonl"))
			if err != nil {
				continue
			}
			for _, line := range strings.Split(string(b), "\n") {
				ld, err := (&plog.JSONUnmarshaler{}).UnmarshalLogs([]byte(line))
				if err != nil {
					continue // an empty or unfinished line
				}
				for i := 0; i < ld.ResourceLogs().Len(); i++ {
					sls := ld.ResourceLogs().At(i).ScopeLogs()
					for j := 0; j < sls.Len(); j++ {
						lrs := sls.At(j).LogRecords()
						for k := 0; k < lrs.Len(); k++ {
							m := lrs.At(k).Attributes()
							id, _ := m.Get(string(semconv.TestRunIDKey))
							found[id.AsString()] = [2]bool{
								boolAttr(m, string(semconv.TestRunTrustedKey)) == 1,
								boolAttr(m, string(semconv.TestRunCountedKey)) == 1,
							}
						}
					}
				}
			}
		}
		all := true
		for _, id := range runIDs {
			_, ok := found[id]
			all = all && ok
		}
		if all {
			return found
		}
		if time.Now().After(deadline) {
			t.Fatalf("test.run records at the gateways after %s: %v", timeout, found)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
