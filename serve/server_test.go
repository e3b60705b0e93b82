package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

const (
	pass  = testrun.OutcomePassed
	fail  = testrun.OutcomeFailed
	token = "s3cret-admin-token"
	xss   = `<script>alert("x")</script> & more`
)

// fixture records job-1 (a base run, a failing after-turn run, an
// uncounted gate run), session sess-1 (a1 on turn 1, s2 on turn 2) and
// job-big (a run of 12,001 cases), and returns a test server over it.
type fixture struct {
	srv        *httptest.Server
	st         store.Store
	base, a1   *testrun.Run
	gate, s2   *testrun.Run
	big        *testrun.Run
	accessLogs *bytes.Buffer
}

func newFixture(t *testing.T, st store.Store) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{st: st, accessLogs: &bytes.Buffer{}}
	f.base = mkRun("b1", testrun.KindBase, 0, map[string]testrun.Outcome{"pkg::TestA": pass, "pkg::TestB": fail}, nil, ptr(0.5))
	f.a1 = mkRun("a1", testrun.KindAfterTurn, 1, map[string]testrun.Outcome{"pkg::TestA": fail, "pkg::TestB": fail, "pkg::TestC": pass},
		map[string]string{"pkg::TestA": xss}, ptr(0.625), "pkg::TestFlaky")
	f.gate = mkRun("g1", testrun.KindGate, 2, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil)
	f.s2 = mkRun("s2", testrun.KindAfterTurn, 3, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil)
	many := map[string]testrun.Outcome{}
	for i := range 12001 {
		many[fmt.Sprintf("big::Test%05d", i)] = pass
	}
	many["big::Test00007"] = fail
	f.big = mkRun("big1", testrun.KindAfterTurn, 4, many, nil, nil)
	one := 1
	two := 2
	for _, sr := range []store.StoredRun{
		{Run: f.base, Repo: "acme/api", JobID: "job-1"},
		{Run: f.a1, Repo: "acme/api", JobID: "job-1", SessionRef: "sess-1", Turn: &one},
		{Run: f.gate, Repo: "acme/api", JobID: "job-1"},
		{Run: f.s2, Repo: "acme/api", SessionRef: "sess-1", Turn: &two},
		{Run: f.big, Repo: "acme/api", JobID: "job-big"},
	} {
		_, err := st.RecordRun(ctx, sr)
		require.NoError(t, err)
	}
	// A flaky list for acme/api.
	for i, id := range []string{"f1", "f2"} {
		_, err := st.Record(ctx, "acme/api", "linux", mkRun(id, testrun.KindBase, 10+i, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil, "pkg::Retried"))
		require.NoError(t, err)
	}
	s := New(st, Options{AdminToken: token, AccessLog: f.accessLogs})
	f.srv = httptest.NewServer(s.Handler())
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fixture) get(t *testing.T, path string, header ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, f.srv.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := f.srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	require.NoError(t, err)
	return resp, body
}

func decode[T any](t *testing.T, body []byte) T {
	t.Helper()
	var v T
	require.NoError(t, json.Unmarshal(body, &v), string(body))
	return v
}

type testsBody struct {
	Job     string          `json:"job"`
	Session string          `json:"session"`
	Summary json.RawMessage `json:"summary"`
	Runs    []RunSummary    `json:"runs"`
	Latest  json.RawMessage `json:"latest"`
}

type summaryBody struct {
	Run        *string         `json:"run"`
	Counts     *testrun.Counts `json:"counts"`
	Failing    []string        `json:"failing"`
	BaseRun    *string         `json:"base_run"`
	Comparison *struct {
		Available   bool              `json:"available"`
		NewFailures []testrun.Failure `json:"new_failures"`
		Fixed       []string          `json:"fixed"`
	} `json:"comparison"`
	Flaky         []string `json:"flaky"`
	LineRate      *float64 `json:"line_rate"`
	CoverageDelta *float64 `json:"coverage_delta"`
}

