// Package testotlp starts the collector's OTLP trace receiver inside the
// test's process, on 127.0.0.1, for tests of code that sends OTLP. It is
// for tests only.
package testotlp

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/consumer"
	"go.opentelemetry.io/collector/receiver/otlpreceiver"
	"go.opentelemetry.io/collector/receiver/receivertest"

	"github.com/hangar-dev/testresults/internal/testnet"
)

// Protocol is the one protocol the receiver listens with.
type Protocol int

const (
	// GRPC is OTLP over gRPC.
	GRPC Protocol = iota
	// HTTP is OTLP over HTTP (traces at /v1/traces).
	HTTP
)

// Options say how the receiver listens.
type Options struct {
	Protocol Protocol
	// Addr is the host:port to listen on; empty means a free port on
	// 127.0.0.1.
	Addr string
	// IncludeMetadata keeps the request's metadata (headers) in the
	// context handed to the consumer.
	IncludeMetadata bool
}

// StartAt starts the receiver feeding next and returns it; the caller
// shuts it down. o.Addr must be set.
func StartAt(tb testing.TB, o Options, next consumer.Traces) component.Component {
	tb.Helper()
	require.NotEmpty(tb, o.Addr, "testotlp: StartAt needs an address")
	f := otlpreceiver.NewFactory()
	cfg := f.CreateDefaultConfig().(*otlpreceiver.Config)
	switch o.Protocol {
	case HTTP:
		h := cfg.Protocols.HTTP.GetOrInsertDefault()
		h.ServerConfig.NetAddr.Endpoint = o.Addr
		h.ServerConfig.IncludeMetadata = o.IncludeMetadata
	default:
		g := cfg.Protocols.GRPC.GetOrInsertDefault()
		g.NetAddr.Endpoint = o.Addr
		g.IncludeMetadata = o.IncludeMetadata
	}
	r, err := f.CreateTraces(context.Background(), receivertest.NewNopSettings(f.Type()), cfg, next)
	require.NoError(tb, err)
	require.NoError(tb, r.Start(context.Background(), componenttest.NewNopHost()))
	return r
}

// Start starts the receiver feeding next, shuts it down when the test
// ends, and returns its host:port.
func Start(tb testing.TB, o Options, next consumer.Traces) string {
	tb.Helper()
	if o.Addr == "" {
		o.Addr = testnet.FreeAddr(tb)
	}
	r := StartAt(tb, o, next)
	tb.Cleanup(func() { require.NoError(tb, r.Shutdown(context.Background())) })
	return o.Addr
}
