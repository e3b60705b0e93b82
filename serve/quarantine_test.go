package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

const quarantinePath = "/api/repos/quarantine"

// quarantineServer is a server with the admin token over st, its access
// log, and the server itself (its cache is looked at).
type quarantineServer struct {
	srv  *httptest.Server
	s    *Server
	logs *bytes.Buffer
}

func newQuarantineServer(t *testing.T, st store.Store, o Options) *quarantineServer {
	t.Helper()
	qs := &quarantineServer{logs: &bytes.Buffer{}}
	o.AccessLog = qs.logs
	qs.s = New(st, o)
	qs.srv = httptest.NewServer(qs.s.Handler())
	t.Cleanup(qs.srv.Close)
	return qs
}

// do sends method to path with body ("": none) and header pairs; a POST
// is application/json unless a Content-Type pair says otherwise.
func (qs *quarantineServer) do(t *testing.T, method, path, body string, header ...string) (*http.Response, []byte) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, qs.srv.URL+path, rd)
	require.NoError(t, err)
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := qs.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	require.NoError(t, err)
	return resp, data
}

var admin = []string{"Authorization", "Bearer " + token}

// entryBody is the JSON body adding test to acme/api in env ("": the key
// left out) until expires.
func entryBody(t *testing.T, env, test string, expires time.Time) string {
	t.Helper()
	m := map[string]string{"repository": "acme/api", "test_id": test, "owner": "ana@example.com", "reason": "times out on arm", "expires": expires.Format(time.RFC3339)}
	if env != "" {
		m["environment"] = env
	}
	data, err := json.Marshal(m)
	require.NoError(t, err)
	return string(data)
}

func listQuarantine(t *testing.T, qs *quarantineServer, repo string) []testrun.ListedQuarantine {
	t.Helper()
	resp, body := qs.do(t, http.MethodGet, quarantinePath+"?repo="+url.QueryEscape(repo), "", admin...)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
	assert.Empty(t, resp.Header.Get("ETag"), "an admin answer is never kept")
	got := decode[quarantineResponse](t, body)
	assert.Equal(t, repo, got.Repository)
	require.NotNil(t, got.Entries, "an empty listing is [], not null")
	return got.Entries
}

// TestQuarantineAdmin: every quarantine route refuses a request without a
// bearer token (401), with another token (403), and every request of a
// server without an admin token (403); a refused write writes nothing.
func TestQuarantineAdmin(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		qs := newQuarantineServer(t, st, Options{AdminToken: token})
		none := newQuarantineServer(t, st, Options{})
		body := entryBody(t, "", "pkg::T", time.Now().Add(time.Hour))
		routes := []struct{ method, path, body string }{
			{http.MethodGet, quarantinePath + "?repo=acme%2Fapi", ""},
			{http.MethodPost, quarantinePath, body},
			{http.MethodDelete, quarantinePath + "?repo=acme%2Fapi&test=pkg%3A%3AT", ""},
		}
		for _, rt := range routes {
			for _, tc := range []struct {
				name   string
				srv    *quarantineServer
				header []string
				status int
			}{
				{"no token", qs, nil, http.StatusUnauthorized},
				{"basic", qs, []string{"Authorization", "Basic " + token}, http.StatusUnauthorized},
				{"empty bearer", qs, []string{"Authorization", "Bearer "}, http.StatusUnauthorized},
				{"wrong token", qs, []string{"Authorization", "Bearer nope"}, http.StatusForbidden},
				{"token prefix", qs, []string{"Authorization", "Bearer " + token[:5]}, http.StatusForbidden},
				{"token and more", qs, []string{"Authorization", "Bearer " + token + "x"}, http.StatusForbidden},
				{"server without token, no token", none, nil, http.StatusUnauthorized},
				{"server without token, a token", none, admin, http.StatusForbidden},
			} {
				t.Run(rt.method+" "+tc.name, func(t *testing.T) {
					resp, got := tc.srv.do(t, rt.method, rt.path, rt.body, tc.header...)
					assertProblem(t, resp, got, tc.status)
					if tc.status == http.StatusUnauthorized {
						assert.Equal(t, `Bearer realm="testresults"`, resp.Header.Get("WWW-Authenticate"))
					}
				})
			}
		}
		q, err := store.QuarantineOf(st)
		require.NoError(t, err)
		entries, err := q.QuarantineList(context.Background(), "")
		require.NoError(t, err)
		assert.Empty(t, entries, "no refused request wrote an entry")
		assert.NotContains(t, qs.logs.String(), token, "the access log never holds a token")
	})
}

