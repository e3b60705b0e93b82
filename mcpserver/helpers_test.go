package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/serve"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// runners is the folder of the real runners' reports.
const runners = "../testdata/runners"

// forEach runs fn on a fresh store of each backend: SQLite, and the
// PostgreSQL server of TESTRESULTS_POSTGRES_URL (skipped without it).
func forEach(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for _, b := range []struct {
		name     string
		location func(testing.TB) string
	}{{"sqlite", teststore.SQLiteLocation}, {"postgres", teststore.PostgresLocation}} {
		t.Run(b.name, func(t *testing.T) {
			st, err := store.Open(context.Background(), b.location(t))
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			fn(t, st)
		})
	}
}

func newStore(t *testing.T) store.Store {
	t.Helper()
	st, err := store.Open(context.Background(), teststore.SQLiteLocation(t))
	require.NoError(t, err)
	t.Cleanup(func() { st.Close() })
	return st
}

// realRun reads the reports at paths (under testdata/runners) into a run
// of kind, as testresults parse does.
func realRun(t *testing.T, kind testrun.Kind, paths ...string) *testrun.Run {
	t.Helper()
	for i, p := range paths {
		paths[i] = filepath.Join(runners, p)
	}
	r, err := report.ReadRun(paths)
	require.NoError(t, err)
	r.ID = testrun.DeriveID(r.Reports)
	r.Kind = kind
	r.Tree = "tree-" + r.ID
	r.StartedAt = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)
	return r
}

// copyReport copies a report under testdata/runners into dir, with its
// first time="…" attribute changed (a second execution of the same check
// writes other times), and returns the copy's path.
func copyReport(t *testing.T, dir, path, time string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(runners, path))
	require.NoError(t, err)
	s := string(data)
	i := strings.Index(s, `time="`)
	require.GreaterOrEqual(t, i, 0, "%s has no time attribute", path)
	j := strings.Index(s[i+6:], `"`)
	s = s[:i+6] + time + s[i+6+j:]
	out := filepath.Join(dir, strings.ReplaceAll(path, "/", "_"))
	require.NoError(t, os.WriteFile(out, []byte(s), 0o644))
	return out
}

// bigRun is a complete run of n cases, all with outcome o, ids sorted as
// their numbers are.
func bigRun(id string, kind testrun.Kind, n int, o testrun.Outcome) *testrun.Run {
	execs := make([]testrun.Execution, n)
	for i := range execs {
		msg := ""
		if o.Failing() {
			msg = "case broke"
		}
		execs[i] = testrun.Execution{ID: fmt.Sprintf("pkg::Test%05d", i), Scope: "s", Outcome: o, Message: msg}
	}
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: id + ".xml", Dialect: "junit", Tests: &n, SHA256: strings.Repeat(id[:1], 64), Bytes: 1}, execs, nil)
	r := b.Build()
	r.ID, r.Kind, r.Tree = id, kind, "tree-"+id
	r.StartedAt = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)
	return r
}

func record(t *testing.T, st store.Store, sr store.StoredRun) {
	t.Helper()
	_, err := st.RecordRun(context.Background(), sr)
	require.NoError(t, err)
}

// connect returns a client session with a server over st, over the SDK's
// in-memory transport.
func connect(t *testing.T, st store.Store, opts ...Option) *mcp.ClientSession {
	t.Helper()
	srv, err := New(st, opts...)
	require.NoError(t, err)
	ct, stt := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCP().Connect(ctx, stt, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

// call calls a tool and returns the JSON of its one text content, and
// whether the tool failed.
func call(t *testing.T, cs *mcp.ClientSession, name string, args any) (json.RawMessage, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1, "one content block")
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "a text content block, not %T", res.Content[0])
	require.True(t, json.Valid([]byte(text.Text)), "the text is JSON: %s", text.Text)
	if !res.IsError {
		sc, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.JSONEq(t, text.Text, string(sc), "structured content and text are the same JSON")
	}
	return json.RawMessage(text.Text), res.IsError
}

// apiGet is the query API's answer to target, from a server of its own.
func apiGet(t *testing.T, st store.Store, target string, header ...string) (int, []byte) {
	t.Helper()
	h := serve.New(st, serve.Options{AdminToken: "admin-token"}).Handler()
	req := httptest.NewRequest(http.MethodGet, target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

func detailOf(t *testing.T, problem []byte) string {
	t.Helper()
	var p struct {
		Status int    `json:"status"`
		Detail string `json:"detail"`
	}
	require.NoError(t, json.Unmarshal(problem, &p), "%s", problem)
	return p.Detail
}

func statusOf(t *testing.T, problem []byte) int {
	t.Helper()
	var p struct {
		Status int `json:"status"`
	}
	require.NoError(t, json.Unmarshal(problem, &p), "%s", problem)
	return p.Status
}

// filepathRel is path relative to the runners folder (realRun joins it).
func filepathRel(path string) (string, error) {
	abs, err := filepath.Abs(runners)
	if err != nil {
		return "", err
	}
	return filepath.Rel(abs, path)
}
