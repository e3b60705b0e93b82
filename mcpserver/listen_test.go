package mcpserver

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCheckLoopback accepts loopback addresses only.
func TestCheckLoopback(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:0", "127.1.2.3:8080", "[::1]:8080", "localhost:9000"} {
		assert.NoError(t, CheckLoopback(addr), addr)
	}
	for _, addr := range []string{":8080", "0.0.0.0:8080", "[::]:8080", "192.168.1.10:8080", "10.0.0.1:80",
		"example.com:80", "evil.localhost:80", "127.0.0.1", "", "[::ffff:10.0.0.1]:80"} {
		err := CheckLoopback(addr)
		assert.ErrorIs(t, err, ErrNotLoopback, addr)
		_, err = Listen(addr)
		assert.ErrorIs(t, err, ErrNotLoopback, "Listen refuses %q", addr)
	}
}

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPTransport serves the server over streamable HTTP on 127.0.0.1:
// a client lists the tools and reads a job's tests; the flaky list needs
// the admin token on the request, as the API needs it; a request naming
// another host (DNS rebinding) is refused; cancelling stops the server.
func TestHTTPTransport(t *testing.T) {
	st := newStore(t)
	base, _ := goRuns(t, st)
	_, err := st.Record(context.Background(), "example/repo", "", base)
	require.NoError(t, err)
	srv, err := New(st, WithAdminToken("admin-token"))
	require.NoError(t, err)
	ln, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeListener(ctx, ln) }()
	endpoint := "http://" + ln.Addr().String()

	session := func(token string) *mcp.ClientSession {
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
			&mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: bearer{token}}, DisableStandaloneSSE: true}, nil)
		require.NoError(t, err)
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	admin := session("admin-token")
	var names []string
	for tool, err := range admin.Tools(ctx, nil) {
		require.NoError(t, err)
		names = append(names, tool.Name)
	}
	assert.Len(t, names, 5)
	res, err := admin.ReadResource(ctx, &mcp.ReadResourceParams{URI: JobTestsURI("job-1")})
	require.NoError(t, err)
	_, want := apiGet(t, st, "/api/jobs/job-1/tests")
	assert.Equal(t, string(want), res.Contents[0].Text)

	got, isErr := call(t, admin, ToolFlakyList, FlakyListInput{Repo: "example/repo"})
	require.False(t, isErr, "%s", got)
	_, want = apiGet(t, st, "/api/repos/tests/flaky?repo=example%2Frepo", "Authorization", "Bearer admin-token")
	assert.JSONEq(t, string(want), string(got))
	assert.Contains(t, string(got), "TestFlaky")

	for token, status := range map[string]int{"": 401, "wrong": 403} {
		got, isErr = call(t, session(token), ToolFlakyList, FlakyListInput{Repo: "example/repo"})
		require.True(t, isErr, "token %q", token)
		assert.Equal(t, status, statusOf(t, got), "token %q", token)
	}

	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	req.Host = "attacker.example"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a request for another host is refused")

	req, err = http.NewRequest(http.MethodPost, endpoint, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.Header.Set("Origin", "https://attacker.example")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a browser's cross-site request is refused")

	cancel()
	select {
	case err := <-errc:
		require.NoError(t, err)
	case <-time.After(ShutdownTimeout + 5*time.Second):
		t.Fatal("the server did not stop")
	}
}

// TestFlakyListNeedsAnAdminToken calls flaky_list on a server without an
// admin token (refused, 403) and with one (the API's answer).
func TestFlakyListNeedsAnAdminToken(t *testing.T) {
	st := newStore(t)
	base, _ := goRuns(t, st)
	_, err := st.Record(context.Background(), "example/repo", "", base)
	require.NoError(t, err)
	got, isErr := call(t, connect(t, st), ToolFlakyList, FlakyListInput{Repo: "example/repo"})
	require.True(t, isErr)
	assert.Equal(t, 403, statusOf(t, got))
	assert.NotContains(t, string(got), "TestFlaky")

	got, isErr = call(t, connect(t, st, WithAdminToken("admin-token")), ToolFlakyList, FlakyListInput{Repo: "example/repo"})
	require.False(t, isErr, "%s", got)
	_, want := apiGet(t, st, "/api/repos/tests/flaky?repo=example%2Frepo", "Authorization", "Bearer admin-token")
	assert.JSONEq(t, string(want), string(got))
	assert.Contains(t, string(got), "TestFlaky")
}
