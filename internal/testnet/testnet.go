// Package testnet gives tests a 127.0.0.1 address to listen on: one that
// was free a moment ago, for a server the test starts by address rather
// than with a listener it is handed.
package testnet

import (
	"net"
	"testing"
)

// FreeAddr returns a host:port on 127.0.0.1 that nothing listened on a
// moment ago (the port is chosen by the system and released at once).
func FreeAddr(tb testing.TB) string {
	tb.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("testnet: %v", err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		tb.Fatalf("testnet: %v", err)
	}
	return addr
}

// FreePort returns the port of FreeAddr.
func FreePort(tb testing.TB) int {
	tb.Helper()
	_, port, err := net.SplitHostPort(FreeAddr(tb))
	if err != nil {
		tb.Fatalf("testnet: %v", err)
	}
	n, err := net.LookupPort("tcp", port)
	if err != nil {
		tb.Fatalf("testnet: %v", err)
	}
	return n
}
