package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/e2e/loadgen"
)

// Environment variables of the load test.
const (
	// envLoad=long runs the long version: 10,000 spans/s for 60 s.
	envLoad = "TESTRESULTS_LOAD"
	// envLoadRate and envLoadSeconds set the rate (spans/s) and duration.
	envLoadRate    = "TESTRESULTS_LOAD_RATE"
	envLoadSeconds = "TESTRESULTS_LOAD_SECONDS"
)

// The short version, run by scripts/e2e-collector.sh on a 2-core machine.
const (
	shortRate     = 2000
	shortDuration = 10 * time.Second
	longRate      = 10_000
	longDuration  = 60 * time.Second
)

func loadSettings(t *testing.T) (rate int, d time.Duration) {
	t.Helper()
	rate, d = shortRate, shortDuration
	if os.Getenv(envLoad) == "long" {
		rate, d = longRate, longDuration
	}
	if s := os.Getenv(envLoadRate); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, envLoadRate)
		rate = n
	}
	if s := os.Getenv(envLoadSeconds); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, envLoadSeconds)
		d = time.Duration(n) * time.Second
	}
	return rate, d
}

// loadRun is what one load run measured.
type loadRun struct {
	name               string
	sent               loadgen.Result
	received, dupes    int
	events             int
	cpu                time.Duration
	peakRSS            int64
	drain              time.Duration // from the last answer until the test had read every accepted span back
	problems           int
	tally              runTally
	firstProblems      []string
	processorRunsSeen  float64
	processorRunsTrust float64
	processorRunsCount float64
}

// TestLoad sends a mix of foreign spans and valid, forged and malformed runs
// (package loadgen) through the sample configuration, then through the same
// pipeline without the testresults processor, and checks in the file
// exporter's output that every accepted span arrived once, with every event,
// and every flag as package testrun's rules say. It logs what was sent and
// received, the collector's CPU time and peak RSS, and their ratio between
// the two pipelines.
func TestLoad(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	rate, d := loadSettings(t)
	g, err := loadgen.NewGenerator()
	require.NoError(t, err)

	sample, err := os.ReadFile(filepath.Join(repoRoot(t), "otelcol-testresults.yaml"))
	require.NoError(t, err)
	const withProcessor = "processors: [memory_limiter, testresults]"
	require.Equal(t, 1, strings.Count(string(sample), withProcessor), "the sample's pipeline")
	baseline := filepath.Join(t.TempDir(), "baseline.yaml")
	require.NoError(t, os.WriteFile(baseline, []byte(strings.Replace(string(sample), withProcessor, "processors: [memory_limiter]", 1)), 0o600))

	with := runLoad(t, bin, g, "", sampleRules, rate, d)
	without := runLoad(t, bin, g, baseline, nil, rate, d)

	for _, r := range []loadRun{with, without} {
		t.Logf("%-17s sent %d spans in %d requests (%.0f spans/s), accepted %d, refused %d; received %d spans (%d duplicates), %d events (read back and checked within %s of the last answer); collector CPU %s (%.2f cores), peak RSS %.1f MiB",
			r.name, r.sent.SentSpans, r.sent.Requests, r.sent.Rate(), r.sent.AcceptedSpans, r.sent.RefusedSpans,
			r.received, r.dupes, r.events, r.drain.Round(time.Millisecond), r.cpu, r.cpu.Seconds()/r.sent.Elapsed.Seconds(), float64(r.peakRSS)/(1<<20))
	}
	t.Logf("with/without the processor: CPU %.2f×, peak RSS %.2f×",
		with.cpu.Seconds()/without.cpu.Seconds(), float64(with.peakRSS)/float64(without.peakRSS))
	t.Logf("runs on listed spans: %d (trusted %d, counted %d); the processor's counters: seen %.0f, trusted %.0f, counted %.0f",
		with.tally.seen, with.tally.trusted, with.tally.counted, with.processorRunsSeen, with.processorRunsTrust, with.processorRunsCount)

	for _, r := range []loadRun{with, without} {
		assert.Zero(t, r.problems, "%s: spans that differ from the rules: %d, first: %v", r.name, r.problems, r.firstProblems)
		assert.Equal(t, r.sent.SentSpans, r.sent.AcceptedSpans, "%s: refused: %v (%s)", r.name, r.sent.Errors, r.sent.FirstError)
		assert.Equal(t, r.sent.AcceptedSpans, r.received, "%s: accepted vs received", r.name)
		assert.Zero(t, r.dupes, r.name)
	}
	// The processor saw every run on a listed span, and trusted and
	// counted exactly those the rules say.
	assert.Equal(t, float64(with.tally.seen), with.processorRunsSeen)
	assert.Equal(t, float64(with.tally.trusted), with.processorRunsTrust)
	assert.Equal(t, float64(with.tally.counted), with.processorRunsCount)
	assert.Positive(t, with.tally.trusted)
	assert.Positive(t, with.tally.counted)
	assert.Less(t, with.tally.counted, with.tally.seen)
}