func TestJobTests(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		resp, body := f.get(t, "/api/jobs/job-1/tests")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		got := decode[testsBody](t, body)
		assert.Equal(t, "job-1", got.Job)
		require.Len(t, got.Runs, 3)
		assert.Equal(t, []string{"b1", "a1", "g1"}, []string{got.Runs[0].ID, got.Runs[1].ID, got.Runs[2].ID})
		assert.False(t, got.Runs[2].Counted, "a gate run is not counted")
		assert.True(t, got.Runs[1].Counted)

		sum := decode[summaryBody](t, got.Summary)
		require.NotNil(t, sum.Run)
		assert.Equal(t, "a1", *sum.Run, "the latest counted run, not the later gate run")
		assert.Equal(t, f.a1.Counts, sum.Counts)
		assert.Equal(t, []string{"pkg::TestA", "pkg::TestB"}, sum.Failing)
		require.NotNil(t, sum.BaseRun)
		assert.Equal(t, "b1", *sum.BaseRun)
		require.NotNil(t, sum.Comparison)
		require.True(t, sum.Comparison.Available)
		require.Len(t, sum.Comparison.NewFailures, 1)
		assert.Equal(t, "pkg::TestA", sum.Comparison.NewFailures[0].ID)
		assert.Equal(t, xss, sum.Comparison.NewFailures[0].Message)
		assert.Equal(t, []string{"pkg::TestFlaky"}, sum.Flaky)
		require.NotNil(t, sum.LineRate)
		assert.InDelta(t, 0.625, *sum.LineRate, 1e-9)
		require.NotNil(t, sum.CoverageDelta)
		assert.InDelta(t, 0.125, *sum.CoverageDelta, 1e-9)

		// The latest run in full (its cases paged apart).
		latest, err := testrun.ReadRun(bytes.NewReader(got.Latest))
		require.NoError(t, err)
		assert.Equal(t, "g1", latest.ID)
		assertCasesLeftOut(t, got.Latest)
	})
}

func TestSessionTests(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		resp, body := f.get(t, "/api/sessions/sess-1/tests")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		got := decode[testsBody](t, body)
		assert.Equal(t, "sess-1", got.Session)
		require.Len(t, got.Runs, 2)
		assert.Equal(t, "a1", got.Runs[0].ID)
		require.NotNil(t, got.Runs[1].Turn)
		assert.Equal(t, 2, *got.Runs[1].Turn)
		sum := decode[summaryBody](t, got.Summary)
		require.NotNil(t, sum.Run)
		assert.Equal(t, "s2", *sum.Run)
		assert.Nil(t, sum.BaseRun, "no base run in the session")
		assert.Nil(t, sum.Comparison)
	})
}

// assertCasesLeftOut asserts that run, a run served without its cases,
// says they are left out ("cases": null) rather than none ({}).
func assertCasesLeftOut(t *testing.T, run json.RawMessage) {
	t.Helper()
	var fields map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(run, &fields))
	require.Contains(t, fields, "counts")
	assert.NotEqual(t, "null", string(fields["counts"]))
	assert.Equal(t, "null", string(fields["cases"]), "cases left out are null, not {}")
	assert.NotContains(t, fields, "durations")
}

type oneRunBody struct {
	Summary   RunSummary      `json:"summary"`
	Run       json.RawMessage `json:"run"`
	Cases     []CaseOutcome   `json:"cases"`
	CasesKept *bool           `json:"cases_kept"`
	Next      string          `json:"next"`
}

func TestOneRunAndCasePaging(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		resp, body := f.get(t, "/api/jobs/job-1/tests?run=b1")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		one := decode[oneRunBody](t, body)
		assert.Equal(t, "b1", one.Summary.ID)
		assert.Nil(t, one.Cases)
		r, err := testrun.ReadRun(bytes.NewReader(one.Run))
		require.NoError(t, err)
		assert.Equal(t, f.base.Failures, r.Failures)
		assertCasesLeftOut(t, one.Run)

		resp, body = f.get(t, "/api/jobs/job-1/tests?run=b1&cases=true")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		one = decode[oneRunBody](t, body)
		quarter := 0.25
		assert.Equal(t, []CaseOutcome{{"pkg::TestA", pass, nil}, {"pkg::TestB", fail, &quarter}}, one.Cases,
			"a case's duration is null where its report states none")
		assert.Empty(t, one.Next)

		// 12,001 cases: three pages of at most 5,000, every case once.
		seen := map[string]testrun.Outcome{}
		next := "/api/jobs/job-big/tests?run=big1&cases=true"
		pages := 0
		for next != "" && pages < 10 {
			resp, body = f.get(t, next)
			require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
			page := decode[oneRunBody](t, body)
			assert.LessOrEqual(t, len(page.Cases), CasesPageSize)
			assert.Equal(t, page.Next, nextLink(resp.Header.Get("Link")), "the next link in a Link header too")
			for _, c := range page.Cases {
				_, dup := seen[c.ID]
				require.False(t, dup, c.ID)
				seen[c.ID] = c.Outcome
			}
			next = page.Next
			pages++
		}
		assert.Equal(t, 3, pages)
		assert.Equal(t, f.big.Cases, seen)
	})
}

