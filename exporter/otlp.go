package exporter

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// DefaultMaxRequestBytes is the largest OTLP request sent at once: the
// 4 MiB an OTLP gRPC receiver accepts by default. ExportSpans splits larger
// exports into several requests.
const DefaultMaxRequestBytes = 4 << 20

// DefaultTimeout bounds each OTLP request, retries included, unless
// OTLPOptions.Timeout or OTEL_EXPORTER_OTLP_[<SIGNAL>_]TIMEOUT say otherwise.
const DefaultTimeout = 10 * time.Second

// Compression values of OTLPOptions.Compression.
const (
	CompressionGzip = "gzip"
	CompressionNone = "none"
)

// Protocol is the OTLP transport.
type Protocol string

// Protocols of OTLPOptions.Protocol and OTEL_EXPORTER_OTLP_PROTOCOL.
const (
	// ProtocolGRPC is OTLP/gRPC (default port 4317).
	ProtocolGRPC Protocol = "grpc"
	// ProtocolHTTPProtobuf is OTLP/HTTP with binary protobuf bodies
	// (default port 4318, path /v1/traces).
	ProtocolHTTPProtobuf Protocol = "http/protobuf"
)

// Signal is an OTLP signal. Its settings come from the options, then from
// its own variables (OTEL_EXPORTER_OTLP_<SIGNAL>_*), then from the generic
// ones (OTEL_EXPORTER_OTLP_*), then from the defaults; over OTLP/HTTP it is
// sent to its own path (/v1/<signal>).
type Signal string

// The signals ResolveOTLP resolves.
const (
	SignalTraces  Signal = "traces"
	SignalMetrics Signal = "metrics"
	SignalLogs    Signal = "logs"
)

// valid reports whether s is one of the three signals.
func (s Signal) valid() bool {
	return s == SignalTraces || s == SignalMetrics || s == SignalLogs
}

// path is the OTLP/HTTP path of s, which OTLP/HTTP appends to
// OTEL_EXPORTER_OTLP_ENDPOINT.
func (s Signal) path() string { return "/v1/" + string(s) }

// prefix is the beginning of s's own variables.
func (s Signal) prefix() string { return "OTEL_EXPORTER_OTLP_" + strings.ToUpper(string(s)) + "_" }

// OTLPOptions are the OTLP settings given explicitly (by flags). A zero
// field leaves the setting to the standard variables, read through
// Options.Getenv only (never from the process environment behind the
// caller's back): the signal's own (OTEL_EXPORTER_OTLP_TRACES_* for the
// spans, OTEL_EXPORTER_OTLP_LOGS_* for the log records) over
// OTEL_EXPORTER_OTLP_* (PROTOCOL, ENDPOINT, HEADERS, INSECURE, TIMEOUT,
// COMPRESSION, CERTIFICATE, CLIENT_KEY, CLIENT_CERTIFICATE), and then to
// the defaults (grpc to localhost:4317, or http/protobuf to
// https://localhost:4318/v1/<signal>, with TLS, DefaultTimeout, no
// compression). A non-zero field overrides them. A variable that cannot be
// read fails with ErrConfig rather than being ignored. ResolveOTLP is the
// one reader of these variables.
//
// For http/protobuf, OTEL_EXPORTER_OTLP_ENDPOINT is a base URL to which
// /v1/traces (or /v1/logs) is appended, and the signal's own endpoint
// variable is used as it is; an Endpoint option that is a URL with a path
// is used as it is, one without a path (or host:port) gets the signal's
// path. One Endpoint option with a path thus names one signal's URL: the
// other signal of the same export gets the signal's path on the same host
// instead (see ResolveOTLP).
type OTLPOptions struct {
	// Protocol is ProtocolGRPC or ProtocolHTTPProtobuf.
	Protocol Protocol
	// Endpoint is host:port, or a URL whose http scheme also means insecure.
	Endpoint string
	// Insecure disables transport security.
	Insecure bool
	// Headers, when not nil, replace the headers of the environment.
	Headers map[string]string
	// Timeout bounds each export request, retries included.
	Timeout time.Duration
	// Compression is CompressionGzip or CompressionNone.
	Compression string
}

// OTLPConfig is every OTLP setting of one signal, resolved from the
// options and the environment, so that an exporter is handed each one
// explicitly and none of the SDK's own environment reading can take effect.
type OTLPConfig struct {
	Signal   Signal
	Protocol Protocol
	// Host is host:port.
	Host string
	// Path is the URL path of http/protobuf (empty for grpc).
	Path string
	// Insecure is true for a plaintext connection.
	Insecure bool
	// Headers are sent with every request (never nil).
	Headers map[string]string
	// Timeout bounds each request, retries included.
	Timeout time.Duration
	// Gzip compresses the requests.
	Gzip bool
	// TLS is the transport security of a secure connection (nil when
	// Insecure): the roots of CERTIFICATE and the client certificate of
	// CLIENT_CERTIFICATE with CLIENT_KEY.
	TLS *tls.Config
	// EndpointGiven reports whether the endpoint came from the options or
	// a variable rather than the default: a process whose telemetry is
	// optional sends nothing without one.
	EndpointGiven bool
}

