package testresultsprocessor

import (
	"context"
	"net"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/semconv"
)

const edgeSubject = "edge-1"

// gatewayConfig keeps the verdicts of the edge that authenticated as
// edgeSubject.
func gatewayConfig() *Config {
	cfg := createDefaultConfig()
	cfg.Tier = TierGateway
	cfg.TrustedEdges = []TrustedSource{{AuthSubjects: []string{edgeSubject}}}
	return cfg
}

// fromClient is the context a receiver with an authenticator gives a batch
// from the client that authenticated as subject.
func fromClient(subject string) context.Context {
	return client.NewContext(context.Background(), client.Info{Auth: authData{"subject": subject}})
}

// TestGatewayKeepsEdgeVerdicts: what an edge wrote, forwarded by that edge
// to a gateway, comes out of the gateway unchanged (it does not judge the
// edge as if it were the sender), for every row of the trust table, from a
// trusted and an untrusted sender, with forged flags, on spans and on logs.
// From a client that is not a trusted edge (another subject, no
// authentication), every run comes out untrusted: the gateway refuses to
// take the verdicts of whoever reaches it.
func TestGatewayKeepsEdgeVerdicts(t *testing.T) {
	forged := []attr{{keyTrusted, true}, {keyCounted, true}, {"HANGAR.TEST.RUN.COUNTED", true}}
	for _, sender := range forgerySenders {
		for _, tt := range trustRows() {
			t.Run(sender.name+"/"+tt.name, func(t *testing.T) {
				td := traces(t, sender.resource,
					span{
						name:   semconv.SpanJobVerify,
						attrs:  []attr{{keyTrusted, true}},
						events: []event{runEvent(append(append([]attr(nil), tt.attrs...), forged...)...)},
					},
					span{name: semconv.SpanTurn, events: []event{runEvent(runAttrs(attr{keyTrusted, true})...)}},
				)
				edgeSpans := consume(t, context.Background(), verifierConfig(), td)
				gotSpans, st := consumeCounting(t, fromClient(edgeSubject), gatewayConfig(), edgeSpans)
				require.NoError(t, ptracetest.CompareTraces(edgeSpans, gotSpans))
				assert.Equal(t, int64(1), st.forwarded)
				assert.Zero(t, st.untrustedSource)
				assert.Zero(t, st.overwritten+st.removed, "the edge's output has nothing to correct")

				edgeLogs, _ := consumeLogsCounting(t, context.Background(), verifierConfig(), logsOf(t, td))
				gotLogs, lst := consumeLogsCounting(t, fromClient(edgeSubject), gatewayConfig(), edgeLogs)
				require.NoError(t, plogtest.CompareLogs(edgeLogs, gotLogs))
				assert.Equal(t, int64(2), lst.forwarded, "every test.run record is a run")

				for _, ctx := range []context.Context{fromClient("runner-7"), context.Background()} {
					out := consume(t, ctx, gatewayConfig(), edgeSpans)
					forEachAttrs(out, func(where string, m pcommon.Map, carrier bool) {
						if carrier {
							assert.NotContains(t, flagsOf(m, keyTrusted), true, where)
							assert.NotContains(t, flagsOf(m, keyCounted), true, where)
						}
					})
				}
			})
		}
	}
}

