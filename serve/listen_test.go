package serve

import (
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSlowHeadersAreCut sends half a request and waits: the server closes
// the connection after ReadHeaderTimeout instead of holding it open. The
// read deadline is only there to end the test if it does hold it: it is
// the test's own deadline, which no load makes the server miss.
func TestSlowHeadersAreCut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	}()
	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n"))
	require.NoError(t, err)
	start := time.Now()
	require.NoError(t, conn.SetReadDeadline(testDeadline(t)))
	_, err = io.ReadAll(conn)
	elapsed := time.Since(start)
	assert.NoError(t, err, "closed by the server, not by the read deadline")
	// Not at once: the server waited for the headers (its clock started
	// before ours, so allow for that).
	assert.GreaterOrEqual(t, elapsed, ReadHeaderTimeout/2)

	// Cancelling ctx shuts the server down and Serve returns nil.
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(time.Until(testDeadline(t))):
		t.Fatal("Serve did not return")
	}
}