// TestQuarantineAPI adds, lists, renews and removes entries over the API:
// 201 for a new entry, 200 when it replaced one (renewed: a new creation
// and expiry), 204 removed, 404 when there was none; the listing has the
// form flaky quarantine list --json prints, read after every write (no
// cache keeps it); an entry the API added is the one run --quarantine
// looks up and is excused by.
func TestQuarantineAPI(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		qs := newQuarantineServer(t, st, Options{AdminToken: token})
		ctx := context.Background()
		assert.Empty(t, listQuarantine(t, qs, "acme/api"))

		expires := time.Now().Add(24 * time.Hour).Truncate(time.Second).UTC()
		resp, body := qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", "pkg::TestA", expires), admin...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		assert.Equal(t, "no-store", resp.Header.Get("Cache-Control"))
		added := decode[testrun.ListedQuarantine](t, body)
		assert.Equal(t, "pkg::TestA", added.TestID)
		assert.Equal(t, "", added.Environment, "absent: every environment")
		assert.Equal(t, "ana@example.com", added.Owner)
		assert.True(t, expires.Equal(added.Expires))
		assert.False(t, added.Created.IsZero(), "the store stamps its creation")
		assert.False(t, added.Expired)

		list := listQuarantine(t, qs, "acme/api")
		require.Len(t, list, 1, "the listing read after the write shows it")
		assert.Equal(t, added, list[0], "the listing holds the entry as the write answered it")
		var raw struct {
			Entries []map[string]json.RawMessage `json:"entries"`
		}
		_, body = qs.do(t, http.MethodGet, quarantinePath+"?repo=acme%2Fapi", "", admin...)
		require.NoError(t, json.Unmarshal(body, &raw))
		var keys []string
		for k := range raw.Entries[0] {
			keys = append(keys, k)
		}
		assert.ElementsMatch(t, []string{"repository", "environment", "test_id", "owner", "reason", "created", "expires", "expired"}, keys)

		// The same key again renews the entry: 200.
		later := expires.Add(time.Hour)
		resp, body = qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", "pkg::TestA", later), admin...)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		renewed := decode[testrun.ListedQuarantine](t, body)
		assert.True(t, later.Equal(renewed.Expires))
		assert.False(t, renewed.Created.Before(added.Created))
		// One environment's own entry is another entry: 201.
		resp, body = qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "linux", "pkg::TestA", expires), admin...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		list = listQuarantine(t, qs, "acme/api")
		require.Len(t, list, 2)
		assert.Equal(t, []string{"", "linux"}, []string{list[0].Environment, list[1].Environment})
		assert.True(t, later.Equal(list[0].Expires), "the renewed entry is listed")
		assert.Empty(t, listQuarantine(t, qs, "acme/web"), "another repository's listing")

		// What run --quarantine looks up holds the API's entries, and they
		// excuse a failure of a job that started after them.
		q, err := store.QuarantineOf(st)
		require.NoError(t, err)
		found, err := q.QuarantineLookup(ctx, "acme/api", "linux", []string{"pkg::TestA"})
		require.NoError(t, err)
		require.Len(t, found, 2)
		run := mkRun("q1", testrun.KindBase, 0, map[string]testrun.Outcome{"pkg::TestA": fail, "pkg::TestB": pass}, nil, nil)
		excused := testrun.Quarantine(run, found, "linux", time.Now().Add(time.Second))
		assert.True(t, excused.Passes, excused.Reason())
		assert.Equal(t, []string{"pkg::TestA"}, excused.Excused())
		before := testrun.Quarantine(run, found, "linux", added.Created.Add(-time.Second))
		assert.False(t, before.Passes, "an entry made after the job started does not excuse it")

		// DELETE: the environment's entry, then the one of every
		// environment, then none is left: 404.
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3ATestA&env=linux", "", admin...)
		require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body))
		assert.Empty(t, body)
		list = listQuarantine(t, qs, "acme/api")
		require.Len(t, list, 1)
		assert.Equal(t, "", list[0].Environment)
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3ATestA&env=linux", "", admin...)
		assertProblem(t, resp, body, http.StatusNotFound)
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3ATestA&env=", "", admin...)
		require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body), "env= is every environment's entry")
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3ATestA", "", admin...)
		assertProblem(t, resp, body, http.StatusNotFound)
		assert.Empty(t, listQuarantine(t, qs, "acme/api"))
		found, err = q.QuarantineLookup(ctx, "acme/api", "linux", []string{"pkg::TestA"})
		require.NoError(t, err)
		assert.Empty(t, found, "a removed entry excuses nothing")

		assert.Zero(t, qs.s.cache.len(), "no quarantine answer is kept")
		logs := qs.logs.String()
		for _, l := range []string{`"POST" "/api/repos/quarantine" 201`, `"POST" "/api/repos/quarantine" 200`,
			`"DELETE" "/api/repos/quarantine?repo=acme%2Fapi&test=pkg%3A%3ATestA&env=linux" 204`,
			`"DELETE" "/api/repos/quarantine?repo=acme%2Fapi&test=pkg%3A%3ATestA" 404`} {
			assert.Contains(t, logs, l)
		}
	})
}