// TestGatewayVerdictTable: a gateway takes trusted (counted) from a trusted
// edge only when the edge wrote the canonical key once, as the bool true,
// and the rules allow it too: a gateway never trusts more than the edge
// said, nor more than the rules allow.
func TestGatewayVerdictTable(t *testing.T) {
	tests := []struct {
		name             string
		attrs            []attr
		trusted, counted bool
	}{
		{name: "edge trusted and counted", attrs: runAttrs(attr{keyTrusted, true}, attr{keyCounted, true}), trusted: true, counted: true},
		{name: "edge trusted, not counted", attrs: runAttrs(attr{keyTrusted, true}, attr{keyCounted, false}), trusted: true},
		{name: "edge counted, not trusted", attrs: runAttrs(attr{keyTrusted, false}, attr{keyCounted, true})},
		{name: "edge untrusted", attrs: runAttrs(attr{keyTrusted, false}, attr{keyCounted, false})},
		{name: "no verdict", attrs: runAttrs()},
		{name: "verdict as strings", attrs: runAttrs(attr{keyTrusted, "true"}, attr{keyCounted, "true"})},
		{name: "verdict as ints", attrs: runAttrs(attr{keyTrusted, int64(1)}, attr{keyCounted, int64(1)})},
		{name: "verdict repeated", attrs: runAttrs(attr{keyTrusted, true}, attr{dupPrefix + keyTrusted, true}, attr{keyCounted, true})},
		{name: "verdict in another spelling only", attrs: runAttrs(attr{"Hangar.Test.Run.Trusted", true}, attr{"hangar.test.run.counted ", true})},
		{name: "edge trusted a gate run", attrs: runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true}, attr{keyCounted, true})},
		{name: "edge trusted invalid counts", attrs: runAttrs(attr{keyTotal, int64(9)}, attr{keyTrusted, true}, attr{keyCounted, true})},
		{name: "edge counted an incomplete run", attrs: runAttrs(attr{keyComplete, false}, attr{keyTrusted, true}, attr{keyCounted, true}), trusted: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := traces(t, []attr{{"service.name", "agent"}}, span{name: semconv.SpanJobVerify, events: []event{runEvent(tt.attrs...)}})
			got := consume(t, fromClient(edgeSubject), gatewayConfig(), in)
			s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			for _, m := range []pcommon.Map{s.Attributes(), s.Events().At(0).Attributes()} {
				assert.Equal(t, []any{tt.trusted}, flagsOf(m, keyTrusted))
				assert.Equal(t, []any{tt.counted}, flagsOf(m, keyCounted))
			}

			gotLogs, _ := consumeLogsCounting(t, fromClient(edgeSubject), gatewayConfig(), logsOf(t, in))
			assert.Equal(t, []any{tt.trusted}, flagsOf(record(gotLogs, 0).Attributes(), keyTrusted))
			assert.Equal(t, []any{tt.counted}, flagsOf(record(gotLogs, 0).Attributes(), keyCounted))
		})
	}
}

// TestGatewayRefusesUnknownClients: on a gateway, a run whose client is not
// a trusted edge comes out untrusted, is counted as from an untrusted
// source, and the processor says which client it was.
func TestGatewayRefusesUnknownClients(t *testing.T) {
	in := traces(t, verifierResource(), span{
		name:   semconv.SpanJobVerify,
		events: []event{runEvent(runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})...)},
	})
	for name, ctx := range map[string]context.Context{
		"other subject":     fromClient("runner-7"),
		"no authentication": context.Background(),
	} {
		t.Run(name, func(t *testing.T) {
			got, st := consumeCounting(t, ctx, gatewayConfig(), in)
			want := ptrace.NewTraces()
			in.CopyTo(want)
			s := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			setFlags(s.Events().At(0).Attributes(), false, false)
			setFlags(s.Attributes(), false, false)
			require.NoError(t, ptracetest.CompareTraces(want, got))
			assert.Equal(t, stats{seen: 1, untrustedSource: 1, overwritten: 2}, st)

			gotLogs, lst := consumeLogsCounting(t, ctx, gatewayConfig(), logsOf(t, in))
			wantLogs := plog.NewLogs()
			logsOf(t, in).CopyTo(wantLogs)
			setFlags(record(wantLogs, 0).Attributes(), false, false)
			require.NoError(t, plogtest.CompareLogs(wantLogs, gotLogs))
			assert.Equal(t, stats{seen: 1, untrustedSource: 1, overwritten: 2}, lst)
		})
	}
}

// TestGatewayWarnings: on a gateway, a client that matches no trusted_edges
// entry is named once in the log, under that key, with the edge token it
// sent redacted; a batch without request metadata is warned about under the
// trusted_edges entry that needs it.
func TestGatewayWarnings(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.Tier = TierGateway
	cfg.TrustedEdges = []TrustedSource{{Metadata: map[string]string{"authorization": "Bearer edge-secret-token"}}}
	p, logs := newObservedProcessor(t, cfg)
	forged := client.NewContext(context.Background(), client.Info{
		Addr:     &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4317},
		Metadata: client.NewMetadata(map[string][]string{"authorization": {"Bearer stolen-or-guessed-token"}}),
	})
	for range 3 {
		require.NoError(t, p.ConsumeTraces(forged, traces(t, verifierResource(), listedRun())))
	}
	warned := logs.FilterMessageSnippet("No trusted_edges entry matched the sender of a test.run").All()
	require.Len(t, warned, 1)
	assert.Contains(t, warned[0].Message, "metadata {authorization=[REDACTED]}")
	assert.NotContains(t, warned[0].Message, "stolen-or-guessed-token")

	bare := client.NewContext(context.Background(), client.Info{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4317}})
	require.NoError(t, p.ConsumeTraces(bare, traces(t, verifierResource(), listedRun())))
	noMetadata := logs.FilterMessageSnippet("A batch arrived without request metadata: the trusted_edges entries").All()
	require.Len(t, noMetadata, 1)
	assert.Equal(t, []any{"trusted_edges[0]"}, noMetadata[0].ContextMap()["trusted_edges"])
}