func TestOtelEqualsExport(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		for _, tc := range []struct {
			name, path string
			export     func(t *testing.T) []byte
		}{
			{"job", "/api/jobs/job-1/tests?format=otel", func(t *testing.T) []byte {
				return exportRuns(t, exporter.Options{JobID: "job-1"}, f.base, f.a1, f.gate)
			}},
			{"one run", "/api/jobs/job-1/tests?format=otel&run=a1", func(t *testing.T) []byte {
				return exportRuns(t, exporter.Options{JobID: "job-1"}, f.a1)
			}},
			{"case spans", "/api/jobs/job-1/tests?format=otel&case_spans=all", func(t *testing.T) []byte {
				// the runs as stored in full, with their cases and durations
				return exportRuns(t, exporter.Options{JobID: "job-1", CaseSpans: translate.CaseSpansAll}, f.base, f.a1, f.gate)
			}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := f.get(t, tc.path)
				require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
				want := tc.export(t)
				assert.Equal(t, string(want), string(body), "the same bytes as the exporter writes")
				var u ptrace.JSONUnmarshaler
				lines := bytes.Split(bytes.TrimSpace(body), []byte("\n"))
				require.NotEmpty(t, lines)
				spans := 0
				for _, l := range lines {
					td, err := u.UnmarshalTraces(l)
					require.NoError(t, err)
					spans += td.SpanCount()
				}
				assert.Positive(t, spans)
			})
		}
		resp, body := f.get(t, "/api/sessions/sess-1/tests?format=otel")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(bytes.TrimSpace(body))
		require.NoError(t, err)
		assert.GreaterOrEqual(t, td.SpanCount(), 3, "a session span and one per turn")
	})
}

// exportRuns is the exporter's file export of runs with an empty
// environment.
func exportRuns(t *testing.T, o exporter.Options, runs ...*testrun.Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	o.Format = exporter.FormatOTLPJSON
	o.Output = &buf
	o.Getenv = func(string) string { return "" }
	o.Environ = func() []string { return nil }
	_, err := exporter.ExportRuns(context.Background(), runs, o)
	require.NoError(t, err)
	return buf.Bytes()
}

func TestFlakyAdmin(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		path := "/api/repos/tests/flaky?repo=" + url.QueryEscape("acme/api")
		for _, tc := range []struct {
			name   string
			header []string
			status int
		}{
			{"no token", nil, http.StatusUnauthorized},
			{"not bearer", []string{"Authorization", "Basic " + token}, http.StatusUnauthorized},
			{"wrong token", []string{"Authorization", "Bearer nope"}, http.StatusForbidden},
			{"token prefix", []string{"Authorization", "Bearer " + token[:5]}, http.StatusForbidden},
			{"right token", []string{"Authorization", "Bearer " + token}, http.StatusOK},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := f.get(t, path, tc.header...)
				assert.Equal(t, tc.status, resp.StatusCode, string(body))
				if tc.status != http.StatusOK {
					assertProblem(t, resp, body, tc.status)
					return
				}
				got := decode[struct {
					Repository string               `json:"repository"`
					Entries    []testrun.FlakyEntry `json:"entries"`
				}](t, body)
				assert.Equal(t, "acme/api", got.Repository)
				require.Len(t, got.Entries, 1)
				assert.Equal(t, "pkg::Retried", got.Entries[0].TestID)
			})
		}
		auth := []string{"Authorization", "Bearer " + token}
		for name, q := range map[string]string{
			"no repo":       "",
			"control":       "?repo=a%01b",
			"10000 chars":   "?repo=" + strings.Repeat("r", 10000),
			"unknown param": "?repo=a&x=1",
		} {
			t.Run(name, func(t *testing.T) {
				resp, body := f.get(t, "/api/repos/tests/flaky"+q, auth...)
				assertProblem(t, resp, body, http.StatusBadRequest)
			})
		}
		// A server without a token refuses every token.
		s := httptest.NewServer(New(st, Options{}).Handler())
		defer s.Close()
		req, _ := http.NewRequest(http.MethodGet, s.URL+path, nil)
		req.Header.Set("Authorization", "Bearer ")
		resp, err := s.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
		req.Header.Set("Authorization", "Bearer anything")
		resp, err = s.Client().Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	})
}

func assertProblem(t *testing.T, resp *http.Response, body []byte, status int) {
	t.Helper()
	require.Equal(t, status, resp.StatusCode, string(body))
	assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
	p := decode[problem](t, body)
	assert.Equal(t, status, p.Status)
	assert.Equal(t, http.StatusText(status), p.Title)
	assert.Equal(t, "about:blank", p.Type)
	assert.NotEmpty(t, p.Detail)
	assert.Less(t, len(body), 1024, "a problem is short whatever the request")
}