// TestQuarantineExpiredMarked: an entry past its expiry at the server's
// clock is listed, marked expired.
func TestQuarantineExpiredMarked(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		qs := newQuarantineServer(t, st, Options{AdminToken: token})
		resp, body := qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", "pkg::Soon", time.Now().Add(time.Hour)), admin...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		resp, body = qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", "pkg::Later", time.Now().Add(72*time.Hour)), admin...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		tomorrow := newQuarantineServer(t, st, Options{AdminToken: token, Now: func() time.Time { return time.Now().Add(24 * time.Hour) }})
		list := listQuarantine(t, tomorrow, "acme/api")
		require.Len(t, list, 2)
		assert.Equal(t, "pkg::Later", list[0].TestID)
		assert.False(t, list[0].Expired)
		assert.Equal(t, "pkg::Soon", list[1].TestID)
		assert.True(t, list[1].Expired, "expired at the server's clock, and still listed")
	})
}

// TestQuarantineBadRequests: a body that is not one strict entry is 400
// (413 too large, 415 not JSON), an entry the rule refuses 422, each a
// problem; none writes anything.
func TestQuarantineBadRequests(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		qs := newQuarantineServer(t, st, Options{AdminToken: token})
		now := time.Now()
		good := entryBody(t, "", "pkg::T", now.Add(time.Hour))
		with := func(old, new string) string {
			require.Contains(t, good, old)
			return strings.Replace(good, old, new, 1)
		}
		for _, tc := range []struct {
			name, body, ctype, says string
			status                  int
		}{
			{"unknown field", with(`"owner"`, `"auto":true,"owner"`), "", `unknown field "entry.auto"`, http.StatusBadRequest},
			{"created given", with(`"owner"`, `"created":"2026-01-01T00:00:00Z","owner"`), "", `unknown field "entry.created"`, http.StatusBadRequest},
			{"case variant", with(`"owner"`, `"OWNER"`), "", "differs only in case", http.StatusBadRequest},
			{"key twice", with(`"owner":"ana@example.com"`, `"owner":"ana","owner":"bo"`), "", "given twice", http.StatusBadRequest},
			{"two objects", good + good, "", "data after the entry's object", http.StatusBadRequest},
			{"a list", "[" + good + "]", "", "want an object", http.StatusBadRequest},
			{"syntax", `{"repository":`, "", "entry", http.StatusBadRequest},
			{"empty body", "", "", "", http.StatusBadRequest},
			{"no owner", with(`"owner":"ana@example.com",`, ""), "", `missing "owner"`, http.StatusBadRequest},
			{"null owner", with(`"ana@example.com"`, "null"), "", "entry.owner is null", http.StatusBadRequest},
			{"bad expires", with(now.Add(time.Hour).Format(time.RFC3339), "14d"), "", "not an RFC 3339 time", http.StatusBadRequest},
			{"too big", with("times out on arm", strings.Repeat("r", testrun.MaxQuarantineRequest)), "", "larger than 64 KiB", http.StatusRequestEntityTooLarge},
			{"empty owner", with(`"ana@example.com"`, `""`), "", "the owner is required", http.StatusUnprocessableEntity},
			{"two-line reason", with("times out on arm", `a\nb`), "", "the reason must be one line", http.StatusUnprocessableEntity},
			{"long owner", with("ana@example.com", strings.Repeat("o", testrun.MaxQuarantineOwner+1)), "", "the owner is", http.StatusUnprocessableEntity},
			{"past expires", entryBody(t, "", "pkg::T", now.Add(-time.Hour)), "", "not after now", http.StatusUnprocessableEntity},
			{"too far", entryBody(t, "", "pkg::T", now.Add(testrun.MaxQuarantine+time.Hour)), "", "more than 90 days", http.StatusUnprocessableEntity},
			{"text/plain", good, "text/plain", "application/json", http.StatusUnsupportedMediaType},
			{"form", good, "application/x-www-form-urlencoded", "application/json", http.StatusUnsupportedMediaType},
			{"latin-1", good, "application/json; charset=iso-8859-1", "application/json", http.StatusUnsupportedMediaType},
			{"no type", good, "-", "application/json", http.StatusUnsupportedMediaType},
		} {
			t.Run(tc.name, func(t *testing.T) {
				header := append([]string{}, admin...)
				switch tc.ctype {
				case "":
				case "-":
					header = append(header, "Content-Type", "")
				default:
					header = append(header, "Content-Type", tc.ctype)
				}
				resp, body := qs.do(t, http.MethodPost, quarantinePath, tc.body, header...)
				assertProblem(t, resp, body, tc.status)
				assert.Contains(t, decode[problem](t, body).Detail, tc.says)
				assert.NotContains(t, decode[problem](t, body).Detail, "testrun:", "the rule's words, not the package's")
				if tc.status == http.StatusUnsupportedMediaType {
					assert.Equal(t, "application/json", resp.Header.Get("Accept-Post"))
				}
			})
		}
		// A charset of UTF-8 is JSON's own.
		resp, body := qs.do(t, http.MethodPost, quarantinePath, good, append(admin, "Content-Type", "application/json; charset=UTF-8")...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3AT", "", admin...)
		require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body))

		for _, tc := range []struct{ name, method, path string }{
			{"list without repo", http.MethodGet, quarantinePath},
			{"list empty repo", http.MethodGet, quarantinePath + "?repo="},
			{"list unknown param", http.MethodGet, quarantinePath + "?repo=a&test=b"},
			{"list repo twice", http.MethodGet, quarantinePath + "?repo=a&repo=b"},
			{"list repo newline", http.MethodGet, quarantinePath + "?repo=a%0Ab"},
			{"add with a parameter", http.MethodPost, quarantinePath + "?repo=acme%2Fapi"},
			{"remove without test", http.MethodDelete, quarantinePath + "?repo=acme%2Fapi"},
			{"remove without repo", http.MethodDelete, quarantinePath + "?test=t"},
			{"remove unknown param", http.MethodDelete, quarantinePath + "?repo=a&test=t&x=1"},
			{"remove test NUL", http.MethodDelete, quarantinePath + "?repo=a&test=a%00b"},
			{"remove test not UTF-8", http.MethodDelete, quarantinePath + "?repo=a&test=%FF"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				body := ""
				if tc.method == http.MethodPost {
					body = good
				}
				resp, got := qs.do(t, tc.method, tc.path, body, admin...)
				assertProblem(t, resp, got, http.StatusBadRequest)
			})
		}
		// Another method: 405 naming the ones taken.
		resp, body = qs.do(t, http.MethodPut, quarantinePath, good, admin...)
		assertProblem(t, resp, body, http.StatusMethodNotAllowed)
		assert.Equal(t, "GET, HEAD, POST, DELETE", resp.Header.Get("Allow"))
		// The rest of the API still takes no write.
		resp, body = qs.do(t, http.MethodPost, "/api/jobs", good, admin...)
		assertProblem(t, resp, body, http.StatusMethodNotAllowed)
		assert.Equal(t, "GET, HEAD", resp.Header.Get("Allow"))

		q, err := store.QuarantineOf(st)
		require.NoError(t, err)
		entries, err := q.QuarantineList(context.Background(), "")
		require.NoError(t, err)
		assert.Empty(t, entries, "no refused request wrote an entry")
	})
}

