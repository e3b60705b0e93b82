package exporter_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/plogtest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/consumer/consumererror"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// signalReceiver is the collector's OTLP receiver on 127.0.0.1, traces and
// logs on one port, over one protocol.
type signalReceiver struct {
	addr   string
	traces *consumertest.TracesSink
	logs   *consumertest.LogsSink
}

// startSignalReceiver starts it, the logs fed to logs (nil: a sink).
func startSignalReceiver(t *testing.T, http bool, logs consumer.Logs) *signalReceiver {
	t.Helper()
	r := &signalReceiver{addr: testnet.FreeAddr(t), traces: new(consumertest.TracesSink), logs: new(consumertest.LogsSink)}
	if logs == nil {
		logs = r.logs
	}
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	if http {
		cfg.Protocols.HTTP.GetOrInsertDefault().ServerConfig.NetAddr.Endpoint = r.addr
	} else {
		cfg.Protocols.GRPC.GetOrInsertDefault().NetAddr.Endpoint = r.addr
	}
	set := receivertest.NewNopSettings(f.Type())
	// One configuration gives one receiver serving both signals.
	tr, err := f.CreateTraces(context.Background(), set, cfg, r.traces)
	require.NoError(t, err)
	lr, err := f.CreateLogs(context.Background(), set, cfg, logs)
	require.NoError(t, err)
	require.NoError(t, tr.Start(context.Background(), componenttest.NewNopHost()))
	require.NoError(t, lr.Start(context.Background(), componenttest.NewNopHost()))
	t.Cleanup(func() {
		require.NoError(t, lr.Shutdown(context.Background()))
		require.NoError(t, tr.Shutdown(context.Background()))
	})
	return r
}

func (r *signalReceiver) waitRecords(t *testing.T, n int) plog.Logs {
	t.Helper()
	require.Eventually(t, func() bool { return r.logs.LogRecordCount() >= n }, 10*time.Second, 10*time.Millisecond)
	return mergeLogs(r.logs.AllLogs())
}

// mergeLogs puts the records of several requests under the first
// request's resource and scope.
func mergeLogs(all []plog.Logs) plog.Logs {
	out := plog.NewLogs()
	if len(all) == 0 {
		return out
	}
	all[0].ResourceLogs().CopyTo(out.ResourceLogs())
	records := out.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	for _, ld := range all[1:] {
		ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().MoveAndAppendTo(records)
	}
	return out
}

func logsRuns(t *testing.T) []*testrun.Run {
	return []*testrun.Run{readRun(t, "failures/run.json"), readRun(t, "flaky/run.json")}
}

// wantLogs is translate's log form of logsRuns under the export's resource.
func wantLogs(t *testing.T, events translate.Events) (plog.Logs, []translate.Span) {
	t.Helper()
	spans, err := translate.JobSpans(translate.Job{ID: "job-logs"}, logsRuns(t), translate.WithEvents(events))
	require.NoError(t, err)
	res, err := exporter.NewResource(context.Background(), "", noEnv)
	require.NoError(t, err)
	return translate.Logs(spans, res), spans
}

func spanEventCount(td ptrace.Traces) int {
	n := 0
	for _, rs := range td.ResourceSpans().All() {
		for _, ss := range rs.ScopeSpans().All() {
			for _, s := range ss.Spans().All() {
				n += s.Events().Len()
			}
		}
	}
	return n
}

// TestExportEventsOTLP: with log and both, a real OTLP receiver gets the
// log records translate.Logs makes, over gRPC and HTTP (to /v1/logs), after
// the spans; with log the spans carry no event, with both they carry them
// as a span export does.
func TestExportEventsOTLP(t *testing.T) {
	for _, proto := range []exporter.Protocol{exporter.ProtocolGRPC, exporter.ProtocolHTTPProtobuf} {
		for _, events := range []translate.Events{translate.EventsLog, translate.EventsBoth} {
			t.Run(string(proto)+"/"+events.String(), func(t *testing.T) {
				rcv := startSignalReceiver(t, proto == exporter.ProtocolHTTPProtobuf, nil)
				want, spans := wantLogs(t, events)
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				r, err := exporter.ExportRuns(ctx, logsRuns(t), exporter.Options{
					JobID: "job-logs", Events: events, Getenv: noEnv,
					OTLP: exporter.OTLPOptions{Protocol: proto, Endpoint: rcv.addr, Insecure: true},
				})
				require.NoError(t, err)
				assert.Equal(t, want.LogRecordCount(), r.Records)
				assert.Equal(t, 2, r.Runs)
				assert.Equal(t, len(spans), r.Spans)
				if proto == exporter.ProtocolHTTPProtobuf {
					assert.Equal(t, "OTLP/HTTP http://"+rcv.addr+"/v1/logs", r.LogDestination)
				} else {
					assert.Equal(t, "OTLP/gRPC "+rcv.addr, r.LogDestination)
				}
				got := rcv.waitRecords(t, want.LogRecordCount())
				require.NoError(t, plogtest.CompareLogs(want, got))
				tds := waitSpans(t, rcv.traces, len(spans))
				td := merge(tds)
				if events == translate.EventsLog {
					assert.Zero(t, spanEventCount(td))
				} else {
					assert.Equal(t, want.LogRecordCount(), spanEventCount(td))
				}
			})
		}
	}
}

