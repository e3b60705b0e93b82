package mcpserver

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServeStdio: a client on stdin gets its answers on stdout, one JSON
// message a line, and the end of stdin ends the server cleanly, leaving
// stdout open.
func TestServeStdio(t *testing.T) {
	srv, err := New(newStore(t))
	require.NoError(t, err)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	out := &closeRecorder{Writer: outW}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, inR, out) }()

	lines := bufio.NewScanner(outR)
	ask := func(req string, id float64) map[string]any {
		t.Helper()
		_, err := io.WriteString(inW, req+"\n")
		require.NoError(t, err)
		for lines.Scan() {
			var m map[string]any
			require.NoError(t, json.Unmarshal(lines.Bytes(), &m), lines.Text())
			if got, ok := m["id"].(float64); ok && got == id {
				return m
			}
		}
		t.Fatalf("no answer to %s: %v", req, lines.Err())
		return nil
	}
	hello := ask(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`, 1)
	assert.Contains(t, hello["result"], "serverInfo")
	_, err = io.WriteString(inW, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	list := ask(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, 2)
	tools, _ := list["result"].(map[string]any)["tools"].([]any)
	assert.NotEmpty(t, tools)

	require.NoError(t, inW.Close())
	go func() { _, _ = io.Copy(io.Discard, outR) }()
	select {
	case err := <-done:
		require.NoError(t, err, "the end of stdin is a clean end")
	case <-ctx.Done():
		t.Fatal("ServeStdio did not end at the end of stdin")
	}
	assert.False(t, out.closed, "stdout stays open")
}

// TestServeStdioEndsWithItsContext: a client that never writes is left
// when ctx is done, without an error.
func TestServeStdioEndsWithItsContext(t *testing.T) {
	srv, err := New(newStore(t))
	require.NoError(t, err)
	r, w := io.Pipe()
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStdio(ctx, r, io.Discard) }()
	cancel()
	select {
	case err := <-done:
		assert.NoError(t, err)
	case <-time.After(30 * time.Second):
		t.Fatal("ServeStdio did not end with its context")
	}
}

// closeRecorder is stdout, recording whether it was closed.
type closeRecorder struct {
	io.Writer
	closed bool
}

func (c *closeRecorder) Close() error { c.closed = true; return nil }