// runLoad starts a collector (the sample configuration, or config when not
// empty), sends the load, waits for every accepted span in the output, and
// checks each against what was sent.
func runLoad(t *testing.T, bin string, g *loadgen.Generator, config string, rules *pipelineRules, rate int, d time.Duration) loadRun {
	t.Helper()
	spec := sampleSpec(t, t.TempDir())
	r := loadRun{name: "sample"}
	if config != "" {
		spec.config = config
		r.name = "sample, no processor"
	}
	c := launch(t, bin, spec)
	pid := c.cmd.Process.Pid
	cpu0 := procCPU(t, pid)

	ctx, cancel := context.WithTimeout(context.Background(), d+time.Minute)
	defer cancel()
	res, err := loadgen.Send(ctx, g, loadgen.Config{Endpoint: c.otlp, Rate: rate, Duration: d, Batch: 100, Workers: 4})
	require.NoError(t, err)
	r.sent = res
	answered := time.Now()

	variants := g.Variants()
	seen := make([]uint8, res.SentSpans)
	out := &tail{path: c.output}
	check := func() {
		for _, td := range out.read(t) {
			for i := 0; i < td.ResourceSpans().Len(); i++ {
				rs := td.ResourceSpans().At(i)
				service := ""
				if v, ok := rs.Resource().Attributes().Get("service.name"); ok {
					service = v.AsString()
				}
				for j := 0; j < rs.ScopeSpans().Len(); j++ {
					spans := rs.ScopeSpans().At(j).Spans()
					for k := 0; k < spans.Len(); k++ {
						s := spans.At(k)
						seq, ok := loadgen.SeqOf(s)
						if !ok || seq >= uint64(len(seen)) {
							r.problems++
							r.firstProblems = append(r.firstProblems, fmt.Sprintf("a span that was not sent: %s %s", s.Name(), s.SpanID()))
							continue
						}
						if seen[seq] > 0 {
							r.dupes++
						} else {
							r.received++
						}
						seen[seq]++
						r.events += s.Events().Len()
						v := variants[g.VariantOf(seq)]
						if p := checkSpan(s, service, v, rules, &r.tally); len(p) > 0 {
							r.problems++
							if len(r.firstProblems) < 10 {
								r.firstProblems = append(r.firstProblems, fmt.Sprintf("span %d (%s): %s", seq, v.Name, strings.Join(p, "; ")))
							}
						}
					}
				}
			}
		}
	}
	deadline := time.Now().Add(time.Minute + d)
	for r.received < res.AcceptedSpans && time.Now().Before(deadline) {
		check()
		if r.received < res.AcceptedSpans {
			time.Sleep(50 * time.Millisecond)
		}
	}
	r.drain = time.Since(answered)
	r.cpu = procCPU(t, pid) - cpu0
	r.peakRSS = procPeakRSS(t, pid)
	if rules != nil {
		metrics := scrape(t, c.metricsURL)
		r.processorRunsSeen = metricValue(metrics, "otelcol_processor_testresults_runs_seen")
		r.processorRunsTrust = metricValue(metrics, "otelcol_processor_testresults_runs_trusted")
		r.processorRunsCount = metricValue(metrics, "otelcol_processor_testresults_runs_counted")
	}
	c.stop(t)
	check() // anything written at shutdown would be a duplicate or a stranger
	for seq, accepted := range res.Accepted {
		if accepted && seen[seq] == 0 && len(r.firstProblems) < 10 {
			r.firstProblems = append(r.firstProblems, fmt.Sprintf("span %d accepted but not received", seq))
		}
	}
	return r
}
