package exporter_test

import (
	"context"
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// bigSession is a session of 12 turns that takes several requests of
// smallRequest bytes.
func bigSession(t *testing.T) translate.Session {
	turns := make([]translate.Turn, 12)
	for i := range turns {
		turns[i] = translate.Turn{Number: i + 1, Runs: []*testrun.Run{manyFailures(t, 20, 512)}}
	}
	return translate.Session{ID: "big", Turns: turns}
}

// smallRequest splits bigSession into requests of about five turns.
const smallRequest = 96 << 10

// firstThen is a consumer that passes the first request to sink and fails
// every later one with err.
func firstThen(sink *consumertest.TracesSink, err error) consumer.Traces {
	var n atomic.Int32
	c, _ := consumer.NewTraces(func(ctx context.Context, td ptrace.Traces) error {
		if n.Add(1) > 1 {
			return err
		}
		return sink.ConsumeTraces(ctx, td)
	})
	return c
}

// TestExportPartial: a session export whose later requests fail says how
// many spans and runs were delivered and how many were not; a refusal no
// retry can change fails at once, one that may pass later is retried until
// the timeout.
func TestExportPartial(t *testing.T) {
	clearOTelEnv(t)
	session := bigSession(t)
	for _, tc := range []struct {
		name      string
		err       error
		permanent bool
		within    time.Duration
	}{
		{name: "refused for good", err: status.Error(codes.InvalidArgument, "refused"), permanent: true, within: 4 * time.Second},
		{name: "unavailable until the timeout", err: status.Error(codes.Unavailable, "busy"), within: 5 * time.Second},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := new(consumertest.TracesSink)
			addr := startReceiver(t, firstThen(sink, tc.err))
			start := time.Now()
			err := exportSession(context.Background(), session, exporter.Options{Getenv: noEnv, MaxRequestBytes: smallRequest,
				OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 2 * time.Second}})
			elapsed := time.Since(start)
			var ee *exporter.ExportError
			require.ErrorAs(t, err, &ee)
			delivered := sink.SpanCount()
			require.Positive(t, delivered)
			assert.Equal(t, 13, ee.Spans, "the session span and 12 turns")
			assert.Equal(t, 12, ee.Runs)
			assert.Equal(t, delivered, ee.SentSpans)
			assert.Equal(t, delivered-1, ee.SentRuns, "every turn span delivered carries one run")
			assert.Less(t, ee.SentSpans, ee.Spans)
			assert.Contains(t, err.Error(), "exporter: partial export: ")
			assert.Equal(t, tc.permanent, errors.Is(err, exporter.ErrPermanent))
			var de *exporter.DeliveryError
			require.ErrorAs(t, err, &de)
			if tc.permanent {
				assert.Equal(t, 1, de.Attempts, "not retried")
			} else {
				assert.Greater(t, de.Attempts, 1, "retried")
			}
			assert.Less(t, elapsed, tc.within)
			t.Logf("%s: %v after %s", tc.name, err, elapsed)
		})
	}
}

// plainTCP listens on 127.0.0.1 and answers whatever comes with an HTTP/1.1
// error, as a server that speaks no TLS does.
func plainTCP(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				_ = c.SetDeadline(time.Now().Add(5 * time.Second))
				buf := make([]byte, 512)
				if _, err := c.Read(buf); err != nil {
					return
				}
				_, _ = io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
			})
		}
	})
	return l.Addr().String()
}

// refusingServer is an OTLP/gRPC trace service that answers every request
// with one status.
type refusingServer struct {
	ptraceotlp.UnimplementedGRPCServer
	err error
}

func (s *refusingServer) Export(context.Context, ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	return ptraceotlp.NewExportResponse(), s.err
}

// warningServer is an OTLP/gRPC trace service that accepts every request
// whole with a warning (a partial success that rejects nothing), keeping
// the spans in sink.
type warningServer struct {
	ptraceotlp.UnimplementedGRPCServer
	sink *consumertest.TracesSink
}

func (s *warningServer) Export(ctx context.Context, req ptraceotlp.ExportRequest) (ptraceotlp.ExportResponse, error) {
	if err := s.sink.ConsumeTraces(ctx, req.Traces()); err != nil {
		return ptraceotlp.NewExportResponse(), err
	}
	resp := ptraceotlp.NewExportResponse()
	resp.PartialSuccess().SetErrorMessage("attribute values were truncated")
	return resp, nil
}

// TestWarningIsDelivered: a receiver's warning (a partial success that
// rejected no span) is a delivery, as the OTLP specification has it: every
// request of the export goes out and the export succeeds.
func TestWarningIsDelivered(t *testing.T) {
	clearOTelEnv(t)
	session := bigSession(t)
	sink := new(consumertest.TracesSink)
	addr := grpcServer(t, func(s *grpc.Server) { ptraceotlp.RegisterGRPCServer(s, &warningServer{sink: sink}) })
	err := exportSession(context.Background(), session, exporter.Options{Getenv: noEnv, MaxRequestBytes: smallRequest,
		OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 5 * time.Second}})
	require.NoError(t, err)
	assert.Equal(t, 13, sink.SpanCount(), "the session span and 12 turns, over several requests")
	assert.Greater(t, len(sink.AllTraces()), 1)
}

