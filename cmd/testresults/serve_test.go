package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// lockedBuffer is a bytes.Buffer the server's goroutines may write to.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// timedRun builds a complete run that started at minute m of a fixed day.
func timedRun(id string, kind testrun.Kind, m int, outcomes map[string]testrun.Outcome) *testrun.Run {
	var execs []testrun.Execution
	for tid, o := range outcomes {
		msg := ""
		if o.Failing() {
			msg = tid + " broke"
		}
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: o, Message: msg})
	}
	n := len(execs)
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID, r.Kind, r.Tree = id, kind, "tree"
	r.StartedAt = time.Date(2026, 11, 30, 9, m, 0, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)
	return r
}

func writeRunFile(t *testing.T, dir string, r *testrun.Run) string {
	t.Helper()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	p := filepath.Join(dir, r.ID+".json")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}

// TestServeCommand records runs with the store flags, serves them, checks
// that ?format=otel gives the bytes of the export command, and stops the
// server by cancelling its context (what SIGINT or SIGTERM does).
func TestServeCommand(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	vars := map[string]string{"HANGAR_STORE": db}
	getenv := func(k string) string { return vars[k] }
	base := timedRun("base-1", testrun.KindBase, 0, map[string]testrun.Outcome{"t::a": passed, "t::b": passed})
	after := timedRun("after-1", testrun.KindAfterTurn, 5, map[string]testrun.Outcome{"t::a": failed, "t::b": passed})

	fs := newFlagSet("parse")
	so := addStoreFlags(fs)
	require.NoError(t, fs.Parse([]string{"--record", "--repo", "acme/api", "--job-id", "job-7"}))
	ctx := context.Background()
	require.NoError(t, so.record(ctx, Env{Getenv: getenv}, base, after))
	require.NoError(t, so.record(ctx, Env{Getenv: getenv}, after), "recording again is a no-op")

	tokenFile := filepath.Join(dir, "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("tok-123\n"), 0o600))
	addr := testnet.FreeAddr(t)
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(sctx, []string{"serve", "--listen", addr, "--admin-token-file", tokenFile}, Env{
			Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: stderr, Getenv: getenv, Environ: func() []string { return nil },
		})
	}()
	client := &http.Client{Timeout: 10 * time.Second}
	get := func(path string, hdr ...string) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, "http://"+addr+path, nil)
		require.NoError(t, err)
		if len(hdr) == 2 {
			req.Header.Set(hdr[0], hdr[1])
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		require.True(t, time.Now().Before(deadline), "the server did not start: %s", stderr.String())
		time.Sleep(20 * time.Millisecond)
	}

	code, body := get("/api/jobs/job-7/tests")
	require.Equal(t, http.StatusOK, code, string(body))
	assert.Contains(t, string(body), `"new_failures":[{"id":"t::a"`)

	code, body = get("/api/jobs/job-7/tests?format=otel")
	require.Equal(t, http.StatusOK, code, string(body))
	var out bytes.Buffer
	ec := run(ctx, []string{"export", "--format", "otlp-json", "--job", "job-7", "-q",
		writeRunFile(t, dir, base), writeRunFile(t, dir, after)}, Env{
		Stdin: bytes.NewReader(nil), Stdout: &out, Stderr: io.Discard,
		Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
	})
	require.Equal(t, exitOK, ec)
	assert.Equal(t, out.String(), string(body), "?format=otel writes what export writes")

	code, _ = get("/api/repos/tests/flaky?repo=acme/api")
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _ = get("/api/repos/tests/flaky?repo=acme/api", "Authorization", "Bearer wrong")
	assert.Equal(t, http.StatusForbidden, code)
	code, body = get("/api/repos/tests/flaky?repo=acme/api", "Authorization", "Bearer tok-123")
	assert.Equal(t, http.StatusOK, code, string(body))

	code, body = get("/jobs/job-7")
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, string(body), "t::a broke")

	cancel()
	select {
	case c := <-done:
		assert.Equal(t, exitOK, c, stderr.String())
	case <-time.After(15 * time.Second):
		t.Fatal("serve did not stop when its context was cancelled")
	}
	logs := stderr.String()
	assert.Contains(t, logs, `"/api/jobs/job-7/tests" 200`)
	assert.Contains(t, logs, "testresults serve: stopped")
}

func TestServeUsage(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"argument", []string{"serve", "extra"}, "takes no arguments"},
		{"missing token file", []string{"serve", "--admin-token-file", "/nonexistent/token"}, "--admin-token-file"},
		{"unknown flag", []string{"serve", "--nope"}, "unknown flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runCmdEnv(t, map[string]string{"HANGAR_STORE": filepath.Join(t.TempDir(), "s.db")}, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errs, tc.want)
		})
	}
	code, out, _ := runCmdEnv(t, nil, "serve", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "/api/jobs/{id}/tests")
}

