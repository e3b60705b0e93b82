package exporter

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/plog/plogotlp"
	"go.opentelemetry.io/otel/sdk/resource"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/translate"
)

// LogExporter sends log records (translate.Logs) over OTLP, gRPC or HTTP.
// The records go out as translate wrote them: what is sent is what
// --format otlp-json writes.
type LogExporter struct {
	endpoint string
	timeout  time.Duration
	classify func(error) (bool, string)
	send     func(context.Context, plogotlp.ExportRequest) (plogotlp.ExportResponse, error)
	close    func() error
}

// NewOTLPLogExporter returns an exporter of log records with o over the
// environment that getenv reads (nil: os.Getenv), resolved for SignalLogs
// (OTEL_EXPORTER_OTLP_LOGS_* over OTEL_EXPORTER_OTLP_*; see OTLPOptions):
// the same transport security, headers, compression, timeout and retries
// as the spans of NewOTLPExporter. It does not connect before the first
// export.
func NewOTLPLogExporter(o OTLPOptions, getenv func(string) string) (*LogExporter, error) {
	getenv = orGetenv(getenv)
	c, err := resolveOTLP(SignalLogs, o, getenv)
	if err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolHTTPProtobuf {
		return newHTTPLogExporter(c, getenv), nil
	}
	return newGRPCLogExporter(c)
}

// Endpoint names the protocol and the endpoint: "OTLP/gRPC host:port" or
// "OTLP/HTTP URL".
func (e *LogExporter) Endpoint() string { return e.endpoint }

// Export sends ld in one request, retried as NewOTLPExporter's requests
// are; records the receiver rejects (partial success) are an error that
// is not retried. Its error is a *DeliveryError.
func (e *LogExporter) Export(ctx context.Context, ld plog.Logs) error {
	req := plogotlp.NewExportRequestFromLogs(ld)
	return deliver(ctx, e.endpoint, e.timeout, e.classifyRejected, func(ctx context.Context) error {
		resp, err := e.send(ctx, req)
		if err != nil {
			return err
		}
		if n := resp.PartialSuccess().RejectedLogRecords(); n > 0 {
			return &rejectedError{n: n, total: ld.LogRecordCount(), msg: resp.PartialSuccess().ErrorMessage()}
		}
		return nil
	})
}

// Shutdown closes the connection.
func (e *LogExporter) Shutdown(context.Context) error {
	if e.close == nil {
		return nil
	}
	return e.close()
}

func (e *LogExporter) classifyRejected(err error) (bool, string) {
	var re *rejectedError
	if errors.As(err, &re) {
		return false, ""
	}
	return e.classify(err)
}

// rejectedError is a request the receiver took with some records refused.
type rejectedError struct {
	n     int64
	total int
	msg   string
}

func (e *rejectedError) Error() string {
	s := fmt.Sprintf("the receiver rejected %d of %s", e.n, count(e.total, "log record"))
	if e.msg != "" {
		s += ": " + e.msg
	}
	return s
}

func newGRPCLogExporter(c OTLPConfig) (*LogExporter, error) {
	creds, compressor, connect := c.grpcDial()
	conn, err := grpc.NewClient(c.Host,
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultCallOptions(grpc.UseCompressor(compressor), grpc.MaxCallSendMsgSize(DefaultMaxRequestBytes)),
		grpc.WithConnectParams(connect),
	)
	if err != nil {
		return nil, fmt.Errorf("%w: OTLP/gRPC %s: %w", ErrConfig, c.Host, err)
	}
	client := plogotlp.NewGRPCClient(conn)
	md := metadata.New(c.Headers)
	return &LogExporter{
		endpoint: "OTLP/gRPC " + c.Host,
		timeout:  c.Timeout,
		classify: classifyGRPC,
		send: func(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
			return client.Export(metadata.NewOutgoingContext(ctx, md), req)
		},
		close: conn.Close,
	}, nil
}

// maxResponseBytes bounds the OTLP/HTTP response body read.
const maxResponseBytes = 64 << 10

func newHTTPLogExporter(c OTLPConfig, getenv func(string) string) *LogExporter {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	proxy := proxyFunc(getenv)
	tr.Proxy = proxy
	if c.TLS != nil {
		tr.TLSClientConfig = c.TLS.Clone()
	}
	client := &http.Client{Transport: tr}
	url := c.URL()
	return &LogExporter{
		endpoint: "OTLP/HTTP " + url,
		timeout:  c.Timeout,
		classify: classifyHTTP,
		send: func(ctx context.Context, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
			return postLogs(ctx, client, url, c, req)
		},
		close: func() error { tr.CloseIdleConnections(); return nil },
	}
}

