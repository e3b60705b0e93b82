package exporter

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"golang.org/x/net/http/httpproxy"
)

func newHTTPExporter(ctx context.Context, c OTLPConfig, getenv func(string) string) (sdktrace.SpanExporter, error) {
	compression := otlptracehttp.NoCompression
	if c.Gzip {
		compression = otlptracehttp.GzipCompression
	}
	endpoint := c.URL()
	opts := []otlptracehttp.Option{
		// The URL sets host, path and (by its scheme) transport security.
		otlptracehttp.WithEndpointURL(endpoint),
		otlptracehttp.WithEncoding(otlptracehttp.EncodingProtobuf),
		otlptracehttp.WithHeaders(c.Headers),
		otlptracehttp.WithTimeout(c.Timeout),
		otlptracehttp.WithCompression(compression),
		otlptracehttp.WithMaxRequestSize(DefaultMaxRequestBytes),
		otlptracehttp.WithRetry(otlptracehttp.RetryConfig{Enabled: false}),
		otlptracehttp.WithProxy(proxyFunc(getenv)),
	}
	if c.TLS != nil {
		opts = append(opts, otlptracehttp.WithTLSClientConfig(c.TLS))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("exporter: OTLP/HTTP: %w", err)
	}
	return &retrying{SpanExporter: exp, endpoint: "OTLP/HTTP " + endpoint, timeout: c.Timeout, classify: classifyHTTP}, nil
}

// proxyFunc is the proxy of HTTPS_PROXY, HTTP_PROXY and NO_PROXY (either
// case) read through getenv, as net/http reads them from the process.
func proxyFunc(getenv func(string) string) otlptracehttp.HTTPTransportProxyFunc {
	either := func(k string) string {
		if v := getenv(k); v != "" {
			return v
		}
		return getenv(strings.ToLower(k))
	}
	cfg := httpproxy.Config{HTTPProxy: either("HTTP_PROXY"), HTTPSProxy: either("HTTPS_PROXY"), NoProxy: either("NO_PROXY")}
	f := cfg.ProxyFunc()
	return func(r *http.Request) (*url.URL, error) { return f(r.URL) }
}

// classifyHTTP retries what the OTLP specification calls retryable over
// HTTP (429, 502, 503, 504) and what failed on the way (a refused or reset
// connection), except a failed TLS handshake, and nothing else.
func classifyHTTP(err error) (bool, string) {
	if hint, ok := tlsHint(err); ok {
		return false, hint
	}
	var se *httpStatusError
	if errors.As(err, &se) {
		return classifyStatus(se.code)
	}
	msg := err.Error()
	switch {
	case strings.Contains(msg, "retry-able request failure"):
		// 429, 502, 503, 504 (the SDK's wording for them).
		return true, ""
	case strings.Contains(msg, "failed to send to "):
		// Any other status.
		for _, s := range []string{" 401 ", " 403 "} {
			if strings.Contains(msg, s) {
				return false, hintAuth
			}
		}
		for _, s := range []string{" 404 ", " 405 ", " 415 "} {
			if strings.Contains(msg, s) {
				return false, hintProtocol
			}
		}
		return false, ""
	}
	var (
		ue *url.Error
		ne net.Error
	)
	if errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
		return true, ""
	}
	return false, ""
}

// classifyStatus is classifyHTTP for an HTTP status: 429, 502, 503 and 504
// are retried, nothing else.
func classifyStatus(code int) (bool, string) {
	switch code {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true, ""
	case http.StatusUnauthorized, http.StatusForbidden:
		return false, hintAuth
	case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnsupportedMediaType:
		return false, hintProtocol
	}
	return false, ""
}
