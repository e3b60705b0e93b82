package testresultsprocessor

import (
	"context"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hangar-dev/testresults/semconv"
)

const untrustedPhrase = "No trusted_sources entry matched the sender of a test.run"

// untrustedLogs returns the warnings about untrusted senders among logs.
func untrustedLogs(logs *observer.ObservedLogs) []observer.LoggedEntry {
	return logs.FilterMessageSnippet(untrustedPhrase).All()
}

// clientInfoLogs returns every other entry.
func clientInfoLogs(logs *observer.ObservedLogs) []observer.LoggedEntry {
	return logs.Filter(func(e observer.LoggedEntry) bool { return !strings.Contains(e.Message, untrustedPhrase) }).All()
}

func senderResource(name string) []attr {
	return []attr{{string(semconv.ServiceNameKey), name}}
}

func listedRun() span {
	return span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}}
}

// TestWarnUntrustedSender: runs from a sender that matches no entry are
// warned about once for each distinct sender, however many batches it
// sends, naming the values the entries look at; a trusted sender, and an
// untrusted one that sends no test.run, are never warned about.
func TestWarnUntrustedSender(t *testing.T) {
	cfg := verifierConfig()
	p, logs := newObservedProcessor(t, cfg)
	ctx := context.Background()
	for i := range 25 {
		require.NoError(t, p.ConsumeTraces(ctx, traces(t, senderResource("gate-agent"), listedRun())))
		require.NoError(t, p.ConsumeTraces(ctx, traces(t, verifierResource(), listedRun())))
		require.NoError(t, p.ConsumeTraces(ctx, traces(t, senderResource("grader-low"), span{name: "HTTP GET"}, listedRun(), listedRun())))
		// No test.run: a listed span without runs, and foreign spans.
		require.NoError(t, p.ConsumeTraces(ctx, traces(t, senderResource("quiet"),
			span{name: semconv.SpanJobVerify}, span{name: "HTTP GET", events: []event{runEvent(runAttrs()...)}})))
		if i == 0 {
			require.Len(t, untrustedLogs(logs), 2, "both untrusted senders, at their first batch")
		}
	}
	got := logs.All()
	require.Len(t, got, 2, "one warning per untrusted sender, nothing else")
	for _, e := range got {
		assert.Equal(t, zapcore.WarnLevel, e.Level)
	}
	assert.Equal(t, untrustedPhrase+`, so its runs come out untrusted: resource attributes {service.name="gate-agent"}. `+
		"Each such run is counted in otelcol_processor_testresults_runs_untrusted_source; this sender is not named again by this processor.",
		got[0].Message)
	assert.Contains(t, got[1].Message, `resource attributes {service.name="grader-low"}`)

	// A fresh instance warns again: the warnings are per instance.
	p2, logs2 := newObservedProcessor(t, cfg)
	require.NoError(t, p2.ConsumeTraces(ctx, traces(t, senderResource("gate-agent"), listedRun())))
	assert.Len(t, untrustedLogs(logs2), 1)
}

