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
// OTLPOptions.Timeout or OTEL_EXPORTER_OTLP_[TRACES_]TIMEOUT say otherwise.
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

// tracesPath is the path OTLP/HTTP appends to OTEL_EXPORTER_OTLP_ENDPOINT.
const tracesPath = "/v1/traces"

// OTLPOptions are the OTLP settings given explicitly (by flags). A zero
// field leaves the setting to the standard variables, read through
// Options.Getenv only (never from the process environment behind the
// caller's back): OTEL_EXPORTER_OTLP_TRACES_* over OTEL_EXPORTER_OTLP_*
// (PROTOCOL, ENDPOINT, HEADERS, INSECURE, TIMEOUT, COMPRESSION,
// CERTIFICATE, CLIENT_KEY, CLIENT_CERTIFICATE), and then to the defaults
// (grpc to localhost:4317, or http/protobuf to
// https://localhost:4318/v1/traces, with TLS, DefaultTimeout, no
// compression). A non-zero field overrides them. A variable that cannot be
// read fails with ErrConfig rather than being ignored.
//
// For http/protobuf, OTEL_EXPORTER_OTLP_ENDPOINT is a base URL to which
// /v1/traces is appended, and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used
// as it is; an Endpoint option that is a URL with a path is used as it is,
// one without a path (or host:port) gets /v1/traces.
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

// otlpConfig is every OTLP setting, resolved from the options and the
// environment, so that the SDK is handed each one explicitly and none of
// its own environment reading can take effect.
type otlpConfig struct {
	protocol Protocol
	host     string // host:port
	path     string // http/protobuf: the URL path
	insecure bool
	headers  map[string]string
	timeout  time.Duration
	gzip     bool
	tls      *tls.Config
}

// otlpEnv reads OTEL_EXPORTER_OTLP_TRACES_<name>, else
// OTEL_EXPORTER_OTLP_<name>, and says which variable it read.
func otlpEnv(getenv func(string) string, name string) (key, value string) {
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name} {
		if v := strings.TrimSpace(getenv(k)); v != "" {
			return k, v
		}
	}
	return "", ""
}

func resolveOTLP(o OTLPOptions, getenv func(string) string) (otlpConfig, error) {
	c := otlpConfig{protocol: o.Protocol}
	if c.protocol == "" {
		c.protocol = ProtocolGRPC
		if k, v := otlpEnv(getenv, "PROTOCOL"); k != "" {
			switch p := Protocol(v); p {
			case ProtocolGRPC, ProtocolHTTPProtobuf:
				c.protocol = p
			default:
				return c, fmt.Errorf("%w: %s=%s: want %s or %s", ErrConfig, k, v, ProtocolGRPC, ProtocolHTTPProtobuf)
			}
		}
	}
	http := false
	switch c.protocol {
	case ProtocolGRPC:
		c.host = "localhost:4317"
	case ProtocolHTTPProtobuf:
		http = true
		c.host, c.path = "localhost:4318", tracesPath
	default:
		return c, fmt.Errorf("%w: OTLP protocol %q: want %s or %s", ErrConfig, c.protocol, ProtocolGRPC, ProtocolHTTPProtobuf)
	}
	schemeInsecure := false
	hasScheme := false
	// setEndpoint reads host:port or a URL; for OTLP/HTTP, base says
	// whether /v1/traces goes after the URL's path (a base URL) or only
	// when it has none.
	setEndpoint := func(from, v string, base bool) error {
		if !strings.Contains(v, "://") {
			c.host = v
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
			return fmt.Errorf("%w: %s %q: want host:port or an http(s) URL", ErrConfig, from, v)
		}
		c.host, hasScheme, schemeInsecure = u.Host, true, u.Scheme == "http"
		if http {
			switch p := strings.TrimSuffix(u.Path, "/"); {
			case base:
				c.path = p + tracesPath
			case u.Path == "":
				c.path = tracesPath
			default:
				c.path = u.Path
			}
		}
		return nil
	}
	if o.Endpoint != "" {
		if err := setEndpoint("endpoint", o.Endpoint, false); err != nil {
			return c, err
		}
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")); v != "" {
		if err := setEndpoint("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", v, false); err != nil {
			return c, err
		}
	} else if v := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT")); v != "" {
		if err := setEndpoint("OTEL_EXPORTER_OTLP_ENDPOINT", v, true); err != nil {
			return c, err
		}
	}
	c.insecure = schemeInsecure
	if !hasScheme {
		if k, v := otlpEnv(getenv, "INSECURE"); k != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return c, fmt.Errorf("%w: %s=%q: want true or false", ErrConfig, k, v)
			}
			c.insecure = b
		}
	}
	if o.Insecure {
		c.insecure = true
	}

	c.headers = o.Headers
	if c.headers == nil {
		c.headers = map[string]string{}
		if k, v := otlpEnv(getenv, "HEADERS"); k != "" {
			h, err := parseHeaders(v)
			if err != nil {
				return c, fmt.Errorf("%w: %s: %w", ErrConfig, k, err)
			}
			c.headers = h
		}
	}

	switch {
	case o.Timeout < 0:
		return c, fmt.Errorf("%w: negative OTLP timeout %s", ErrConfig, o.Timeout)
	case o.Timeout > 0:
		c.timeout = o.Timeout
	default:
		c.timeout = DefaultTimeout
		if k, v := otlpEnv(getenv, "TIMEOUT"); k != "" {
			ms, err := strconv.ParseInt(v, 10, 64)
			if err != nil || ms <= 0 || ms > int64(time.Hour/time.Millisecond) {
				return c, fmt.Errorf("%w: %s=%q: want milliseconds, 1 to 3600000", ErrConfig, k, v)
			}
			c.timeout = time.Duration(ms) * time.Millisecond
		}
	}

	comp := o.Compression
	compFrom := "OTLP compression"
	if comp == "" {
		if k, v := otlpEnv(getenv, "COMPRESSION"); k != "" {
			comp, compFrom = v, k
		}
	}
	switch comp {
	case "", CompressionNone:
	case CompressionGzip:
		c.gzip = true
	default:
		return c, fmt.Errorf("%w: %s %q (want %s or %s)", ErrConfig, compFrom, comp, CompressionGzip, CompressionNone)
	}

	if !c.insecure {
		t, err := tlsFromEnv(getenv)
		if err != nil {
			return c, err
		}
		c.tls = t
	}
	return c, nil
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
func tlsFromEnv(getenv func(string) string) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if k, v := otlpEnv(getenv, "CERTIFICATE"); k != "" {
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
	kc, vc := otlpEnv(getenv, "CLIENT_CERTIFICATE")
	kk, vk := otlpEnv(getenv, "CLIENT_KEY")
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

// url is the OTLP/HTTP endpoint URL.
func (c otlpConfig) url() string {
	scheme := "https"
	if c.insecure {
		scheme = "http"
	}
	return (&url.URL{Scheme: scheme, Host: c.host, Path: c.path}).String()
}
