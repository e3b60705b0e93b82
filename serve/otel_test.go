package serve

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// otelBody is what an OTLP/JSON response holds: the run ids of its
// test.run events in order, and its case spans.
type otelBody struct {
	runs      []string
	caseSpans int
}

func readOtel(t *testing.T, body []byte) otelBody {
	t.Helper()
	var out otelBody
	var u ptrace.JSONUnmarshaler
	for _, l := range bytes.Split(bytes.TrimSpace(body), []byte("\n")) {
		td, err := u.UnmarshalTraces(l)
		require.NoError(t, err)
		for i := 0; i < td.ResourceSpans().Len(); i++ {
			ss := td.ResourceSpans().At(i).ScopeSpans()
			for j := 0; j < ss.Len(); j++ {
				spans := ss.At(j).Spans()
				for k := 0; k < spans.Len(); k++ {
					s := spans.At(k)
					if _, ok := s.Attributes().Get(string(semconv.TestCaseNameKey)); ok {
						out.caseSpans++
					}
					for e := 0; e < s.Events().Len(); e++ {
						ev := s.Events().At(e)
						if ev.Name() != semconv.EventTestRun {
							continue
						}
						id, ok := ev.Attributes().Get(string(semconv.TestRunIDKey))
						require.True(t, ok)
						out.runs = append(out.runs, id.Str())
					}
				}
			}
		}
	}
	return out
}

// recordJob records runs of n cases each (every 50th failing) as job id.
func recordJob(t *testing.T, st store.Store, job string, runs, n int) []string {
	t.Helper()
	var ids []string
	for r := range runs {
		m := make(map[string]testrun.Outcome, n)
		for i := range n {
			o := pass
			if i%50 == 0 {
				o = fail
			}
			m[fmt.Sprintf("p::T%06d", i)] = o
		}
		id := fmt.Sprintf("%s-run-%02d", job, r)
		turn := r / 2
		_, err := st.RecordRun(context.Background(), store.StoredRun{
			Run: mkRun(id, testrun.KindAfterTurn, r, m, nil, nil), Repo: "acme/api", JobID: job, SessionRef: "sess-" + job, Turn: &turn,
		})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	return ids
}

// storedRuns reads runs back from st, with their cases.
func storedRuns(t *testing.T, st store.Store, ids []string) []*testrun.Run {
	t.Helper()
	out := make([]*testrun.Run, len(ids))
	for i, id := range ids {
		sr, err := st.Run(context.Background(), id)
		require.NoError(t, err)
		out[i] = sr.Run
	}
	return out
}

// followPages reads path and the pages its Link headers name, at most
// limit, and returns their bodies.
func followPages(t *testing.T, srv *httptest.Server, path string, limit int) [][]byte {
	t.Helper()
	var pages [][]byte
	for next := path; next != "" && len(pages) < limit; {
		resp, err := srv.Client().Get(srv.URL + next)
		require.NoError(t, err)
		var buf bytes.Buffer
		_, err = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, buf.String())
		assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
		pages = append(pages, buf.Bytes())
		next = nextLink(resp.Header.Get("Link"))
	}
	return pages
}

// TestOtelPages stores a job of 2 runs of 10,001 cases: with every case a
// span, the 20,002 case spans are more than OtelPageCaseSpans, so the
// response is two pages joined by a Link header; each page holds at most
// the bounds and is byte for byte the export of its runs, and following the
// pages gives every run once, in order. Without case spans the job is
// within the bounds: one page, the export of all its runs.
func TestOtelPages(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ids := recordJob(t, st, "job-pages", 2, OtelPageCaseSpans/2+1)
		srv := httptest.NewServer(New(st, Options{}).Handler())
		defer srv.Close()

		pages := followPages(t, srv, "/api/jobs/job-pages/tests?format=otel&case_spans=all", 10)
		require.Equal(t, 2, len(pages), "pages")
		var seen []string
		for _, p := range pages {
			got := readOtel(t, p)
			assert.LessOrEqual(t, got.caseSpans, OtelPageCaseSpans)
			assert.LessOrEqual(t, len(got.runs), OtelPageRuns)
			want := exportRuns(t, exporter.Options{JobID: "job-pages", CaseSpans: translate.CaseSpansAll}, storedRuns(t, st, got.runs)...)
			assert.Equal(t, string(want), string(p), "a page is the export of its runs")
			seen = append(seen, got.runs...)
		}
		assert.Equal(t, ids, seen, "every run once, in order")

		pages = followPages(t, srv, "/api/jobs/job-pages/tests?format=otel", 10)
		require.Equal(t, 1, len(pages), "pages")
		assert.Equal(t, string(exportRuns(t, exporter.Options{JobID: "job-pages"}, storedRuns(t, st, ids)...)), string(pages[0]))
	})
}