// TestQuarantineEscaping: ids and texts are kept as given and answered as
// JSON escapes them (no raw markup in the body), and a hostile id is
// removed by its URL-encoded form.
func TestQuarantineEscaping(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		qs := newQuarantineServer(t, st, Options{AdminToken: token})
		id := `pkg::Test["a/b"]<script>alert(1)</script>&` + "\u2028\t\x1b[31mé"
		resp, body := qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", id, time.Now().Add(time.Hour)), admin...)
		require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
		for _, raw := range []string{"<script>", "\u2028", "\x1b", "&"} {
			assert.NotContains(t, string(body), raw)
		}
		assert.Equal(t, id, decode[testrun.ListedQuarantine](t, body).TestID)
		list := listQuarantine(t, qs, "acme/api")
		require.Len(t, list, 1)
		assert.Equal(t, id, list[0].TestID, "the id as given")
		resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?"+url.Values{"repo": {"acme/api"}, "test": {id}}.Encode(), "", admin...)
		require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body))
		// A problem quotes no id back raw.
		resp, body = qs.do(t, http.MethodGet, quarantinePath+"?repo=a&"+url.QueryEscape("<b>x")+"=1", "", admin...)
		assertProblem(t, resp, body, http.StatusBadRequest)
		assert.NotContains(t, string(body), "<b>")
	})
}