func TestRecordFlags(t *testing.T) {
	ctx := context.Background()
	t.Run("off without --record", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "s.db")
		fs := newFlagSet("x")
		so := addStoreFlags(fs)
		require.NoError(t, fs.Parse([]string{"--store", db}))
		require.NoError(t, so.record(ctx, Env{Getenv: func(string) string { return "" }}, timedRun("r", testrun.KindBase, 0, map[string]testrun.Outcome{"a": passed})))
		_, err := os.Stat(db)
		assert.True(t, os.IsNotExist(err), "nothing is opened or written")
	})
	t.Run("shares flaky's --store and --repo", func(t *testing.T) {
		db := filepath.Join(t.TempDir(), "s.db")
		fs, fo := newFlakyFlags()
		so := fo.rec
		require.NoError(t, fs.Parse([]string{"--store", db, "--repo", "acme/web", "--record", "--session-ref", "S", "--turn-number", "2"}))
		require.NoError(t, so.record(ctx, Env{Getenv: func(string) string { return "" }}, timedRun("r1", testrun.KindAfterTurn, 0, map[string]testrun.Outcome{"a": passed})))
		st, err := store.Open(ctx, db)
		require.NoError(t, err)
		defer st.Close()
		runs, err := st.SessionRuns(ctx, "S")
		require.NoError(t, err)
		require.Len(t, runs, 1)
		assert.Equal(t, "acme/web", runs[0].Repo)
		require.NotNil(t, runs[0].Turn)
		assert.Equal(t, 2, *runs[0].Turn)
	})
	t.Run("bad turn", func(t *testing.T) {
		fs := newFlagSet("x")
		so := addStoreFlags(fs)
		require.NoError(t, fs.Parse([]string{"--record", "--turn-number", "-3", "--store", filepath.Join(t.TempDir(), "s.db")}))
		err := so.record(ctx, Env{Getenv: func(string) string { return "" }}, timedRun("r", testrun.KindBase, 0, nil))
		var ue *usageError
		assert.ErrorAs(t, err, &ue)
	})
	t.Run("hostile job id", func(t *testing.T) {
		fs := newFlagSet("x")
		so := addStoreFlags(fs)
		require.NoError(t, fs.Parse([]string{"--job-id", strings.Repeat("j", 300), "--store", filepath.Join(t.TempDir(), "s.db")}))
		err := so.record(ctx, Env{Getenv: func(string) string { return "" }}, timedRun("r", testrun.KindBase, 0, map[string]testrun.Outcome{"a": passed}))
		assert.ErrorContains(t, err, fmt.Sprint(store.MaxTagLength))
	})
}

// TestServeExportsItsSpans points OTEL_EXPORTER_OTLP_* at an OTLP/HTTP
// receiver on 127.0.0.1: the server's request spans arrive there by the
// time it has stopped.
func TestServeExportsItsSpans(t *testing.T) {
	recv, got := otlpHTTPRecorder(t, "/v1/traces")
	vars := map[string]string{
		"HANGAR_STORE":                filepath.Join(t.TempDir(), "s.db"),
		"OTEL_EXPORTER_OTLP_ENDPOINT": recv,
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
		"OTEL_EXPORTER_OTLP_INSECURE": "true",
		"OTEL_EXPORTER_OTLP_TIMEOUT":  "5000",
		"OTEL_SERVICE_NAME":           "serve-under-test",
	}
	assert.Equal(t, http.StatusNotFound, serveOneRequest(t, vars))
	assert.Contains(t, got(), "GET /api/jobs/{id}/tests")
	assert.Contains(t, got(), "serve-under-test")
}

// serveOneRequest runs serve in-process on a free 127.0.0.1 port with the
// environment vars, sends it one GET for a job that does not exist once it
// listens (within 10 s), stops it, requires it to end with exitOK (within
// 20 s) and returns the response's status code.
func serveOneRequest(t *testing.T, vars map[string]string) int {
	t.Helper()
	addr := testnet.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan int, 1)
	stderr := &lockedBuffer{}
	go func() {
		done <- run(ctx, []string{"serve", "--listen", addr}, Env{
			Stdin: bytes.NewReader(nil), Stdout: io.Discard, Stderr: stderr,
			Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil },
		})
	}()
	deadline := time.Now().Add(10 * time.Second)
	var resp *http.Response
	for {
		var err error
		resp, err = http.Get("http://" + addr + "/api/jobs/none/tests")
		if err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the server did not start: %s", stderr.String())
		time.Sleep(20 * time.Millisecond)
	}
	resp.Body.Close()
	cancel()
	select {
	case c := <-done:
		require.Equal(t, exitOK, c, stderr.String())
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not stop")
	}
	return resp.StatusCode
}

// otlpHTTPRecorder starts an HTTP server on 127.0.0.1 that answers every
// request as an OTLP/HTTP receiver would and keeps the bodies sent to path.
// It returns the server's URL and a function that returns those bodies.
func otlpHTTPRecorder(t *testing.T, path string) (string, func() string) {
	t.Helper()
	var mu sync.Mutex
	var got []byte
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		if r.URL.Path == path {
			got = append(got, b...)
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	t.Cleanup(s.Close)
	return s.URL, func() string {
		mu.Lock()
		defer mu.Unlock()
		return string(got)
	}
}