// otlpEnv reads the signal's own variable <prefix><name>, else
// OTEL_EXPORTER_OTLP_<name>, and says which variable it read.
func otlpEnv(sig Signal, getenv func(string) string, name string) (key, value string) {
	for _, k := range []string{sig.prefix() + name, "OTEL_EXPORTER_OTLP_" + name} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return k, v
		}
	}
	return "", ""
}

// ResolveOTLP resolves the OTLP settings of sig from o over the variables
// that getenv reads (nil: os.Getenv), as OTLPOptions describes. An
// Endpoint option with a URL path is that signal's URL; for another
// signal, ResolveOTLP keeps its scheme and host and puts the signal's path
// in place of a path that ends in another signal's (/v1/traces becomes
// /v1/logs), so that one --otlp-endpoint serves the spans and the log
// records of one export.
func ResolveOTLP(sig Signal, o OTLPOptions, getenv func(string) string) (OTLPConfig, error) {
	if !sig.valid() {
		return OTLPConfig{}, fmt.Errorf("%w: OTLP signal %q: want traces, metrics or logs", ErrConfig, sig)
	}
	return resolveOTLP(sig, o, orGetenv(getenv))
}

func resolveOTLP(sig Signal, o OTLPOptions, getenv func(string) string) (OTLPConfig, error) {
	c := OTLPConfig{Signal: sig}
	var err error
	if c.Protocol, err = resolveProtocol(sig, o, getenv); err != nil {
		return c, err
	}
	hasScheme, err := c.resolveEndpoint(o, getenv)
	if err != nil {
		return c, err
	}
	if !hasScheme {
		if k, v := otlpEnv(sig, getenv, "INSECURE"); k != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("%w: %s=%q: want true or false", ErrConfig, k, v)
			}
			c.Insecure = b
		}
	}
	if o.Insecure {
		c.Insecure = true
	}
	if c.Headers, err = resolveHeaders(sig, o, getenv); err != nil {
		return c, err
	}
	if c.Timeout, err = resolveTimeout(sig, o, getenv); err != nil {
		return c, err
	}
	if c.Gzip, err = resolveGzip(sig, o, getenv); err != nil {
		return c, err
	}
	if !c.Insecure {
		if c.TLS, err = tlsFromEnv(sig, getenv); err != nil {
			return c, err
		}
	}
	return c, nil
}

// resolveProtocol is the option's protocol, else the variables', else grpc.
func resolveProtocol(sig Signal, o OTLPOptions, getenv func(string) string) (Protocol, error) {
	p := o.Protocol
	from := "OTLP protocol"
	if p == "" {
		p = ProtocolGRPC
		if k, v := otlpEnv(sig, getenv, "PROTOCOL"); k != "" {
			p, from = Protocol(v), k+"="+v
		}
	}
	switch p {
	case ProtocolGRPC, ProtocolHTTPProtobuf:
		return p, nil
	}
	if from == "OTLP protocol" {
		from = fmt.Sprintf("OTLP protocol %q", p)
	}
	return "", fmt.Errorf("%w: %s: want %s or %s", ErrConfig, from, ProtocolGRPC, ProtocolHTTPProtobuf)
}

// resolveEndpoint sets the host (and for OTLP/HTTP the path) of c from the
// option, else the signal's own variable (used as it is), else the generic
// one (a base URL); an http(s) URL also sets Insecure, and hasScheme says
// so, since the scheme then wins over the INSECURE variables.
func (c *OTLPConfig) resolveEndpoint(o OTLPOptions, getenv func(string) string) (hasScheme bool, err error) {
	sig := c.Signal
	http := c.Protocol == ProtocolHTTPProtobuf
	c.Host = "localhost:4317"
	if http {
		c.Host, c.Path = "localhost:4318", sig.path()
	}
	// set reads host:port or a URL; for OTLP/HTTP, base says whether the
	// signal's path goes after the URL's path (a base URL) or only when it
	// has none.
	set := func(from, v string, base bool) error {
		c.EndpointGiven = true
		if !strings.Contains(v, "://") {
			c.Host = v
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("%w: %s %q: want host:port or an http(s) URL", ErrConfig, from, v)
		}
		c.Host, hasScheme, c.Insecure = u.Host, true, u.Scheme == "http"
		if http {
			switch p := strings.TrimSuffix(u.Path, "/"); {
			case base:
				c.Path = p + sig.path()
			case u.Path == "":
				c.Path = sig.path()
			default:
				c.Path = u.Path
			}
		}
		return nil
	}
	specific := sig.prefix() + "ENDPOINT"
	switch {
	case o.Endpoint != "":
		err = set("endpoint", o.Endpoint, false)
		c.Path = otherSignalPath(sig, c.Path)
	case strings.TrimSpace(getenv(specific)) != "":
		err = set(specific, strings.TrimSpace(getenv(specific)), false)
	case strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")) != "":
		err = set("OTEL_EXPORTER_OTLP_ENDPOINT", strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")), true)
	}
	return hasScheme, err
}

// resolveHeaders is the option's headers, else the variables' (never nil).
func resolveHeaders(sig Signal, o OTLPOptions, getenv func(string) string) (map[string]string, error) {
	if o.Headers != nil {
		return o.Headers, nil
	}
	k, v := otlpEnv(sig, getenv, "HEADERS")
	if k == "" {
		return map[string]string{}, nil
	}
	h, err := parseHeaders(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, k, err)
	}
	return h, nil
}