// TestOtelPageBounds pages a job and a session of 7 runs × 30 cases under
// small bounds, each bound in turn: every page keeps every bound, is the
// export of its runs, and the pages give every run once, in order.
func TestOtelPageBounds(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ids := recordJob(t, st, "job-b", 7, 30)
		for _, tc := range []struct {
			name  string
			opts  Options
			query string
			cs    translate.CaseSpans
			pages int
		}{
			{"runs", Options{OtelPageRuns: 3}, "", translate.CaseSpansNone, 3},
			{"cases", Options{OtelPageCases: 65}, "", translate.CaseSpansNone, 4},
			{"case spans", Options{OtelPageCaseSpans: 100}, "&case_spans=all", translate.CaseSpansAll, 3},
			{"failed case spans", Options{OtelPageCaseSpans: 2}, "&case_spans=failed", translate.CaseSpansFailed, 4},
		} {
			t.Run(tc.name, func(t *testing.T) {
				srv := httptest.NewServer(New(st, tc.opts).Handler())
				defer srv.Close()
				b := New(st, tc.opts).bounds
				for _, scope := range []string{"jobs/job-b", "sessions/sess-job-b"} {
					pages := followPages(t, srv, "/api/"+scope+"/tests?format=otel"+tc.query, 20)
					require.Equal(t, tc.pages, len(pages), scope)
					var seen []string
					for _, p := range pages {
						got := readOtel(t, p)
						runs := storedRuns(t, st, got.runs)
						cases := 0
						for _, r := range runs {
							cases += len(r.Cases)
						}
						assert.LessOrEqual(t, len(got.runs), b.runs)
						assert.LessOrEqual(t, cases, b.cases)
						assert.LessOrEqual(t, got.caseSpans, b.caseSpans)
						if scope == "jobs/job-b" {
							want := exportRuns(t, exporter.Options{JobID: "job-b", CaseSpans: tc.cs}, runs...)
							assert.Equal(t, string(want), string(p), "a page is the export of its runs")
						}
						seen = append(seen, got.runs...)
					}
					assert.Equal(t, ids, seen, "%s: every run once, in order", scope)
				}
			})
		}
	})
}

// TestOtelTooLarge: a run whose case spans alone exceed the bound is
// refused with 413, naming the bound and what to ask instead; fewer case
// spans of the same run are served.
func TestOtelTooLarge(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		recordJob(t, st, "job-t", 2, 30)
		srv := httptest.NewServer(New(st, Options{OtelPageCaseSpans: 20}).Handler())
		defer srv.Close()
		f := &fixture{srv: srv}
		for _, path := range []string{
			"/api/jobs/job-t/tests?format=otel&case_spans=all",
			"/api/jobs/job-t/tests?format=otel&case_spans=all&offset=1",
			"/api/jobs/job-t/tests?format=otel&case_spans=all&run=job-t-run-01",
		} {
			resp, body := f.get(t, path)
			assertProblem(t, resp, body, http.StatusRequestEntityTooLarge)
			p := decode[problem](t, body)
			assert.Contains(t, p.Detail, "more than the 20 one response holds")
			assert.Contains(t, p.Detail, "case_spans=failed or none")
		}
		resp, body := f.get(t, "/api/jobs/job-t/tests?format=otel&case_spans=failed")
		require.Equal(t, http.StatusOK, resp.StatusCode, string(body))
		assert.Equal(t, []string{"job-t-run-00", "job-t-run-01"}, readOtel(t, body).runs)

		for path, status := range map[string]int{
			"/api/jobs/job-t/tests?format=otel&offset=2":                  http.StatusNotFound,
			"/api/jobs/job-t/tests?format=otel&offset=x":                  http.StatusBadRequest,
			"/api/jobs/job-t/tests?format=otel&offset=0&run=job-t-run-00": http.StatusBadRequest,
		} {
			resp, body := f.get(t, path)
			assertProblem(t, resp, body, status)
		}
	})
}

// cancellingStore reads runs from a real store whatever the context (as a
// store that does not watch it would), counts them, and cancels the
// request after the cancelAfter-th.
type cancellingStore struct {
	store.Store
	cancelAfter int
	cancel      context.CancelFunc
	reads       atomic.Int32
}

