package main

import (
	"context"
	"net/http"
)

// serveTelemetry is the server's own traces and metrics.
type serveTelemetry struct {
	wrap     func(http.Handler) http.Handler
	shutdown func()
}

func newServeTelemetry(context.Context, Env) (*serveTelemetry, error) {
	return &serveTelemetry{wrap: func(h http.Handler) http.Handler { return h }, shutdown: func() {}}, nil
}