// postLogs makes one OTLP/HTTP request with a binary protobuf body.
func postLogs(ctx context.Context, client *http.Client, url string, c OTLPConfig, req plogotlp.ExportRequest) (plogotlp.ExportResponse, error) {
	resp := plogotlp.NewExportResponse()
	body, err := req.MarshalProto()
	if err != nil {
		return resp, fmt.Errorf("marshal OTLP logs: %w", err)
	}
	if c.Gzip {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(body); err != nil {
			return resp, err
		}
		if err := zw.Close(); err != nil {
			return resp, err
		}
		body = buf.Bytes()
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return resp, err
	}
	for k, v := range c.Headers {
		hr.Header.Set(k, v)
	}
	hr.Header.Set("Content-Type", "application/x-protobuf")
	if c.Gzip {
		hr.Header.Set("Content-Encoding", "gzip")
	}
	hresp, err := client.Do(hr)
	if err != nil {
		return resp, err
	}
	defer hresp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(hresp.Body, maxResponseBytes))
	if err != nil {
		return resp, err
	}
	if hresp.StatusCode/100 != 2 {
		return resp, &httpStatusError{code: hresp.StatusCode, status: hresp.Status, body: strings.TrimSpace(string(b))}
	}
	if strings.HasPrefix(hresp.Header.Get("Content-Type"), "application/x-protobuf") && len(b) > 0 {
		if err := resp.UnmarshalProto(b); err != nil {
			return resp, fmt.Errorf("read OTLP/HTTP response: %w", err)
		}
	}
	return resp, nil
}

// httpStatusError is an OTLP/HTTP answer other than 2xx.
type httpStatusError struct {
	code   int
	status string
	body   string
}

func (e *httpStatusError) Error() string {
	msg := "OTLP/HTTP " + e.status
	if e.body != "" {
		msg += ": " + headRunes(e.body, 200)
	}
	return msg
}

// headRunes is the first n characters of s.
func headRunes(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n])
}

// LogBatches splits the log records of spans (translate.Logs under res)
// into requests of at most maxBytes each, in order. A record larger than
// maxBytes is a request of its own.
func LogBatches(spans []translate.Span, res *resource.Resource, maxBytes int) []plog.Logs {
	ld := translate.Logs(spans, res)
	var m plog.ProtoMarshaler
	if ld.LogRecordCount() == 0 {
		return nil
	}
	if m.LogsSize(ld) <= maxBytes {
		return []plog.Logs{ld}
	}
	// translate.Logs writes one resource and one scope.
	rl := ld.ResourceLogs().At(0)
	sl := rl.ScopeLogs().At(0)
	records := sl.LogRecords()
	empty := func() (plog.Logs, plog.LogRecordSlice) {
		out := plog.NewLogs()
		orl := out.ResourceLogs().AppendEmpty()
		rl.Resource().CopyTo(orl.Resource())
		orl.SetSchemaUrl(rl.SchemaUrl())
		osl := orl.ScopeLogs().AppendEmpty()
		sl.Scope().CopyTo(osl.Scope())
		osl.SetSchemaUrl(sl.SchemaUrl())
		return out, osl.LogRecords()
	}
	cur, dst := empty()
	// The envelope's size, and room for the length prefixes of the
	// resource and scope to grow.
	overhead := m.LogsSize(cur) + 2*binaryVarintMax
	size := overhead
	var out []plog.Logs
	for _, lr := range records.All() {
		n := m.LogRecordSize(lr) + 1 + binaryVarintMax
		if dst.Len() > 0 && size+n > maxBytes {
			out = append(out, cur)
			cur, dst = empty()
			size = overhead
		}
		lr.CopyTo(dst.AppendEmpty())
		size += n
	}
	return append(out, cur)
}

// binaryVarintMax is the most bytes a length prefix of a request takes.
const binaryVarintMax = 5

// countRecordRuns counts the test.run records of ld.
func countRecordRuns(ld plog.Logs) int {
	n := 0
	for _, rl := range ld.ResourceLogs().All() {
		for _, sl := range rl.ScopeLogs().All() {
			for _, lr := range sl.LogRecords().All() {
				if lr.EventName() == semconv.EventTestRun {
					n++
				}
			}
		}
	}
	return n
}
