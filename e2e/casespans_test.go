package e2e

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/semconv"
)

// TestCollectorCaseSpans parses a real pytest report and sends it through
// the built collector with --case-spans failed: the job.verify span arrives
// with the flags the processor computed, and one child span per failing or
// flaky test arrives beside it, unchanged and carrying no trust flag.
func TestCollectorCaseSpans(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	c := startCollector(t, bin)

	report := filepath.Join("..", "testdata", "runners", "pytest", "reports", "pytest-xunit2.xml")
	runCLI(t, cli, verifier, []string{"parse", "-q", "--kind", "after_turn", "--command", "python3 -m pytest -q",
		"--started-at", "2026-11-30T10:00:00Z", "--ended-at", "2026-11-30T10:00:04Z",
		"--export", "--job", "e2e-case-spans", "--case-spans", "failed",
		"--otlp-endpoint", c.otlp, "--otlp-insecure", report})

	// pytest-xunit2.xml holds 5 failures and 1 error, none flaky.
	const cases = 6
	var job ptrace.Span
	var children []ptrace.Span
	collect := func(batches []ptrace.Traces) {
		children = children[:0]
		job = ptrace.NewSpan()
		for _, td := range batches {
			forEachSpan(td, func(_ string, s ptrace.Span) {
				if id, ok := s.Attributes().Get(string(semconv.JobIDKey)); ok && id.Str() == "e2e-case-spans" {
					job = s
				}
			})
		}
		for _, td := range batches {
			forEachSpan(td, func(_ string, s ptrace.Span) {
				if !job.SpanID().IsEmpty() && s.ParentSpanID() == job.SpanID() {
					children = append(children, s)
				}
			})
		}
	}
	batches := waitOutput(t, c, 30*time.Second, func(batches []ptrace.Traces) bool {
		collect(batches)
		return len(children) == cases
	})
	collect(batches)

	require.Equal(t, semconv.SpanJobVerify, job.Name())
	assert.Equal(t, []any{true}, values(job.Attributes(), keyTrusted), "the processor trusts the verifier's run")
	require.Len(t, children, cases)
	for _, s := range children {
		name, ok := s.Attributes().Get(string(semconv.TestCaseNameKey))
		require.True(t, ok)
		assert.Equal(t, name.Str(), s.Name())
		assert.Equal(t, job.TraceID(), s.TraceID())
		assert.Equal(t, ptrace.StatusCodeError, s.Status().Code(), s.Name())
		assert.Empty(t, values(s.Attributes(), keyTrusted), "a case span carries no trust flag")
		assert.False(t, s.EndTimestamp().AsTime().Before(s.StartTimestamp().AsTime()))
	}
}
