package testresultsprocessor

import (
	"context"
	"fmt"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/collector/processor"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"

	"github.com/hangar-dev/testresults/internal/testotlp"
	"github.com/hangar-dev/testresults/semconv"
)

// newObservedProcessor creates the processor through its factory with a
// logger whose entries the test reads.
func newObservedProcessor(t *testing.T, cfg *Config) (processor.Traces, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	set := processortest.NewNopSettings(Type)
	set.Logger = zap.New(core)
	p, err := NewFactory().CreateTraces(context.Background(), set, cfg, consumertest.NewNop())
	require.NoError(t, err)
	return p, logs
}

// TestWarnMissingClientInfo: a configuration whose trusted_sources need
// client information that the batches do not carry is warned about once
// for each cause, at the first batch with a listed span, however many
// batches follow.
func TestWarnMissingClientInfo(t *testing.T) {
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4317}
	noMetadata := client.NewContext(context.Background(), client.Info{Addr: addr})
	withMetadata := client.NewContext(context.Background(), client.Info{
		Addr:     addr,
		Metadata: client.NewMetadata(map[string][]string{"x-hangar-source": {"verifier"}}),
	})
	withAuth := client.NewContext(context.Background(), client.Info{
		Addr: addr,
		Auth: authData{"subject": "verifier@ci"},
	})
	metadataSource := TrustedSource{Metadata: map[string]string{"x-hangar-source": "verifier"}}
	authSource := TrustedSource{AuthSubjects: []string{"verifier@ci"}}
	resourceSource := TrustedSource{ResourceAttributes: map[string]string{"service.name": verifier}}

	listed := span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}}
	foreign := span{name: "HTTP GET"}

	tests := []struct {
		name    string
		sources []TrustedSource
		all     bool
		ctx     context.Context
		spans   []span
		want    []string // a phrase of each warning, in order
		entries [][]any
	}{
		{
			name: "metadata source, receiver without include_metadata", sources: []TrustedSource{resourceSource, metadataSource},
			ctx: noMetadata, spans: []span{listed},
			want: []string{"include_metadata: true"}, entries: [][]any{{"trusted_sources[1]"}},
		},
		{
			name: "metadata source, after batch", sources: []TrustedSource{metadataSource},
			ctx: context.Background(), spans: []span{foreign, listed},
			want: []string{"before the batch processor"}, entries: [][]any{{"trusted_sources[0]"}},
		},
		{
			name: "auth source, after batch", sources: []TrustedSource{resourceSource, authSource},
			ctx: context.Background(), spans: []span{listed},
			want: []string{"before the batch processor"}, entries: [][]any{{"trusted_sources[1]"}},
		},
		{
			name: "auth source, receiver without authenticator", sources: []TrustedSource{authSource},
			ctx: noMetadata, spans: []span{listed},
			want: []string{"auth:"}, entries: [][]any{{"trusted_sources[0]"}},
		},
		{
			name: "both, receiver with neither", sources: []TrustedSource{metadataSource, authSource},
			ctx: noMetadata, spans: []span{listed},
			want:    []string{"include_metadata: true", "auth:"},
			entries: [][]any{{"trusted_sources[0]"}, {"trusted_sources[1]"}},
		},
		{name: "metadata present", sources: []TrustedSource{metadataSource}, ctx: withMetadata, spans: []span{listed}},
		{name: "auth present", sources: []TrustedSource{authSource}, ctx: withAuth, spans: []span{listed}},
		{name: "resource source needs no client", sources: []TrustedSource{resourceSource}, ctx: context.Background(), spans: []span{listed}},
		{name: "trust all", all: true, ctx: context.Background(), spans: []span{listed}},
		{name: "no listed span", sources: []TrustedSource{metadataSource}, ctx: context.Background(), spans: []span{foreign}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.TrustedSources = tt.sources
			cfg.TrustAllSources = tt.all
			p, logs := newObservedProcessor(t, cfg)
			for range 4 {
				require.NoError(t, p.ConsumeTraces(tt.ctx, traces(t, verifierResource(), tt.spans...)))
			}
			got := clientInfoLogs(logs)
			require.Len(t, got, len(tt.want))
			for i, e := range got {
				assert.Equal(t, zapcore.WarnLevel, e.Level)
				assert.Contains(t, e.Message, tt.want[i])
				assert.Equal(t, tt.entries[i], e.ContextMap()["trusted_sources"])
			}
		})
	}
}

// TestWarnOnceConcurrently: batches consumed at the same time still give one
// warning.
func TestWarnOnceConcurrently(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.TrustedSources = []TrustedSource{{Metadata: map[string]string{"x-hangar-source": "verifier"}}}
	p, logs := newObservedProcessor(t, cfg)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 10 {
				td := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}})
				assert.NoError(t, p.ConsumeTraces(context.Background(), td))
			}
		})
	}
	wg.Wait()
	assert.Len(t, clientInfoLogs(logs), 1)
}

// TestWarnBehindRealReceiver puts the processor behind the collector's OTLP
// receiver on 127.0.0.1: without include_metadata the receiver hands on its
// client address but no metadata, which a metadata source is warned about;
// with it, there is nothing to warn about.
func TestWarnBehindRealReceiver(t *testing.T) {
	for _, include := range []bool{false, true} {
		t.Run(fmt.Sprintf("include_metadata=%v", include), func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.TrustedSources = []TrustedSource{{Metadata: map[string]string{"x-hangar-source": "verifier"}}}
			core, logs := observer.New(zapcore.DebugLevel)
			set := processortest.NewNopSettings(Type)
			set.Logger = zap.New(core)
			sink := new(consumertest.TracesSink)
			p, err := NewFactory().CreateTraces(context.Background(), set, cfg, sink)
			require.NoError(t, err)

			addr := testotlp.Start(t, testotlp.Options{IncludeMetadata: include}, p)

			conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
			require.NoError(t, err)
			defer conn.Close()
			c := ptraceotlp.NewGRPCClient(conn)
			for range 3 {
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				ctx = metadata.AppendToOutgoingContext(ctx, "x-hangar-source", "verifier")
				td := traces(t, nil, span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}})
				_, err := c.Export(ctx, ptraceotlp.NewExportRequestFromTraces(td))
				cancel()
				require.NoError(t, err)
			}
			require.Equal(t, 3, sink.SpanCount())
			run := sink.AllTraces()[2].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0)
			assert.Equal(t, []any{include}, flagsOf(run.Attributes(), keyTrusted), "trusted only with the metadata")
			if include {
				assert.Zero(t, logs.Len())
				return
			}
			got := clientInfoLogs(logs)
			require.Len(t, got, 1)
			assert.Contains(t, got[0].Message, "include_metadata: true")
			assert.Len(t, untrustedLogs(logs), 1, "and the sender is named")
		})
	}
}