// TestQuarantineTelemetry: the quarantine requests get the server's own
// spans like every route, named by method and route (never by the test id
// or repository), with their status; no span attribute holds the token.
func TestQuarantineTelemetry(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	qs := newQuarantineServer(t, st, Options{AdminToken: token, TracerProvider: tp})
	resp, body := qs.do(t, http.MethodPost, quarantinePath, entryBody(t, "", "pkg::Secret", time.Now().Add(time.Hour)), admin...)
	require.Equal(t, http.StatusCreated, resp.StatusCode, string(body))
	listQuarantine(t, qs, "acme/api")
	resp, body = qs.do(t, http.MethodDelete, quarantinePath+"?repo=acme%2Fapi&test=pkg%3A%3ASecret", "", admin...)
	require.Equal(t, http.StatusNoContent, resp.StatusCode, string(body))

	spans := rec.Ended()
	require.Len(t, spans, 3)
	want := []struct {
		name   string
		status int64
	}{{"POST /api/repos/quarantine", 201}, {"GET /api/repos/quarantine", 200}, {"DELETE /api/repos/quarantine", 204}}
	for i, sp := range spans {
		assert.Equal(t, want[i].name, sp.Name())
		var status int64
		for _, kv := range sp.Attributes() {
			if kv.Key == "http.response.status_code" {
				status = kv.Value.AsInt64()
			}
			assert.NotContains(t, kv.Value.String(), token, "span attribute %s", kv.Key)
		}
		assert.Equal(t, want[i].status, status, sp.Name())
	}
}