// TestExportEventsSpanDefault: without Events nothing goes to the logs
// endpoint.
func TestExportEventsSpanDefault(t *testing.T) {
	rcv := startSignalReceiver(t, false, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := exporter.ExportRuns(ctx, logsRuns(t), exporter.Options{
		JobID: "job-logs", Getenv: noEnv, OTLP: exporter.OTLPOptions{Endpoint: rcv.addr, Insecure: true},
	})
	require.NoError(t, err)
	assert.Zero(t, r.Records)
	assert.Empty(t, r.LogDestination)
	waitSpans(t, rcv.traces, r.Spans)
	assert.Zero(t, rcv.logs.LogRecordCount())
}

// TestExportEventsFile: OTLP/JSON holds the span lines, then the log
// lines, which read back to translate.Logs.
func TestExportEventsFile(t *testing.T) {
	want, spans := wantLogs(t, translate.EventsLog)
	var buf bytes.Buffer
	r, err := exporter.ExportRuns(context.Background(), logsRuns(t), exporter.Options{
		Format: exporter.FormatOTLPJSON, Output: &buf, JobID: "job-logs", Events: translate.EventsLog, Getenv: noEnv,
	})
	require.NoError(t, err)
	assert.Equal(t, want.LogRecordCount(), r.Records)
	assert.Equal(t, "OTLP/JSON", r.LogDestination)
	var (
		tu    ptrace.JSONUnmarshaler
		lu    plog.JSONUnmarshaler
		lines [][]byte
	)
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		lines = append(lines, bytes.Clone(sc.Bytes()))
	}
	require.Len(t, lines, 2)
	td, err := tu.UnmarshalTraces(lines[0])
	require.NoError(t, err)
	assert.Equal(t, len(spans), td.SpanCount())
	assert.Zero(t, spanEventCount(td))
	ld, err := lu.UnmarshalLogs(lines[1])
	require.NoError(t, err)
	require.NoError(t, plogtest.CompareLogs(want, ld))
}

// TestExportEventsLarge: a run of 50,000 failing tests sends every case as
// a log record, in requests within the request limit, while its span events
// stop at the cap.
func TestExportEventsLarge(t *testing.T) {
	const n = 50000
	run := manyFailures(t, n, 0)
	const limit = 512 << 10
	var sizes []int
	sink := new(consumertest.LogsSink)
	counting, err := consumer.NewLogs(func(ctx context.Context, ld plog.Logs) error {
		var m plog.ProtoMarshaler
		sizes = append(sizes, m.LogsSize(ld))
		return sink.ConsumeLogs(ctx, ld)
	})
	require.NoError(t, err)
	rcv := startSignalReceiver(t, false, counting)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	r, err := exporter.ExportRuns(ctx, []*testrun.Run{run}, exporter.Options{
		JobID: "job-big", Events: translate.EventsBoth, Getenv: noEnv, MaxRequestBytes: limit,
		OTLP: exporter.OTLPOptions{Endpoint: rcv.addr, Insecure: true},
	})
	require.NoError(t, err)
	assert.Equal(t, 1+n, r.Records)
	require.Eventually(t, func() bool { return sink.LogRecordCount() >= 1+n }, 20*time.Second, 10*time.Millisecond)
	assert.Greater(t, len(sink.AllLogs()), 1, "several requests")
	for _, s := range sizes {
		assert.LessOrEqual(t, s, limit)
	}
	seen := make(map[string]bool, n)
	for _, ld := range sink.AllLogs() {
		for _, lr := range ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
			if v, ok := lr.Attributes().Get(string(semconv.TestCaseNameKey)); ok {
				seen[v.Str()] = true
			}
		}
	}
	assert.Len(t, seen, n)
	td := merge(waitSpans(t, rcv.traces, r.Spans))
	assert.LessOrEqual(t, spanEventCount(td), 1+translate.DefaultMaxCaseEvents)
}