func (c *cancellingStore) Run(ctx context.Context, id string) (store.StoredRun, error) {
	sr, err := c.Store.Run(context.WithoutCancel(ctx), id)
	if int(c.reads.Add(1)) == c.cancelAfter {
		c.cancel()
	}
	return sr, err
}

// TestOtelStopsWithRequest: once the request's context is done, the server
// reads no further run and renders nothing; the answer is a clean 503.
func TestOtelStopsWithRequest(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		recordJob(t, st, "job-c", 5, 20)
		for _, after := range []int{1, 5} {
			t.Run("cancelled after run "+strconv.Itoa(after), func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				cs := &cancellingStore{Store: st, cancelAfter: after, cancel: cancel}
				rec := httptest.NewRecorder()
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, "/api/jobs/job-c/tests?format=otel&case_spans=all", nil)
				New(cs, Options{}).Handler().ServeHTTP(rec, req)
				assert.Equal(t, int32(after), cs.reads.Load(), "no run read once the request is cancelled")
				resp := rec.Result()
				assertProblem(t, resp, rec.Body.Bytes(), http.StatusServiceUnavailable)
				assert.Equal(t, strconv.Itoa(RetryAfterSeconds), resp.Header.Get("Retry-After"))
			})
		}
	})
}

// TestOtelBusy: with as many exports rendering as MaxExports allows, one
// more is refused at once with 503 and Retry-After; once one ends, the next
// is served.
func TestOtelBusy(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		recordJob(t, st, "job-busy", 1, 10)
		s := New(st, Options{MaxExports: 1})
		entered, release := make(chan struct{}), make(chan struct{})
		var once atomic.Bool
		s.onRunLoaded = func(string) {
			if once.CompareAndSwap(false, true) {
				close(entered)
				<-release
			}
		}
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		f := &fixture{srv: srv}
		path := "/api/jobs/job-busy/tests?format=otel"
		first := make(chan int, 1)
		go func() {
			resp, err := srv.Client().Get(srv.URL + path)
			if err != nil {
				first <- -1
				return
			}
			resp.Body.Close()
			first <- resp.StatusCode
		}()
		<-entered
		resp, body := f.get(t, path)
		assertProblem(t, resp, body, http.StatusServiceUnavailable)
		assert.Equal(t, strconv.Itoa(RetryAfterSeconds), resp.Header.Get("Retry-After"))
		assert.Contains(t, decode[problem](t, body).Detail, "at most 1 OTLP/JSON exports at once")
		resp, body = f.get(t, "/api/jobs/job-busy/tests")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "only exports are limited: %s", body)
		close(release)
		assert.Equal(t, http.StatusOK, <-first)
		resp, body = f.get(t, path)
		assert.Equal(t, http.StatusOK, resp.StatusCode, string(body))
	})
}

// cancelOnWrite cancels the request once the first bytes of the body are
// written.
type cancelOnWrite struct {
	http.ResponseWriter
	cancel context.CancelFunc
}

func (c *cancelOnWrite) Write(b []byte) (int, error) {
	defer c.cancel()
	return c.ResponseWriter.Write(b)
}

// lockedLog is an access log the test reads while the server writes.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(b)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// TestOtelCutMidway: a request cancelled once the first line of an export
// of two lines is out gets no further line, and the connection is cut
// rather than the body ended as if it were whole; the access log still has
// the request.
func TestOtelCutMidway(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ids := recordJob(t, st, "job-cut", 1, 12000)
		whole := exportRuns(t, exporter.Options{JobID: "job-cut", CaseSpans: translate.CaseSpansAll}, storedRuns(t, st, ids)...)
		require.Equal(t, 2, bytes.Count(whole, []byte("\n")), "the export is two lines")

		logs := &lockedLog{}
		h := New(st, Options{AccessLog: logs}).Handler()
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			h.ServeHTTP(&cancelOnWrite{ResponseWriter: w, cancel: cancel}, r.WithContext(ctx))
		}))
		defer srv.Close()
		resp, err := srv.Client().Get(srv.URL + "/api/jobs/job-cut/tests?format=otel&case_spans=all")
		require.NoError(t, err)
		defer resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		got, err := io.ReadAll(resp.Body)
		assert.ErrorIs(t, err, io.ErrUnexpectedEOF, "the body is cut, not ended")
		first, _, _ := bytes.Cut(whole, []byte("\n"))
		assert.Equal(t, len(first)+1, len(got), "the first line, no more")
		assert.True(t, bytes.HasPrefix(whole, got))
		assert.Contains(t, logs.String(), `"/api/jobs/job-cut/tests?format=otel&case_spans=all" 200 `+strconv.Itoa(len(got)))
	})
}