func TestErrors(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		long := strings.Repeat("x", 10000)
		for _, tc := range []struct {
			name, path string
			status     int
		}{
			{"unknown job", "/api/jobs/nope/tests", http.StatusNotFound},
			{"unknown session", "/api/sessions/nope/tests", http.StatusNotFound},
			{"unknown run", "/api/jobs/job-1/tests?run=nope", http.StatusNotFound},
			{"run of another job", "/api/jobs/job-1/tests?run=big1", http.StatusNotFound},
			{"unknown endpoint", "/api/nope", http.StatusNotFound},
			{"unknown page", "/jobs/nope", http.StatusNotFound},
			{"bad format", "/api/jobs/job-1/tests?format=xml", http.StatusBadRequest},
			{"bad cases", "/api/jobs/job-1/tests?run=a1&cases=maybe", http.StatusBadRequest},
			{"cases without run", "/api/jobs/job-1/tests?cases=true", http.StatusBadRequest},
			{"bad offset", "/api/jobs/job-1/tests?run=a1&cases=true&offset=-1", http.StatusBadRequest},
			{"case spans without otel", "/api/jobs/job-1/tests?case_spans=all", http.StatusBadRequest},
			{"bad case spans", "/api/jobs/job-1/tests?format=otel&case_spans=some", http.StatusBadRequest},
			{"offset without cases", "/api/jobs/job-1/tests?run=a1&offset=5", http.StatusBadRequest},
			{"unknown parameter", "/api/jobs/job-1/tests?foo=1", http.StatusBadRequest},
			{"empty run", "/api/jobs/job-1/tests?run=", http.StatusBadRequest},
			{"slash in job", "/api/jobs/a%2Fb/tests", http.StatusBadRequest},
			{"backslash in job", "/api/jobs/a%5Cb/tests", http.StatusBadRequest},
			{"dot-dot job", "/api/jobs/%2E%2E/tests", http.StatusBadRequest},
			{"control in job", "/api/jobs/a%01b/tests", http.StatusBadRequest},
			{"escape in session", "/api/sessions/a%1B%5B31m/tests", http.StatusBadRequest},
			{"newline in run", "/api/jobs/job-1/tests?run=a%0Ab", http.StatusBadRequest},
			{"slash in run", "/api/jobs/job-1/tests?run=..%2Fb1", http.StatusBadRequest},
			{"10000-char job", "/api/jobs/" + long + "/tests", http.StatusBadRequest},
			{"10000-char run", "/api/jobs/job-1/tests?run=" + long, http.StatusBadRequest},
			{"10000-char page", "/jobs/" + long, http.StatusBadRequest},
			{"control in page", "/jobs/a%00b", http.StatusBadRequest},
			{"page parameters", "/jobs/job-1?x=1", http.StatusBadRequest},
			// A pair that does not parse is refused, never dropped: the
			// answer would be another request's.
			{"stray semicolon after offset", "/api/jobs/job-1/tests?run=a1&cases=true&offset=5;", http.StatusBadRequest},
			{"semicolon between pairs", "/api/jobs/job-1/tests?run=a1;cases=true", http.StatusBadRequest},
			{"bad escape", "/api/jobs/job-1/tests?%zz=1", http.StatusBadRequest},
			{"semicolon in the job list", "/api/jobs?limit=1;", http.StatusBadRequest},
			{"semicolons on a page", "/jobs/job-1?x;y", http.StatusBadRequest},
			{"bad escape in a history", "/api/repos/tests/history?repo=acme/api&test=a&%zz", http.StatusBadRequest},
			{"a parameter given twice", "/api/jobs/job-1/tests?run=a1&run=b1", http.StatusBadRequest},
			{"format given twice", "/api/jobs/job-1/tests?format=otel&format=json", http.StatusBadRequest},
		} {
			t.Run(tc.name, func(t *testing.T) {
				resp, body := f.get(t, tc.path)
				assertProblem(t, resp, body, tc.status)
			})
		}
		resp, err := f.srv.Client().Post(f.srv.URL+"/api/jobs/job-1/tests", "application/json", strings.NewReader("{}"))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode, "read-only")

		// The access log has one line per request, escaped.
		logs := f.accessLogs.String()
		assert.NotContains(t, logs, "\x1b")
		assert.NotContains(t, logs, "\x01")
		assert.Contains(t, logs, `"/api/jobs/a%01b/tests" 400`)
		for _, l := range strings.Split(strings.TrimSpace(logs), "\n") {
			assert.Less(t, len(l), 1024)
		}
	})
}