// TestLogBatches: every record lands in one batch, in order, each batch
// within the limit.
func TestLogBatches(t *testing.T) {
	spans, err := translate.JobSpans(translate.Job{}, []*testrun.Run{manyFailures(t, 3000, 64)}, translate.WithEvents(translate.EventsLog))
	require.NoError(t, err)
	res := resource.Empty()
	all := translate.Logs(spans, res)
	for _, limit := range []int{4 << 10, 64 << 10, 4 << 20} {
		batches := exporter.LogBatches(spans, res, limit)
		var m plog.ProtoMarshaler
		merged := plog.NewLogs()
		for i, b := range batches {
			assert.LessOrEqual(t, m.LogsSize(b), limit, "batch %d of limit %d", i, limit)
			if i == 0 {
				b.CopyTo(merged)
				continue
			}
			b.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().MoveAndAppendTo(merged.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords())
		}
		require.NoError(t, plogtest.CompareLogs(all, merged, plogtest.IgnoreLogRecordsOrder()), "limit %d", limit)
		if limit == 4<<20 {
			assert.Len(t, batches, 1)
		}
	}
	assert.Empty(t, exporter.LogBatches(spans[:0], res, 1<<20))
}

// TestExportEventsLogsRefused: a logs endpoint that refuses the records
// after the spans went out is a partial export that says so.
func TestExportEventsLogsRefused(t *testing.T) {
	refuse, err := consumer.NewLogs(func(context.Context, plog.Logs) error {
		return consumererror.NewPermanent(errors.New("no logs here"))
	})
	require.NoError(t, err)
	rcv := startSignalReceiver(t, false, refuse)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	want, _ := wantLogs(t, translate.EventsLog)
	r, err := exporter.ExportRuns(ctx, logsRuns(t), exporter.Options{
		JobID: "job-logs", Events: translate.EventsLog, Getenv: noEnv,
		OTLP: exporter.OTLPOptions{Endpoint: rcv.addr, Insecure: true, Timeout: 2 * time.Second},
	})
	var ee *exporter.ExportError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, ee.Spans, ee.SentSpans, "the spans went out")
	assert.Positive(t, ee.Spans)
	assert.Equal(t, want.LogRecordCount(), ee.Records)
	assert.Zero(t, ee.SentRecords)
	assert.Equal(t, 2, ee.Runs)
	assert.Zero(t, ee.SentRuns, "the runs are the records")
	assert.Contains(t, err.Error(), fmt.Sprintf("1 of 1 span and 0 of %d log records delivered (0 of 2 runs), 0 spans and %d log records not", ee.Records, ee.Records))
	assert.ErrorIs(t, err, exporter.ErrPermanent)
	assert.Zero(t, r.Records)
}

// TestExportEventsLogsEndpoint: OTEL_EXPORTER_OTLP_LOGS_ENDPOINT sends the
// records to their own endpoint, the spans to the generic one.
func TestExportEventsLogsEndpoint(t *testing.T) {
	spansAt := startSignalReceiver(t, false, nil)
	logsAt := startSignalReceiver(t, true, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r, err := exporter.ExportRuns(ctx, logsRuns(t), exporter.Options{
		JobID: "job-logs", Events: translate.EventsLog,
		Getenv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":      "http://" + spansAt.addr,
			"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://" + logsAt.addr + "/v1/logs",
			"OTEL_EXPORTER_OTLP_LOGS_PROTOCOL": "http/protobuf",
		}),
	})
	require.NoError(t, err)
	logsAt.waitRecords(t, r.Records)
	waitSpans(t, spansAt.traces, r.Spans)
	assert.Zero(t, spansAt.logs.LogRecordCount())
	assert.Zero(t, logsAt.traces.SpanCount())
}