// TestRequestBytesBoundEvents: a lower MaxRequestBytes (a receiver with a
// lower max_recv_msg_size_mib) also bounds one run's events: every request
// fits, and the events left out are counted on the run's event.
func TestRequestBytesBoundEvents(t *testing.T) {
	clearOTelEnv(t)
	const limit = 1 << 20
	sink := new(consumertest.TracesSink)
	addr := startReceiver(t, sink)
	run := manyFailures(t, 20000, 64)
	err := exportRuns(context.Background(), []*testrun.Run{run}, exporter.Options{Getenv: noEnv, MaxRequestBytes: limit,
		MaxCaseEvents: 20000, OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 10 * time.Second}})
	require.NoError(t, err)
	var sizer ptrace.ProtoMarshaler
	for _, td := range sink.AllTraces() {
		assert.LessOrEqual(t, sizer.TracesSize(td), limit, "one request")
	}
	require.Equal(t, 1, sink.SpanCount())
	span := sink.AllTraces()[0].ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	var omitted int64
	for i := 0; i < span.Events().Len(); i++ {
		if ev := span.Events().At(i); ev.Name() == "test.run" {
			v, ok := ev.Attributes().Get("hangar.test.case_events.omitted")
			require.True(t, ok, "the run says events were left out")
			omitted = v.Int()
		}
	}
	assert.Equal(t, int64(20000), omitted+int64(span.Events().Len()-1), "every failure is an event or counted as omitted")
	assert.Positive(t, omitted)
}

// grpcServer serves register's services on 127.0.0.1.
func grpcServer(t *testing.T, register func(*grpc.Server)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	s := grpc.NewServer()
	register(s)
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

// TestPermanentErrorsFailFast: what no retry can change fails at once, with
// a hint, instead of being retried for the whole 10 s timeout.
func TestPermanentErrorsFailFast(t *testing.T) {
	clearOTelEnv(t)
	runs := []*testrun.Run{readRun(t, "failures/run.json")}
	refusing := func(code codes.Code) func(t *testing.T) string {
		return func(t *testing.T) string {
			return grpcServer(t, func(s *grpc.Server) {
				ptraceotlp.RegisterGRPCServer(s, &refusingServer{err: status.Error(code, "no")})
			})
		}
	}
	for _, tc := range []struct {
		name     string
		addr     func(t *testing.T) string
		insecure bool
		hint     string
	}{
		{name: "TLS to a plain TCP port", addr: plainTCP, hint: "--otlp-insecure"},
		{name: "TLS to a plaintext OTLP receiver", addr: func(t *testing.T) string {
			return startReceiver(t, new(consumertest.TracesSink))
		}, hint: "--otlp-insecure"},
		{name: "Unimplemented", addr: func(t *testing.T) string { return grpcServer(t, func(*grpc.Server) {}) }, insecure: true, hint: "--protocol"},
		{name: "InvalidArgument", addr: refusing(codes.InvalidArgument), insecure: true},
		{name: "PermissionDenied", addr: refusing(codes.PermissionDenied), insecure: true, hint: "--otlp-header"},
		{name: "Unauthenticated", addr: refusing(codes.Unauthenticated), insecure: true, hint: "--otlp-header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := tc.addr(t)
			start := time.Now()
			err := exportRuns(context.Background(), runs, exporter.Options{Getenv: noEnv,
				OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: tc.insecure, Timeout: 10 * time.Second}})
			elapsed := time.Since(start)
			require.ErrorIs(t, err, exporter.ErrPermanent)
			var de *exporter.DeliveryError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, 1, de.Attempts)
			assert.Contains(t, err.Error(), "exporter: nothing delivered (1 span, 1 run): OTLP/gRPC "+addr+" refused the request (not retried)")
			assert.Contains(t, err.Error(), tc.hint)
			assert.Less(t, elapsed, 5*time.Second, "a permanent error is not retried for the 10 s timeout")
			t.Logf("%s: failed after %s: %v", tc.name, elapsed, err)
		})
	}
}

// TestReceiverRestartedMidExport: the receiver stops after the first of
// several requests and comes back on the same port while the export
// retries; every span arrives, within the timeout.
func TestReceiverRestartedMidExport(t *testing.T) {
	clearOTelEnv(t)
	session := bigSession(t)
	addr := testnet.FreeAddr(t)
	first := new(consumertest.TracesSink)
	firstDone := make(chan struct{})
	var once sync.Once
	var took atomic.Bool
	next, _ := consumer.NewTraces(func(ctx context.Context, td ptrace.Traces) error {
		// The first request only is taken; one that comes on it before
		// the stop (a loaded machine may send them all at once) is
		// refused as a receiver going down refuses it, to be retried.
		if !took.CompareAndSwap(false, true) {
			return errors.New("the receiver is stopping")
		}
		// Counted before the stop is signalled, so a stop that cuts the
		// handler short cannot leave the first request uncounted.
		err := first.ConsumeTraces(ctx, td)
		once.Do(func() { close(firstDone) })
		return err
	})
	r1 := startReceiverAt(t, addr, next)
	second := new(consumertest.TracesSink)
	restarted := make(chan error, 1)
	go func() {
		<-firstDone
		// Stop while the export is under way, stay down a while, come back.
		err := r1.Shutdown(context.Background())
		time.Sleep(500 * time.Millisecond)
		restarted <- err
	}()
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		done <- exportSession(context.Background(), session, exporter.Options{Getenv: noEnv, MaxRequestBytes: smallRequest,
			OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 20 * time.Second}})
	}()
	select {
	case err := <-restarted:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the first request never arrived")
	}
	r2 := startReceiverAt(t, addr, second)
	t.Cleanup(func() { require.NoError(t, r2.Shutdown(context.Background())) })
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("the export did not end")
	}
	t.Logf("delivered across a restart in %s: %d spans before, %d after", time.Since(start), first.SpanCount(), second.SpanCount())
	assert.Positive(t, first.SpanCount())
	assert.Positive(t, second.SpanCount())
	assert.Equal(t, 13, first.SpanCount()+second.SpanCount())
}
