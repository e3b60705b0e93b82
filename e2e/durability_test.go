package e2e

import (
	"context"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/e2e/loadgen"
)

// cliResult is how one run of the CLI ended.
type cliResult struct {
	out  string
	code int
}

// tryCLI runs the CLI and returns its output and exit code, failing the
// test only when it cannot run at all.
func tryCLI(t *testing.T, cli, service string, args []string) cliResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "OTEL_SERVICE_NAME=" + service}
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return cliResult{string(out), exit.ExitCode()}
	}
	require.NoError(t, err, "testresults %s", strings.Join(args, " "))
	return cliResult{string(out), 0}
}

// runIDs returns how many times each run id arrived in the output.
func runIDs(batches []ptrace.Traces) map[string]int {
	runs, _, _ := index(batches)
	out := map[string]int{}
	for id, found := range runs {
		out[id] = len(found)
	}
	return out
}

var crashExports = []cliExport{
	{service: verifier, job: "crash-1", base: true, files: []string{"base.json"}},
	{service: verifier, job: "crash-1", files: []string{"after-turn.json"}},
	{service: verifier, job: "crash-2", files: []string{"gate.json", "rerun-incomplete.json"}},
}

var crashRuns = []string{"e2e-base", "e2e-after-turn", "e2e-gate", "e2e-rerun-incomplete"}

// TestSampleSurvivesKill starts the sample configuration in an empty
// folder (its output folder does not exist yet), sends runs with the CLI,
// kills the collector with SIGKILL as soon as the last export is
// acknowledged, and checks that every acknowledged run is in the file; then
// starts it again in the same folder and checks that it appends instead of
// truncating.
func TestSampleSurvivesKill(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	spec := sampleSpec(t, t.TempDir())
	c := launch(t, bin, spec)
	for _, e := range crashExports {
		exportCLI(t, cli, e, c.otlp)
	}
	c.kill(t)

	got := runIDs(readOutput(t, spec.output))
	for _, id := range crashRuns {
		assert.Equal(t, 1, got[id], "run %s, acknowledged before the kill: %v", id, got)
	}

	c = launch(t, bin, spec)
	exportCLI(t, cli, cliExport{service: verifier, job: "crash-3", files: []string{"attempt.json"}}, c.otlp)
	c.stop(t)
	got = runIDs(readOutput(t, spec.output))
	for _, id := range append(crashRuns, "e2e-attempt-header") {
		assert.Equal(t, 1, got[id], "run %s after the restart: %v", id, got)
	}
}

// forwardSpec is otelcol-testresults-forward.yaml in dir, forwarding to
// backend, with the persistent queue in dir's default state folder.
func forwardSpec(t *testing.T, dir, backend string, env map[string]string) collectorSpec {
	t.Helper()
	spec := sampleSpec(t, dir)
	spec.config = filepath.Join(repoRoot(t), "otelcol-testresults-forward.yaml")
	spec.output = ""
	spec.env["TESTRESULTS_BACKEND"] = backend
	for k, v := range env {
		spec.env[k] = v
	}
	return spec
}

func listening(addr string) bool {
	conn, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}

// TestForwardQueueSurvivesKill: with the backend down, runs the forwarding
// collector acknowledged sit in its persistent queue; it is killed with
// SIGKILL, started again on the same folder, the backend comes up, and every
// acknowledged run reaches the backend's file, once.
func TestForwardQueueSurvivesKill(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	backend := sampleSpec(t, t.TempDir())
	fwd := forwardSpec(t, t.TempDir(), backend.otlp, nil)

	a := launch(t, bin, fwd)
	for _, e := range crashExports {
		exportCLI(t, cli, e, a.otlp)
	}
	require.False(t, listening(backend.otlp), "the backend must still be down")
	a.kill(t)
	state, err := os.ReadDir(filepath.Join(fwd.dir, "_build", "collector-state"))
	require.NoError(t, err)
	require.NotEmpty(t, state, "the persistent queue's files")

	a = launch(t, bin, fwd)
	b := launch(t, bin, backend)
	batches := waitOutput(t, b, time.Minute, func(batches []ptrace.Traces) bool {
		return len(runIDs(batches)) >= len(crashRuns)
	})
	got := runIDs(batches)
	for _, id := range crashRuns {
		assert.Equal(t, 1, got[id], "run %s: %v", id, got)
	}
	a.stop(t)
	b.stop(t)
}

// derived writes a copy of a repository configuration with each old string
// replaced by its new one (each must occur once) and returns its path.
func derived(t *testing.T, name string, replacements ...string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), name))
	require.NoError(t, err)
	text := string(b)
	for i := 0; i+1 < len(replacements); i += 2 {
		require.Equal(t, 1, strings.Count(text, replacements[i]), "%s: %q", name, replacements[i])
		text = strings.Replace(text, replacements[i], replacements[i+1], 1)
	}
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	return p
}

// countSpans counts the generated spans in batches by sequence number.
func countSpans(t *testing.T, batches []ptrace.Traces, n int) (seen []int, strangers int) {
	t.Helper()
	seen = make([]int, n)
	for _, td := range batches {
		forEachSpan(td, func(_ string, s ptrace.Span) {
			seq, ok := loadgen.SeqOf(s)
			if !ok || seq >= uint64(n) {
				strangers++
				return
			}
			seen[seq]++
		})
	}
	return seen, strangers
}