// TestWarnUntrustedSenderNames: the warning names what the entries look at,
// as the sender gave it, redacted, clipped and escaped.
func TestWarnUntrustedSenderNames(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4317}
	withClient := func(auth client.AuthData, md map[string][]string) context.Context {
		return client.NewContext(context.Background(), client.Info{Addr: addr, Auth: auth, Metadata: client.NewMetadata(md)})
	}
	all := []TrustedSource{
		{ResourceAttributes: map[string]string{"service.name": verifier, "deployment.environment": "ci"}},
		{AuthSubjects: []string{"verifier@ci"}},
		{Metadata: map[string]string{"X-Hangar-Source": "verifier"}, ResourceAttributes: map[string]string{"service.name": verifier}},
	}
	tests := []struct {
		name     string
		sources  []TrustedSource
		ctx      context.Context
		resource []attr
		want     string
	}{
		{
			name: "every criterion, nothing given", sources: all, ctx: context.Background(),
			want: `resource attributes {deployment.environment=none, service.name=none}, auth subject none (no authentication data), metadata {x-hangar-source=none}`,
		},
		{
			name: "every criterion, wrong values", sources: all,
			ctx:      withClient(authData{"subject": "agent@ci"}, map[string][]string{"x-hangar-source": {"agent", "verifier"}}),
			resource: []attr{{"service.name", "agent"}, {"deployment.environment", "ci"}},
			want:     `resource attributes {deployment.environment="ci", service.name="agent"}, auth subject "agent@ci", metadata {x-hangar-source=["agent", "verifier"]}`,
		},
		{
			name: "auth data without the attribute, or not a string", sources: all[1:2],
			ctx:  withClient(authData{"subject": 7}, nil),
			want: `auth subject (not a string)`,
		},
		{
			name: "auth data without the attribute", sources: all[1:2],
			ctx:  withClient(authData{"name": "x"}, nil),
			want: `auth subject none`,
		},
		{
			name: "not a string, repeated", sources: all[:1], ctx: context.Background(),
			resource: []attr{{"service.name", int64(7)}, {dupPrefix + "service.name", "verifier"}, {"deployment.environment", true}},
			want:     `resource attributes {deployment.environment=(bool) "true", service.name=[(int) "7", "verifier"]}`,
		},
		{
			name: "more occurrences than shown", sources: all[2:], resource: senderResource("a"),
			ctx:  withClient(nil, map[string][]string{"x-hangar-source": {"1", "2", "3", "4", "5", "6"}}),
			want: `resource attributes {service.name="a"}, metadata {x-hangar-source=["1", "2", "3", "4", …]}`,
		},
		{
			name: "control characters escaped", sources: all[:1], ctx: context.Background(),
			resource: senderResource("agent\x1b[2J\r\nverifier\u202e"),
			want:     `resource attributes {deployment.environment=none, service.name="agent\x1b[2J\r\nverifier\u202e"}`,
		},
		{
			name: "long value clipped", sources: all[:1], ctx: context.Background(),
			resource: senderResource(strings.Repeat("x", 10_000)),
			want:     `resource attributes {deployment.environment=none, service.name="` + strings.Repeat("x", maxSenderValueRunes-1) + `…"}`,
		},
		{
			name: "secrets redacted", sources: []TrustedSource{{Metadata: map[string]string{"authorization": "Bearer verifier-token-0123456789"}}},
			ctx:  withClient(nil, map[string][]string{"authorization": {"Bearer abcdefghijklmnopqrstuvwxyz0123456789"}}),
			want: `metadata {authorization=[REDACTED]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.TrustedSources = tt.sources
			p, logs := newObservedProcessor(t, cfg)
			for range 3 {
				require.NoError(t, p.ConsumeTraces(tt.ctx, traces(t, tt.resource, listedRun())))
			}
			got := untrustedLogs(logs)
			require.Len(t, got, 1)
			msg := got[0].Message
			prefix := untrustedPhrase + ", so its runs come out untrusted: "
			require.True(t, strings.HasPrefix(msg, prefix), msg)
			desc, _, ok := strings.Cut(msg[len(prefix):], ". Each such run")
			require.True(t, ok, msg)
			assert.Equal(t, tt.want, desc)
			for _, r := range msg {
				assert.False(t, r < 0x20 || r == 0x7f || r == '\u202e', "raw control character %q in %q", r, msg)
			}
		})
	}
}

// TestWarnUntrustedSendersBounded: a sender that changes its values on
// every batch gets at most maxUntrustedSenders warnings, and one more that
// says the rest are only counted.
func TestWarnUntrustedSendersBounded(t *testing.T) {
	p, logs := newObservedProcessor(t, verifierConfig())
	for i := range 3 * maxUntrustedSenders {
		require.NoError(t, p.ConsumeTraces(context.Background(), traces(t, senderResource(fmt.Sprintf("agent-%d", i)), listedRun())))
	}
	got := logs.All()
	require.Len(t, got, maxUntrustedSenders+1)
	for i, e := range got[:maxUntrustedSenders] {
		assert.Contains(t, e.Message, fmt.Sprintf(`service.name="agent-%d"`, i))
	}
	assert.Contains(t, got[maxUntrustedSenders].Message, "later ones are only counted")
}

// TestWarnUntrustedSenderConcurrently: one sender in concurrent batches is
// named once.
func TestWarnUntrustedSenderConcurrently(t *testing.T) {
	p, logs := newObservedProcessor(t, verifierConfig())
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				assert.NoError(t, p.ConsumeTraces(context.Background(), traces(t, senderResource("gate-agent"), listedRun())))
			}
		})
	}
	wg.Wait()
	assert.Len(t, untrustedLogs(logs), 1)
}

// TestWarnUntrustedNone: trusted senders and trust_all_sources give no
// warning.
func TestWarnUntrustedNone(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4317}
	authed := client.NewContext(context.Background(), client.Info{Addr: addr, Auth: authData{"subject": "verifier@ci"}})
	tests := []struct {
		name string
		cfg  func() *Config
		ctx  context.Context
		res  []attr
	}{
		{"resource", verifierConfig, context.Background(), verifierResource()},
		{"auth", func() *Config {
			c := createDefaultConfig()
			c.TrustedSources = []TrustedSource{{AuthSubjects: []string{"verifier@ci"}}}
			return c
		}, authed, senderResource("anything")},
		{"trust all", func() *Config { c := createDefaultConfig(); c.TrustAllSources = true; return c }, context.Background(), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, logs := newObservedProcessor(t, tt.cfg())
			for range 10 {
				require.NoError(t, p.ConsumeTraces(tt.ctx, traces(t, tt.res, listedRun(), listedRun())))
			}
			assert.Zero(t, logs.Len())
		})
	}
}

// TestNoAllocationsUntrustedSender: once a sender was named, its batches
// cost no allocation for the warning.
func TestNoAllocationsUntrustedSender(t *testing.T) {
	set := processortest.NewNopSettings(Type)
	tel, err := newTelemetry(set.TelemetrySettings, set.ID)
	require.NoError(t, err)
	p := newProcessor(verifierConfig(), tel, zap.NewNop())
	td := traces(t, senderResource("gate-agent"), listedRun())
	ctx := context.Background()
	_, _ = p.processTraces(ctx, td) // overwrites the flags, names the sender
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = p.processTraces(ctx, td)
	})
	assert.Zero(t, allocs)
}