// TestLogExporterHTTP: the OTLP/HTTP log request is a gzip'd protobuf POST
// to /v1/logs with the headers; 503 is retried, 404 fails at once with a
// hint, a partial success is an error that is not retried.
func TestLogExporterHTTP(t *testing.T) {
	ld, _ := wantLogs(t, translate.EventsLog)
	type answer struct {
		code     int
		rejected int64
	}
	cases := []struct {
		name      string
		answers   []answer
		attempts  int
		permanent bool
		hint      string
	}{
		{name: "delivered after 503", answers: []answer{{code: 503}, {code: 503}, {code: 200}}, attempts: 3},
		{name: "404", answers: []answer{{code: 404}}, attempts: 1, permanent: true, hint: "does not serve OTLP"},
		{name: "401", answers: []answer{{code: 401}}, attempts: 1, permanent: true, hint: "credentials"},
		{name: "partial success", answers: []answer{{code: 200, rejected: 3}}, attempts: 1, permanent: true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var (
				mu       sync.Mutex
				attempts int
			)
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				a := c.answers[min(attempts, len(c.answers)-1)]
				attempts++
				mu.Unlock()
				assert.Equal(t, http.MethodPost, r.Method)
				assert.Equal(t, "/v1/logs", r.URL.Path)
				assert.Equal(t, "application/x-protobuf", r.Header.Get("Content-Type"))
				assert.Equal(t, "gzip", r.Header.Get("Content-Encoding"))
				assert.Equal(t, "secret", r.Header.Get("X-Team"))
				zr, err := gzip.NewReader(r.Body)
				require.NoError(t, err)
				body, err := io.ReadAll(zr)
				require.NoError(t, err)
				req := plogotlp.NewExportRequest()
				require.NoError(t, req.UnmarshalProto(body))
				assert.Equal(t, ld.LogRecordCount(), req.Logs().LogRecordCount())
				if a.code != 200 {
					w.WriteHeader(a.code)
					return
				}
				resp := plogotlp.NewExportResponse()
				if a.rejected > 0 {
					resp.PartialSuccess().SetRejectedLogRecords(a.rejected)
					resp.PartialSuccess().SetErrorMessage("too old")
				}
				b, err := resp.MarshalProto()
				require.NoError(t, err)
				w.Header().Set("Content-Type", "application/x-protobuf")
				_, _ = w.Write(b)
			}))
			defer srv.Close()
			exp, err := exporter.NewOTLPLogExporter(exporter.OTLPOptions{
				Protocol: exporter.ProtocolHTTPProtobuf, Endpoint: srv.URL, Compression: exporter.CompressionGzip,
				Headers: map[string]string{"X-Team": "secret"}, Timeout: 10 * time.Second,
			}, noEnv)
			require.NoError(t, err)
			defer func() { require.NoError(t, exp.Shutdown(context.Background())) }()
			assert.Equal(t, "OTLP/HTTP "+srv.URL+"/v1/logs", exp.Endpoint())
			err = exp.Export(context.Background(), ld)
			mu.Lock()
			assert.Equal(t, c.attempts, attempts)
			mu.Unlock()
			if c.attempts == len(c.answers) && !c.permanent {
				require.NoError(t, err)
				return
			}
			var de *exporter.DeliveryError
			require.ErrorAs(t, err, &de)
			assert.Equal(t, c.permanent, errors.Is(err, exporter.ErrPermanent))
			assert.Contains(t, de.Hint, c.hint)
			if c.name == "partial success" {
				assert.Contains(t, err.Error(), "rejected 3 of")
				assert.Contains(t, err.Error(), "too old")
			}
		})
	}
}

// TestExportEventsLogsHeaders: the headers of OTEL_EXPORTER_OTLP_LOGS_HEADERS
// (over the generic ones) reach the receiver with the log records, over
// gRPC (metadata) and HTTP, and the spans keep the generic ones.
func TestExportEventsLogsHeaders(t *testing.T) {
	for _, proto := range []exporter.Protocol{exporter.ProtocolGRPC, exporter.ProtocolHTTPProtobuf} {
		t.Run(string(proto), func(t *testing.T) {
			var (
				mu   sync.Mutex
				seen []string
			)
			logs, err := consumer.NewLogs(func(ctx context.Context, _ plog.Logs) error {
				mu.Lock()
				defer mu.Unlock()
				seen = append(seen, client.FromContext(ctx).Metadata.Get("x-team")...)
				return nil
			})
			require.NoError(t, err)
			addr := testnet.FreeAddr(t)
			f := otlpreceiver.NewFactory()
			cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
			if proto == exporter.ProtocolHTTPProtobuf {
				h := cfg.Protocols.HTTP.GetOrInsertDefault()
				h.ServerConfig.NetAddr.Endpoint = addr
				h.ServerConfig.IncludeMetadata = true
			} else {
				g := cfg.Protocols.GRPC.GetOrInsertDefault()
				g.NetAddr.Endpoint = addr
				g.IncludeMetadata = true
			}
			set := receivertest.NewNopSettings(f.Type())
			traces := new(consumertest.TracesSink)
			tr, err := f.CreateTraces(context.Background(), set, cfg, traces)
			require.NoError(t, err)
			lr, err := f.CreateLogs(context.Background(), set, cfg, logs)
			require.NoError(t, err)
			require.NoError(t, tr.Start(context.Background(), componenttest.NewNopHost()))
			require.NoError(t, lr.Start(context.Background(), componenttest.NewNopHost()))
			defer func() {
				require.NoError(t, lr.Shutdown(context.Background()))
				require.NoError(t, tr.Shutdown(context.Background()))
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			_, err = exporter.ExportRuns(ctx, logsRuns(t), exporter.Options{
				JobID: "job-logs", Events: translate.EventsLog,
				OTLP: exporter.OTLPOptions{Protocol: proto, Endpoint: addr, Insecure: true},
				Getenv: envOf(map[string]string{
					"OTEL_EXPORTER_OTLP_HEADERS":      "x-team=generic",
					"OTEL_EXPORTER_OTLP_LOGS_HEADERS": "x-team=logs",
				}),
			})
			require.NoError(t, err)
			mu.Lock()
			defer mu.Unlock()
			assert.Equal(t, []string{"logs"}, seen)
		})
	}
}