// requireSameSpans checks that exactly the accepted spans arrived, once each.
func requireSameSpans(t *testing.T, res loadgen.Result, seen []int, strangers int) {
	t.Helper()
	require.Zero(t, strangers)
	var lost, extra, dupes []int
	for seq, accepted := range res.Accepted {
		switch {
		case accepted && seen[seq] == 0:
			lost = append(lost, seq)
		case !accepted && seen[seq] > 0:
			extra = append(extra, seq)
		case seen[seq] > 1:
			dupes = append(dupes, seq)
		}
	}
	assert.Empty(t, lost, "accepted but not received")
	assert.Empty(t, extra, "refused but received")
	assert.Empty(t, dupes, "received twice")
}

// TestBackPressure fills the pipeline until it refuses, and checks that the
// client sees every refusal as an error: what the client counts as accepted
// is exactly what reaches the file exporter.
func TestBackPressure(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	g, err := loadgen.NewGenerator()
	require.NoError(t, err)

	t.Run("memory limit", func(t *testing.T) {
		// A limit below the collector's own heap: every request refused.
		config := derived(t, "otelcol-testresults.yaml",
			"    check_interval: 1s\n    limit_percentage: 80\n    spike_limit_percentage: 20\n",
			"    check_interval: 100ms\n    limit_mib: 2\n    spike_limit_mib: 1\n")
		spec := sampleSpec(t, t.TempDir())
		spec.config = config
		c := launch(t, bin, spec)
		time.Sleep(500 * time.Millisecond) // a few checks of the limiter

		r := tryCLI(t, cli, verifier, append(cliExport{job: "refused", files: []string{"after-turn.json"}}.args(),
			"--otlp-endpoint", c.otlp, "--otlp-insecure", "--otlp-timeout", "3s"))
		t.Logf("testresults export, refused (exit %d):\n%s", r.code, r.out)
		assert.NotZero(t, r.code, "an export the collector refused")
		assert.Contains(t, r.out, "memory", "the CLI says why")

		res, err := loadgen.Send(context.Background(), g, loadgen.Config{Endpoint: c.otlp, Rate: 500, Duration: time.Second, Batch: 50, Workers: 2, Timeout: 5 * time.Second})
		require.NoError(t, err)
		t.Logf("memory limit: sent %d, accepted %d, refused %d spans: %v %s", res.SentSpans, res.AcceptedSpans, res.RefusedSpans, res.Errors, res.FirstError)
		assert.Positive(t, res.RefusedRequests)
		c.stop(t)
		seen, strangers := countSpans(t, readOutput(t, c.output), res.SentSpans)
		requireSameSpans(t, res, seen, strangers)
		assert.Empty(t, runIDs(readOutput(t, c.output)), "the refused run")
	})

	t.Run("queue full", func(t *testing.T) {
		// The forwarding configuration with a 4-request queue and its
		// backend down: the queue fills, then the receiver refuses.
		backend := sampleSpec(t, t.TempDir())
		fwd := forwardSpec(t, t.TempDir(), backend.otlp, map[string]string{"TESTRESULTS_QUEUE_SIZE": "4"})
		a := launch(t, bin, fwd)
		res, err := loadgen.Send(context.Background(), g, loadgen.Config{Endpoint: a.otlp, Rate: 400, Duration: 4 * time.Second, Batch: 10, Workers: 1, Timeout: 5 * time.Second})
		require.NoError(t, err)
		t.Logf("queue full: sent %d spans in %d requests, accepted %d (%d requests), refused %d (%d requests): %v %s",
			res.SentSpans, res.Requests, res.AcceptedSpans, res.AcceptedRequests, res.RefusedSpans, res.RefusedRequests, res.Errors, res.FirstError)
		require.Positive(t, res.AcceptedRequests)
		require.Positive(t, res.RefusedRequests, "a full queue must refuse")

		r := tryCLI(t, cli, verifier, append(cliExport{job: "queue-full", files: []string{"gate.json"}}.args(),
			"--otlp-endpoint", a.otlp, "--otlp-insecure", "--otlp-timeout", "3s"))
		t.Logf("testresults export, queue full (exit %d):\n%s", r.code, r.out)
		assert.NotZero(t, r.code, "an export the collector refused")
		assert.Contains(t, r.out, "queue is full", "the CLI says why")

		b := launch(t, bin, backend)
		// Wait for the accepted spans, then read the whole output once the
		// collectors are stopped.
		waitOutput(t, b, time.Minute, func(batches []ptrace.Traces) bool {
			seen, _ := countSpans(t, batches, res.SentSpans)
			n := 0
			for _, c := range seen {
				n += min(c, 1)
			}
			return n >= res.AcceptedSpans
		})
		time.Sleep(time.Second) // anything more would be a refused request or a duplicate
		a.stop(t)
		b.stop(t)
		batches := readOutput(t, b.output)
		seen, strangers := countSpans(t, batches, res.SentSpans)
		requireSameSpans(t, res, seen, strangers)
		assert.Zero(t, runIDs(batches)["e2e-gate"], "the refused run")
	})
}
