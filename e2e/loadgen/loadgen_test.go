package loadgen

import (
	"context"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// keys returns every key of m in order, repetitions included.
func keys(m pcommon.Map) []string {
	var out []string
	m.Range(func(k string, _ pcommon.Value) bool {
		out = append(out, k)
		return true
	})
	return out
}

func TestTracesMatchVariants(t *testing.T) {
	g, err := NewGenerator()
	require.NoError(t, err)
	variants := g.Variants()
	td := g.Traces(1000, 500)
	require.Equal(t, 500, td.SpanCount())

	seen := map[int]int{}
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		service, ok := rs.Resource().Attributes().Get("service.name")
		require.True(t, ok)
		spans := rs.ScopeSpans().At(0).Spans()
		for j := 0; j < spans.Len(); j++ {
			s := spans.At(j)
			seq, ok := SeqOf(s)
			require.True(t, ok)
			require.GreaterOrEqual(t, seq, uint64(1000))
			require.Less(t, seq, uint64(1500))
			v := variants[g.VariantOf(seq)]
			seen[g.VariantOf(seq)]++
			assert.Equal(t, v.Service, service.Str(), v.Name)
			assert.Equal(t, v.Span, s.Name(), v.Name)
			var want []string
			for _, a := range v.Attrs {
				want = append(want, a.Key)
			}
			assert.Equal(t, want, keys(s.Attributes()), "%s: span attributes, repetitions kept", v.Name)
			require.Equal(t, len(v.Events), s.Events().Len(), v.Name)
			for e, ev := range v.Events {
				want = want[:0]
				for _, a := range ev.Attrs {
					want = append(want, a.Key)
				}
				assert.Equal(t, want, keys(s.Events().At(e).Attributes()), "%s: event %d attributes", v.Name, e)
			}
		}
	}
	// 500 spans cover every variant of the cycle (weights add up to less).
	assert.Len(t, seen, len(variants))
}

func TestVariantsSpread(t *testing.T) {
	g, err := NewGenerator()
	require.NoError(t, err)
	total := 0
	for _, v := range g.Variants() {
		total += v.Weight
	}
	counts := map[int]int{}
	for seq := range uint64(total) {
		counts[g.VariantOf(seq)]++
	}
	for i, v := range g.Variants() {
		assert.Equal(t, v.Weight, counts[i], v.Name)
	}
	// No variant fills the first tenth of the cycle on its own.
	first := map[int]bool{}
	for seq := range uint64(total / 10) {
		first[g.VariantOf(seq)] = true
	}
	assert.Greater(t, len(first), 3)
}

func TestSeqOf(t *testing.T) {
	for _, seq := range []uint64{0, 1, 99, 1 << 40} {
		tid, sid := IDs(seq)
		s := ptrace.NewSpan()
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		got, ok := SeqOf(s)
		require.True(t, ok)
		assert.Equal(t, seq, got)
	}
	s := ptrace.NewSpan()
	s.SetTraceID(pcommon.TraceID{1, 2, 3})
	s.SetSpanID(pcommon.SpanID{1})
	_, ok := SeqOf(s)
	assert.False(t, ok, "a span of someone else")
}

func TestConfigChecked(t *testing.T) {
	g, err := NewGenerator()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"not loopback", Config{Endpoint: "10.0.0.1:4317", Rate: 10, Duration: time.Second}},
		{"host name", Config{Endpoint: "example.com:4317", Rate: 10, Duration: time.Second}},
		{"no port", Config{Endpoint: "127.0.0.1", Rate: 10, Duration: time.Second}},
		{"rate 0", Config{Endpoint: "127.0.0.1:4317", Duration: time.Second}},
		{"rate too high", Config{Endpoint: "127.0.0.1:4317", Rate: MaxRate + 1, Duration: time.Second}},
		{"too long", Config{Endpoint: "127.0.0.1:4317", Rate: 10, Duration: MaxDuration + time.Second}},
		{"negative batch", Config{Endpoint: "127.0.0.1:4317", Rate: 10, Duration: time.Second, Batch: -1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Send(context.Background(), g, tc.cfg)
			require.ErrorIs(t, err, ErrConfig)
		})
	}
	_, err = NewGenerator(Variant{Name: "x", Weight: 0, Service: "s", Span: "s"})
	require.ErrorIs(t, err, ErrVariant)
}

// traceServer is an OTLP trace receiver that refuses every second request.
type traceServer struct {
	ptraceotlp.UnimplementedGRPCServer
	n, spans int
	refused  int
}

func (s *traceServer) Export(_ context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	s.n++
	if s.n%2 == 0 {
		s.refused += req.Traces().SpanCount()
		return ptraceotlp.NewExportResponse(), status.Error(codes.Unavailable, "full")
	}
	s.spans += req.Traces().SpanCount()
	return ptraceotlp.NewExportResponse(), nil
}

func TestSendCountsRefusals(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	ts := &traceServer{}
	ptraceotlp.RegisterGRPCServer(srv, ts)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)

	g, err := NewGenerator()
	require.NoError(t, err)
	res, err := Send(context.Background(), g, Config{Endpoint: l.Addr().String(), Rate: 2000, Duration: 500 * time.Millisecond, Batch: 50, Workers: 1})
	require.NoError(t, err)
	srv.GracefulStop()

	assert.Equal(t, 1000, res.SentSpans)
	assert.Equal(t, 20, res.Requests)
	assert.Equal(t, 10, res.RefusedRequests)
	assert.Equal(t, ts.spans, res.AcceptedSpans)
	assert.Equal(t, ts.refused, res.RefusedSpans)
	assert.Equal(t, map[string]int{"Unavailable": 10}, res.Errors)
	assert.Contains(t, res.FirstError, "full")
	accepted := 0
	for _, a := range res.Accepted {
		if a {
			accepted++
		}
	}
	assert.Equal(t, res.AcceptedSpans, accepted)
	assert.InDelta(t, 2000, res.Rate(), 1000)
}

// headerServer records the authorization header and the first span of
// every request.
type headerServer struct {
	ptraceotlp.UnimplementedGRPCServer
	mu     sync.Mutex
	auth   []string
	firsts []uint64
}

func (s *headerServer) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	seq, _ := SeqOf(req.Traces().ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0))
	s.mu.Lock()
	s.auth = append(s.auth, md.Get("authorization")...)
	s.firsts = append(s.firsts, seq)
	s.mu.Unlock()
	return ptraceotlp.NewExportResponse(), nil
}

// TestSendHeadersAndFirst: the configured headers go with every request,
// and a run starting at First sends spans First, First+1, ...
func TestSendHeadersAndFirst(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	srv := grpc.NewServer()
	hs := &headerServer{}
	ptraceotlp.RegisterGRPCServer(srv, hs)
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(srv.Stop)

	g, err := NewGenerator()
	require.NoError(t, err)
	res, err := Send(context.Background(), g, Config{
		Endpoint: l.Addr().String(), Rate: 1000, Duration: 200 * time.Millisecond, Batch: 50, Workers: 1,
		First: 5000, Headers: map[string]string{"authorization": "Bearer t0ken"},
	})
	require.NoError(t, err)
	assert.Equal(t, 200, res.AcceptedSpans)
	assert.Len(t, res.Accepted, 200)
	hs.mu.Lock()
	defer hs.mu.Unlock()
	assert.Equal(t, []string{"Bearer t0ken", "Bearer t0ken", "Bearer t0ken", "Bearer t0ken"}, hs.auth)
	slices.Sort(hs.firsts)
	assert.Equal(t, []uint64{5000, 5050, 5100, 5150}, hs.firsts)
}
