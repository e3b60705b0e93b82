package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangar-dev/testresults/serve"
)

// ErrNotLoopback is wrapped by Listen's refusal of an address that is not
// a loopback one.
var ErrNotLoopback = errors.New("mcpserver: not a loopback address")

// SessionTimeout closes an HTTP session idle this long.
const SessionTimeout = 30 * time.Minute

// CheckLoopback refuses addr (host:port) unless its host is a loopback IP
// address (127.0.0.0/8, ::1) or "localhost". An empty host (every
// interface), any other name and any other address are refused: the
// server has no authentication of its own, so it is reachable from this
// machine only. There is no way around it; a server for other machines
// belongs behind a proxy that authenticates.
func CheckLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotLoopback, err)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.IsLoopback() {
		return fmt.Errorf("%w: %q (want 127.0.0.1:PORT, [::1]:PORT or localhost:PORT)", ErrNotLoopback, addr)
	}
	return nil
}

// Listen listens on addr over TCP once CheckLoopback accepts it, and
// closes the listener again unless the address it got is a loopback one
// ("localhost" could name another).
func Listen(addr string) (net.Listener, error) {
	if err := CheckLoopback(addr); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("mcpserver: %w", err)
	}
	if ta, ok := ln.Addr().(*net.TCPAddr); !ok || !ta.IP.IsLoopback() {
		got := ln.Addr()
		_ = ln.Close()
		return nil, fmt.Errorf("%w: %s listens on %s", ErrNotLoopback, addr, got)
	}
	return ln, nil
}

// HTTPHandler returns the server over the streamable HTTP transport: DNS
// rebinding protection (a request to the loopback address must name a
// loopback host) and cross-origin protection (a browser's cross-site
// request is refused) in front of it.
func (s *Server) HTTPHandler() http.Handler {
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.mcp },
		&mcp.StreamableHTTPOptions{SessionTimeout: SessionTimeout})
	return http.NewCrossOriginProtection().Handler(h)
}

// Timeouts of the HTTP transport. A response may stream for as long as a
// tool call takes, so there is no write timeout; the handler bounds each
// call (serve's request timeout) instead.
const (
	ReadHeaderTimeout = 5 * time.Second
	IdleTimeout       = 2 * time.Minute
	ShutdownTimeout   = 10 * time.Second
)

// ServeListener serves the HTTP transport on ln until ctx is done, then
// stops: it stops accepting, lets calls in flight finish within
// ShutdownTimeout, and returns nil.
func (s *Server) ServeListener(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.HTTPHandler(),
		ReadHeaderTimeout: ReadHeaderTimeout,
		IdleTimeout:       IdleTimeout,
		MaxHeaderBytes:    serve.MaxHeaderBytes,
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("mcpserver: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		// A client's event stream stays open until it goes: cut it.
		err = srv.Close()
	}
	if serr := <-errc; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return fmt.Errorf("mcpserver: %w", serr)
	}
	if err != nil {
		return fmt.Errorf("mcpserver: shutdown: %w", err)
	}
	return nil
}
