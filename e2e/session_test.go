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

// TestCollectorSession sends session exports with the testresults CLI, one
// from the verifier and one from the agent claiming a base run, and checks
// that the collector recomputes the flags of the runs on session.turn spans
// (listed in the test configuration's span_names) and leaves the session
// span alone.
func TestCollectorSession(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	c := startCollector(t, bin)

	for _, e := range []struct{ service, session, file string }{
		{verifier, "e2e-session-verifier", "after-turn.json"},
		{agent, "e2e-session-agent", "forged-base.json"},
	} {
		runCLI(t, cli, e.service, []string{"export", "--session", e.session, "--turn", "1",
			"--otlp-endpoint", c.otlp, "--otlp-insecure", filepath.Join("testdata", e.file)})
	}

	type found struct {
		service string
		span    ptrace.Span
	}
	collect := func(batches []ptrace.Traces) (turns map[string]found, roots int) {
		turns = map[string]found{}
		for _, td := range batches {
			forEachSpan(td, func(service string, s ptrace.Span) {
				switch s.Name() {
				case semconv.SpanSession:
					roots++
				case semconv.SpanTurn:
					id, _ := s.Attributes().Get(string(semconv.SessionIDKey))
					turns[id.AsString()] = found{service, s}
				}
			})
		}
		return turns, roots
	}
	batches := waitOutput(t, c, 30*time.Second, func(batches []ptrace.Traces) bool {
		turns, roots := collect(batches)
		return len(turns) == 2 && roots == 2
	})
	turns, _ := collect(batches)

	for session, want := range map[string]struct {
		service          string
		trusted, counted bool
	}{
		"e2e-session-verifier": {verifier, true, true},
		"e2e-session-agent":    {agent, false, false},
	} {
		got, ok := turns[session]
		require.True(t, ok, "turn span of %s did not arrive", session)
		assert.Equal(t, want.service, got.service)
		run := got.span.Events().At(0)
		require.Equal(t, semconv.EventTestRun, run.Name())
		assert.Equal(t, []any{want.trusted}, values(run.Attributes(), keyTrusted), "%s: trusted", session)
		assert.Equal(t, []any{want.counted}, values(run.Attributes(), keyCounted), "%s: counted", session)
		assert.Equal(t, []any{want.trusted}, values(got.span.Attributes(), keyTrusted), "%s: span trusted", session)
	}
}
