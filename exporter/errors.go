package exporter

import "errors"

var (
	// ErrShutdown is returned by an exporter used after Shutdown.
	ErrShutdown = errors.New("exporter: exporter is shut down")

	// ErrParent is returned (wrapped) for a parent context that is not a
	// valid W3C traceparent.
	ErrParent = errors.New("exporter: invalid parent context")

	// ErrConfig is returned (wrapped) for export options that cannot work
	// together or an environment that cannot be read (OTEL_RESOURCE_ATTRIBUTES).
	ErrConfig = errors.New("exporter: invalid configuration")
)

// ErrPermanent is matched (errors.Is) by an OTLP request the endpoint
// refused in a way no retry can change: a TLS handshake with a plaintext
// port, a certificate that is not trusted, a status such as Unimplemented,
// InvalidArgument, PermissionDenied or Unauthenticated (HTTP 4xx but 429).
var ErrPermanent = errors.New("exporter: permanent export error")