// resolveTimeout is the option's timeout, else the variables' (in
// milliseconds, at most an hour), else DefaultTimeout.
func resolveTimeout(sig Signal, o OTLPOptions, getenv func(string) string) (time.Duration, error) {
	switch {
	case o.Timeout < 0:
		return 0, fmt.Errorf("%w: negative OTLP timeout %s", ErrConfig, o.Timeout)
	case o.Timeout > 0:
		return o.Timeout, nil
	}
	k, v := otlpEnv(sig, getenv, "TIMEOUT")
	if k == "" {
		return DefaultTimeout, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 || ms > int64(time.Hour/time.Millisecond) {
		return 0, fmt.Errorf("%w: %s=%q: want milliseconds, 1 to 3600000", ErrConfig, k, v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// resolveGzip reads the option's compression, else the variables'.
func resolveGzip(sig Signal, o OTLPOptions, getenv func(string) string) (bool, error) {
	comp := o.Compression
	from := "OTLP compression"
	if comp == "" {
		if k, v := otlpEnv(sig, getenv, "COMPRESSION"); k != "" {
			comp, from = v, k
		}
	}
	switch comp {
	case "", CompressionNone:
		return false, nil
	case CompressionGzip:
		return true, nil
	}
	return false, fmt.Errorf("%w: %s %q (want %s or %s)", ErrConfig, from, comp, CompressionGzip, CompressionNone)
}

// otherSignalPath puts the path of sig in place of a path that ends in
// another signal's.
func otherSignalPath(sig Signal, path string) string {
	for _, other := range []Signal{SignalTraces, SignalMetrics, SignalLogs} {
		if other != sig {
			if base, ok := strings.CutSuffix(path, other.path()); ok {
				return base + sig.path()
			}
		}
	}
	return path
}

// parseHeaders reads the W3C-baggage-like list of OTEL_EXPORTER_OTLP_HEADERS:
// key=value pairs separated by commas, values percent-encoded.
func parseHeaders(s string) (map[string]string, error) {
	h := map[string]string{}
	for _, pair := range strings.Split(s, ",") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		k, v, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\"():;<>@[]{}/?\\") {
			return nil, fmt.Errorf("%q: want key=value", pair)
		}
		dv, err := url.PathUnescape(v)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", pair, err)
		}
		h[k] = strings.TrimSpace(dv)
	}
	return h, nil
}

// tlsFromEnv builds the TLS configuration of CERTIFICATE (the roots to
// trust) and CLIENT_CERTIFICATE with CLIENT_KEY (mutual TLS).
func tlsFromEnv(sig Signal, getenv func(string) string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if k, v := otlpEnv(sig, getenv, "CERTIFICATE"); k != "" {
		b, err := os.ReadFile(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrConfig, k, err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(b) {
			return nil, fmt.Errorf("%w: %s: %s holds no PEM certificate", ErrConfig, k, v)
		}
		c.RootCAs = pool
	}
	kc, vc := otlpEnv(sig, getenv, "CLIENT_CERTIFICATE")
	kk, vk := otlpEnv(sig, getenv, "CLIENT_KEY")
	switch {
	case kc == "" && kk == "":
	case kc == "" || kk == "":
		return nil, fmt.Errorf("%w: OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY go together", ErrConfig)
	default:
		cert, err := tls.LoadX509KeyPair(vc, vk)
		if err != nil {
			return nil, fmt.Errorf("%w: %s, %s: %w", ErrConfig, kc, kk, err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}

// URL is the OTLP/HTTP endpoint URL.
func (c OTLPConfig) URL() string {
	scheme := "https"
	if c.Insecure {
		scheme = "http"
	}
	return (&url.URL{Scheme: scheme, Host: c.Host, Path: c.Path}).String()
}