func TestJobPage(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		resp, body := f.get(t, "/jobs/job-1")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		page := string(body)
		assert.NotContains(t, page, "<script")
		assert.Contains(t, page, "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt; &amp; more")
		for _, want := range []string{
			`<td id="count-total">4</td>`, `<td id="count-failed" class="fail">2</td>`,
			"pkg::TestA", "pkg::TestB", "pkg::TestB broke", "pkg::TestFlaky",
			"Line coverage: 62.50%; change against the base: &#43;12.50 points",
			`<table id="new-failures">`,
		} {
			assert.Contains(t, page, want)
		}
	})
}

// TestConcurrentRequests has 150 clients ask at once, three times each
// (a PostgreSQL store does not run out of connections): no request is
// lost, every answer is the summary or, when the server could not answer
// within its request timeout on a loaded machine, a clean 503 problem with
// Retry-After, and at least one is the summary.
func TestConcurrentRequests(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		tr := &http.Transport{MaxIdleConnsPerHost: 150}
		defer tr.CloseIdleConnections()
		// The client's timeout only keeps a broken server from hanging the
		// test: the server answers each request within its own timeout.
		client := &http.Client{Transport: tr, Timeout: 10 * DefaultRequestTimeout}
		type answer struct {
			status int
			header http.Header
			body   []byte
			err    error
		}
		var wg sync.WaitGroup
		answers := make(chan answer, 450)
		for range 150 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 3 {
					resp, err := client.Get(f.srv.URL + "/api/jobs/job-1/tests")
					if err != nil {
						answers <- answer{err: err}
						continue
					}
					body, err := io.ReadAll(resp.Body)
					resp.Body.Close()
					answers <- answer{status: resp.StatusCode, header: resp.Header, body: body, err: err}
				}
			}()
		}
		wg.Wait()
		close(answers)
		n, ok := 0, 0
		for a := range answers {
			n++
			if !assert.NoError(t, a.err, "a request is lost") {
				continue
			}
			switch a.status {
			case http.StatusOK:
				ok++
				got := decode[testsBody](t, a.body)
				assert.Equal(t, "job-1", got.Job)
				assert.Len(t, got.Runs, 3)
				sum := decode[summaryBody](t, got.Summary)
				if assert.NotNil(t, sum.Run) {
					assert.Equal(t, "a1", *sum.Run)
				}
			case http.StatusServiceUnavailable:
				assertProblem(t, &http.Response{StatusCode: a.status, Header: a.header}, a.body, a.status)
				assert.Equal(t, strconv.Itoa(RetryAfterSeconds), a.header.Get("Retry-After"))
			default:
				t.Errorf("status %d: %s", a.status, a.body)
			}
		}
		assert.Equal(t, 450, n, "every request answered")
		assert.Positive(t, ok, "at least one summary")
		if ok < n {
			t.Logf("%d of %d requests answered 503 within the request timeout", n-ok, n)
		}
	})
}

// TestOneRunTagsOfTheScope: a run tagged for a job, then for another job
// in a session at a turn, is shown with the tags of the job or session it
// is asked under, as the runs list shows it.
func TestOneRunTagsOfTheScope(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		r := mkRun("r1", testrun.KindBase, 0, map[string]testrun.Outcome{"t::A": testrun.OutcomePassed}, nil, nil)
		turn := 3
		_, err := st.RecordRun(ctx, store.StoredRun{Run: r, Repo: "acme/api", JobID: "job1"})
		require.NoError(t, err)
		_, err = st.RecordRun(ctx, store.StoredRun{Run: r, JobID: "job2", SessionRef: "sessX", Turn: &turn})
		require.NoError(t, err)
		srv := httptest.NewServer(New(st, Options{}).Handler())
		defer srv.Close()
		f := &fixture{srv: srv}
		for _, tc := range []struct {
			path    string
			job     string
			session *string
			turn    *int
		}{
			{"/api/jobs/job1/tests?run=r1", "job1", nil, nil},
			{"/api/jobs/job2/tests?run=r1", "job2", ptr("sessX"), &turn},
			{"/api/sessions/sessX/tests?run=r1", "job2", ptr("sessX"), &turn},
		} {
			resp, body := f.get(t, tc.path)
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", tc.path, body)
			got := decode[oneRunResponse](t, body).Run
			require.NotNil(t, got.Job, tc.path)
			assert.Equal(t, tc.job, *got.Job, tc.path)
			assert.Equal(t, tc.session, got.Session, tc.path)
			assert.Equal(t, tc.turn, got.Turn, tc.path)
		}
	})
}
