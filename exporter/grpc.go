package exporter

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/gzip"
	"google.golang.org/grpc/status"
)

// NewOTLPExporter returns an OTLP span exporter, the SDK's otlptracegrpc
// or otlptracehttp, with o over the environment that getenv reads (nil:
// os.Getenv; see OTLPOptions). Every setting is handed to the SDK
// explicitly, so what the SDK reads of the process environment on its own
// never takes effect (it may still log a variable it cannot parse). It
// refuses requests over DefaultMaxRequestBytes and reports
// spans the receiver rejects (partial success) as an export error. Each
// request is retried while the endpoint may come back (a refused
// connection, Unavailable, HTTP 429 or 503, ...) until the timeout, and
// fails at once, with a *DeliveryError matching ErrPermanent, when it
// cannot (a TLS handshake with a plaintext port, Unimplemented,
// Unauthenticated, HTTP 401 or 404, ...). It does not connect before the
// first export.
func NewOTLPExporter(ctx context.Context, o OTLPOptions, getenv func(string) string) (sdktrace.SpanExporter, error) {
	getenv = orGetenv(getenv)
	c, err := resolveOTLP(SignalTraces, o, getenv)
	if err != nil {
		return nil, err
	}
	if c.Protocol == ProtocolHTTPProtobuf {
		return newHTTPExporter(ctx, c, getenv)
	}
	return newGRPCExporter(ctx, c)
}

// grpcDial is what both gRPC exporters, spans and log records, dial with:
// the transport's credentials (none when insecure), the compressor's name
// (gRPC's identity encoding when not gzip), and connect parameters that
// reconnect soon after a collector restarts, not after gRPC's default
// back-off of up to two minutes.
func (c OTLPConfig) grpcDial() (credentials.TransportCredentials, string, grpc.ConnectParams) {
	var creds credentials.TransportCredentials
	if c.Insecure {
		creds = insecure.NewCredentials()
	} else {
		creds = credentials.NewTLS(c.TLS)
	}
	compressor := encoding.Identity
	if c.Gzip {
		compressor = gzip.Name
	}
	return creds, compressor, grpc.ConnectParams{
		Backoff:           backoff.Config{BaseDelay: retryFirst, Multiplier: 1.6, Jitter: 0.2, MaxDelay: retryMax},
		MinConnectTimeout: min(c.Timeout, 20*time.Second),
	}
}

func newGRPCExporter(ctx context.Context, c OTLPConfig) (sdktrace.SpanExporter, error) {
	creds, compressor, connect := c.grpcDial()
	// The retries are ours (see retrying).
	exp, err := otlptracegrpc.New(ctx,
		otlptracegrpc.WithEndpoint(c.Host),
		otlptracegrpc.WithTLSCredentials(creds),
		otlptracegrpc.WithHeaders(c.Headers),
		otlptracegrpc.WithTimeout(c.Timeout),
		otlptracegrpc.WithMaxRequestSize(DefaultMaxRequestBytes),
		otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig{Enabled: false}),
		otlptracegrpc.WithDialOption(
			// The identity encoding is gRPC's "no compression"; given last
			// it overrides a compression the SDK read from the environment.
			grpc.WithDefaultCallOptions(grpc.UseCompressor(compressor)),
			grpc.WithConnectParams(connect),
		),
	)
	if err != nil {
		return nil, fmt.Errorf("exporter: OTLP/gRPC: %w", err)
	}
	return &retrying{SpanExporter: exp, endpoint: "OTLP/gRPC " + c.Host, timeout: c.Timeout, classify: classifyGRPC}, nil
}

// Hints of permanent errors.
const (
	hintInsecure = "the endpoint does not speak TLS: add --otlp-insecure (or give an http:// endpoint)"
	hintCert     = "the endpoint's certificate is not trusted: set OTEL_EXPORTER_OTLP_CERTIFICATE to the CA that signed it, or --otlp-insecure for a plaintext endpoint"
	hintAuth     = "the endpoint wants other credentials: check --otlp-header or OTEL_EXPORTER_OTLP_HEADERS"
	hintProtocol = "the endpoint does not serve OTLP traces over this protocol: check --protocol and the port (4317 for grpc, 4318 for http/protobuf)"
)

// classifyGRPC retries the gRPC codes the OTLP specification calls
// retryable, except a failed TLS handshake, and nothing else.
func classifyGRPC(err error) (bool, string) {
	if hint, ok := tlsHint(err); ok {
		return false, hint
	}
	s, ok := status.FromError(err)
	if !ok {
		return false, ""
	}
	switch s.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Aborted, codes.OutOfRange, codes.DataLoss,
		codes.ResourceExhausted, codes.Canceled:
		if strings.Contains(s.Message(), "frame too large") {
			// An HTTP/1 server answered the HTTP/2 preface.
			return false, hintProtocol
		}
		return true, ""
	case codes.Unauthenticated, codes.PermissionDenied:
		return false, hintAuth
	case codes.Unimplemented:
		return false, hintProtocol
	}
	return false, ""
}

// tlsHint recognises a TLS handshake that failed because the endpoint does
// not speak TLS or is not trusted.
func tlsHint(err error) (string, bool) {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "x509:"), strings.Contains(msg, "tls: failed to verify certificate"):
		return hintCert, true
	case strings.Contains(msg, "first record does not look like a TLS handshake"),
		strings.Contains(msg, "server gave HTTP response to HTTPS client"),
		strings.Contains(msg, "authentication handshake failed"):
		return hintInsecure, true
	}
	return "", false
}

// orGetenv is getenv, or the process environment's when nil.
func orGetenv(getenv func(string) string) func(string) string {
	if getenv == nil {
		return os.Getenv
	}
	return getenv
}
