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
