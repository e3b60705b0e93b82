package serve

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// cachedPaths are responses the server keeps: a summary, a session's, one
// run, a cases page, OTLP/JSON pages and the job page.
var cachedPaths = []string{
	"/api/jobs/job-1/tests",
	"/api/sessions/sess-1/tests",
	"/api/jobs/job-1/tests?run=a1",
	"/api/jobs/job-big/tests?run=big1&cases=true&offset=5000",
	"/api/jobs/job-1/tests?format=otel",
	"/api/jobs/job-1/tests?format=otel&case_spans=all",
	"/api/sessions/sess-1/tests?format=otel",
	"/jobs/job-1",
}

func etagOf(body []byte) string {
	sum := sha256.Sum256(body)
	return `"` + hex.EncodeToString(sum[:]) + `"`
}

// TestETag: a kept response carries a strong ETag, the SHA-256 of its
// bytes; If-None-Match with it (or W/ it, or *) answers 304 with no body,
// with any other tag the whole body. The bytes are those a server that
// keeps nothing sends.
func TestETag(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		uncached := httptest.NewServer(New(st, Options{AdminToken: token, CacheBytes: -1}).Handler())
		defer uncached.Close()
		plain := &fixture{srv: uncached}
		for _, path := range cachedPaths {
			t.Run(path, func(t *testing.T) {
				want, wantBody := plain.get(t, path, "Accept-Encoding", "identity")
				require.Equal(t, http.StatusOK, want.StatusCode, string(wantBody))
				// The first answer renders it (an export streams, without
				// a tag); the second comes from what was kept.
				f.get(t, path, "Accept-Encoding", "identity")
				resp, body := f.get(t, path, "Accept-Encoding", "identity")
				require.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, wantBody, body, "the same bytes as rendered anew")
				for _, h := range []string{"Content-Type", "Link", "Content-Security-Policy", "X-Content-Type-Options"} {
					assert.Equal(t, want.Header.Get(h), resp.Header.Get(h), h)
				}
				tag := resp.Header.Get("ETag")
				assert.Equal(t, etagOf(body), tag)
				assert.Equal(t, "no-cache", resp.Header.Get("Cache-Control"))
				assert.Equal(t, "Accept-Encoding", resp.Header.Get("Vary"))

				for _, inm := range []string{tag, "W/" + tag, `"other", ` + tag, "*"} {
					resp, body = f.get(t, path, "Accept-Encoding", "identity", "If-None-Match", inm)
					assert.Equal(t, http.StatusNotModified, resp.StatusCode, inm)
					assert.Empty(t, body)
					assert.Equal(t, tag, resp.Header.Get("ETag"))
				}
				resp, body = f.get(t, path, "Accept-Encoding", "identity", "If-None-Match", `"other"`)
				assert.Equal(t, http.StatusOK, resp.StatusCode)
				assert.Equal(t, wantBody, body)
			})
		}
	})
}

// TestGzip: a client that accepts gzip gets the kept gzip form, which
// decodes to the same bytes, under a tag of its own; one that refuses it
// (q=0) gets the bytes as they are.
func TestGzip(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		for _, path := range cachedPaths {
			t.Run(path, func(t *testing.T) {
				f.get(t, path, "Accept-Encoding", "identity")
				_, plain := f.get(t, path, "Accept-Encoding", "identity")
				resp, body := f.get(t, path, "Accept-Encoding", "br;q=1.0, gzip;q=0.5")
				require.Equal(t, http.StatusOK, resp.StatusCode)
				require.Equal(t, "gzip", resp.Header.Get("Content-Encoding"))
				assert.Less(t, len(body), len(plain))
				zr, err := gzip.NewReader(bytes.NewReader(body))
				require.NoError(t, err)
				got, err := io.ReadAll(zr)
				require.NoError(t, err)
				assert.Equal(t, plain, got, "gzip decodes to the same bytes")
				tag := resp.Header.Get("ETag")
				assert.NotEqual(t, etagOf(plain), tag, "another representation, another strong tag")

				resp, body = f.get(t, path, "Accept-Encoding", "gzip", "If-None-Match", tag)
				assert.Equal(t, http.StatusNotModified, resp.StatusCode)
				assert.Empty(t, body)
				resp, body = f.get(t, path, "Accept-Encoding", "gzip;q=0, identity", "If-None-Match", tag)
				assert.Equal(t, http.StatusOK, resp.StatusCode, "the gzip tag does not match the plain bytes")
				assert.Empty(t, resp.Header.Get("Content-Encoding"))
				assert.Equal(t, plain, body)
			})
		}
	})
}

// TestCacheNeverStale: after every change to a job's runs the server
// answers what a server that keeps nothing answers, under a new ETag: a
// run recorded for the job (by another handle on the store, as a separate
// process would), a listed run recorded for another job with its
// repository, retention dropping cases and runs. A request with an old
// tag of other bytes gets the new body.
//
// On PostgreSQL it runs twice: with a version read on every request, and
// as testresults serve opens its store, listening for writes
// (store.WithWatch), where a write is answered once it is heard: the first
// request after each change is repeated until it is (a bounded wait), and
// every answer after it must hold.
func TestCacheNeverStale(t *testing.T) {
	variants := []struct {
		name  string
		b     backend
		watch bool
	}{{"sqlite", backends[0], false}, {"postgres", backends[1], false}, {"postgres-watching", backends[1], true}}
	for _, v := range variants {
		b := v.b
		t.Run(v.name, func(t *testing.T) {
			ctx := context.Background()
			loc := b.location(t)
			var opts []store.Option
			if v.watch {
				opts = append(opts, store.WithWatch())
			}
			st, err := store.Open(ctx, loc, opts...)
			require.NoError(t, err)
			defer st.Close()
			writer, err := store.Open(ctx, loc)
			require.NoError(t, err)
			defer writer.Close()

			srv := httptest.NewServer(New(st, Options{}).Handler())
			defer srv.Close()
			f := &fixture{srv: srv}
			plainSrv := httptest.NewServer(New(st, Options{CacheBytes: -1}).Handler())
			defer plainSrv.Close()
			plain := &fixture{srv: plainSrv}

			rec := func(r *testrun.Run, repo, job string) {
				t.Helper()
				_, err := writer.RecordRun(ctx, store.StoredRun{Run: r, Repo: repo, JobID: job})
				require.NoError(t, err)
			}
			base := mkRun("base", testrun.KindBase, 0, map[string]testrun.Outcome{"t::A": pass, "t::B": fail}, nil, ptr(0.5))
			rec(base, "", "job-s")
			paths := []string{"/api/jobs/job-s/tests", "/api/jobs/job-s/tests?format=otel", "/api/jobs/job-s/tests?run=base&cases=true", "/jobs/job-s"}
			tags := map[string]map[string]bool{}
			check := func(what string) {
				t.Helper()
				for _, path := range paths {
					_, want := plain.get(t, path, "Accept-Encoding", "identity")
					if v.watch {
						deadline := testDeadline(t)
						for time.Now().Before(deadline) {
							if _, body := f.get(t, path, "Accept-Encoding", "identity"); string(body) == string(want) {
								break
							}
							time.Sleep(10 * time.Millisecond)
						}
					}
					for range 2 { // rendered, then kept
						resp, body := f.get(t, path, "Accept-Encoding", "identity")
						require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", what, body)
						require.Equal(t, string(want), string(body), "%s: %s is not stale", what, path)
					}
					resp, _ := f.get(t, path, "Accept-Encoding", "identity")
					tag := resp.Header.Get("ETag")
					require.NotEmpty(t, tag)
					if tags[path] == nil {
						tags[path] = map[string]bool{}
					}
					for old := range tags[path] {
						if old == tag {
							continue // the same bytes as before (the base's own cases)
						}
						resp, body := f.get(t, path, "Accept-Encoding", "identity", "If-None-Match", old)
						require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s with an old tag", what, path)
						require.Equal(t, string(want), string(body))
					}
					tags[path][tag] = true
				}
			}
			check("one run")
			tagsBefore := len(tags[paths[0]])

			after := mkRun("after", testrun.KindAfterTurn, 1, map[string]testrun.Outcome{"t::A": fail, "t::B": pass}, nil, ptr(0.625))
			rec(after, "", "job-s")
			check("a second run")
			assert.Greater(t, len(tags[paths[0]]), tagsBefore, "a new body, a new tag")
			_, body := f.get(t, paths[0])
			assert.Contains(t, string(body), `"run":"after"`, "the summary shows the new run")
			fixedOf := func() []string {
				t.Helper()
				_, body := f.get(t, paths[0])
				sum := decode[summaryBody](t, decode[testsBody](t, body).Summary)
				require.NotNil(t, sum.Comparison)
				require.True(t, sum.Comparison.Available)
				return sum.Comparison.Fixed
			}
			assert.Equal(t, []string{"t::B"}, fixedOf())

			rec(base, "acme/api", "job-other")
			check("the base recorded for another job, with its repository")
			_, body = f.get(t, paths[0])
			assert.Contains(t, string(body), `"repository":"acme/api"`)

			p, err := writer.PruneRuns(ctx, time.Now().Add(store.CasesTTL+time.Hour))
			require.NoError(t, err)
			require.Equal(t, int64(1), p.Cases, "the after run's cases go")
			check("cases dropped")
			assert.Nil(t, fixedOf(), "without the after run's cases, what was fixed is unknown, not none")

			rec(after, "", "job-again")
			check("cases given back by a new tagging")

			p, err = writer.PruneRuns(ctx, time.Now().Add(store.RunTTL+time.Hour))
			require.NoError(t, err)
			require.Equal(t, int64(2), p.Runs)
			for _, path := range paths {
				resp, _ := f.get(t, path)
				for deadline := testDeadline(t); v.watch && resp.StatusCode != http.StatusNotFound && time.Now().Before(deadline); {
					time.Sleep(10 * time.Millisecond)
					resp, _ = f.get(t, path)
				}
				assert.Equal(t, http.StatusNotFound, resp.StatusCode, "%s: its runs are gone", path)
			}
		})
	}
}

// TestBodyCacheBounded: the cache keeps at most its bytes, drops the least
// recently used first, keeps nothing bigger than a quarter of its bound,
// and never answers a key for another version.
func TestBodyCacheBounded(t *testing.T) {
	c := newBodyCache(16 << 10)
	body := func(i int) *rendered {
		return render(fmt.Sprint("k", i), "v1", bytes.Repeat([]byte{byte('a' + i)}, 3000))
	}
	for i := range 4 {
		c.put(body(i))
	}
	require.NotNil(t, c.get("k0", "v1"), "four of 3 kB fit in 16 kB")
	c.put(body(4)) // k1 is the least recently used now
	c.put(body(5))
	assert.LessOrEqual(t, c.size, c.max)
	assert.Nil(t, c.get("k1", "v1"), "the least recently used went first")
	assert.NotNil(t, c.get("k0", "v1"), "the one used lately stays")
	assert.NotNil(t, c.get("k5", "v1"))

	assert.Nil(t, c.get("k5", "v2"), "another version is not answered")
	assert.Nil(t, c.get("k5", "v1"), "and the stale body is gone")

	c.put(render("big", "v1", make([]byte, 5<<10)))
	assert.Nil(t, c.get("big", "v1"), "more than a quarter of the bound is not kept")
	n := c.len()
	c.put(render("k0", "v3", []byte("again")))
	assert.Equal(t, n, c.len(), "a key is kept once")
	assert.Equal(t, []byte("again"), c.get("k0", "v3").data)
}

func TestAcceptsGzip(t *testing.T) {
	for v, want := range map[string]bool{
		"": false, "gzip": true, "GZIP": true, "deflate, gzip;q=0.8": true, "gzip;q=0": false, "gzip; q=0.0": false,
		"*": true, "*;q=0": false, "identity": false, "br": false, "gzip;q=0, *": false, "x-gzip": true,
	} {
		var values []string
		if v != "" {
			values = []string{v}
		}
		assert.Equal(t, want, acceptsGzip(values), "%q", v)
	}
}

// wholeStore answers RunPage and RunOutcomes from the whole run Run
// returns: what the server read before the store paged cases.
type wholeStore struct{ store.Store }

func (w wholeStore) RunPage(ctx context.Context, id string, offset, limit int) (store.StoredRun, int, error) {
	sr, err := w.Run(ctx, id)
	if err != nil || !sr.HasCases {
		return sr, -1, err
	}
	ids := slices.Sorted(maps.Keys(sr.Run.Cases))
	page, ds := map[string]testrun.Outcome{}, map[string]time.Duration{}
	for _, id := range ids[min(offset, len(ids)):min(offset+limit, len(ids))] {
		page[id] = sr.Run.Cases[id]
		if d, ok := sr.Run.Durations[id]; ok {
			ds[id] = d
		}
	}
	sr.Run.Cases, sr.Run.Durations = page, ds
	if offset+limit < len(ids) {
		return sr, offset + limit, nil
	}
	return sr, -1, nil
}

func (w wholeStore) RunOutcomes(ctx context.Context, id string, _ []string) (map[string]testrun.Outcome, error) {
	sr, err := w.Run(ctx, id)
	return sr.Run.Cases, err
}

// countingStore counts the runs read whole.
type countingStore struct {
	store.Store
	whole atomic.Int32
}

func (c *countingStore) Run(ctx context.Context, id string) (store.StoredRun, error) {
	c.whole.Add(1)
	return c.Store.Run(ctx, id)
}

// TestSummaryReadsNoWholeRun: summaries, one run and its cases pages read
// no run whole (only the failing cases, those a comparison looks up, and a
// page), and answer the bytes the server answered when it read whole runs:
// on a base of 300 failures (more than a run lists) of which the next run
// fixes some, breaks others and errors some, with a skipped one.
func TestSummaryReadsNoWholeRun(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		baseCases, afterCases := map[string]testrun.Outcome{}, map[string]testrun.Outcome{}
		for i := range 3000 {
			id := fmt.Sprintf("pkg::Test%04d", i)
			baseCases[id], afterCases[id] = pass, pass
			switch {
			case i%10 == 0 && i%20 == 0:
				baseCases[id] = fail // fixed after
			case i%10 == 0:
				baseCases[id], afterCases[id] = fail, fail
			case i%17 == 0:
				afterCases[id] = fail // new
			case i%23 == 0:
				afterCases[id] = testrun.OutcomeError
			case i%29 == 0:
				afterCases[id] = testrun.OutcomeSkipped
			}
		}
		delete(afterCases, "pkg::Test0040") // failing in the base, not run after
		base := mkRun("rb", testrun.KindBase, 0, baseCases, nil, ptr(0.5))
		after := mkRun("ra", testrun.KindAfterTurn, 1, afterCases, nil, ptr(0.25), "pkg::Test0001")
		require.Less(t, len(base.Failures), base.Counts.Failed, "some failing cases only among the cases")
		turn := 1
		for _, sr := range []store.StoredRun{
			{Run: base, Repo: "acme/api", JobID: "job-rich"},
			{Run: after, Repo: "acme/api", JobID: "job-rich", SessionRef: "sess-rich", Turn: &turn},
		} {
			_, err := st.RecordRun(ctx, sr)
			require.NoError(t, err)
		}
		counting := &countingStore{Store: st}
		srv := httptest.NewServer(New(counting, Options{CacheBytes: -1}).Handler())
		defer srv.Close()
		before := httptest.NewServer(New(wholeStore{st}, Options{CacheBytes: -1}).Handler())
		defer before.Close()
		f, old := &fixture{srv: srv}, &fixture{srv: before}
		for _, path := range []string{
			"/api/jobs/job-rich/tests", "/api/sessions/sess-rich/tests", "/jobs/job-rich",
			"/api/jobs/job-rich/tests?run=ra", "/api/jobs/job-rich/tests?run=rb&cases=true",
			"/api/jobs/job-rich/tests?run=ra&cases=true&offset=2990", "/api/jobs/job-rich/tests?run=ra&cases=1&offset=9999",
		} {
			want, wantBody := old.get(t, path, "Accept-Encoding", "identity")
			resp, body := f.get(t, path, "Accept-Encoding", "identity")
			require.Equal(t, http.StatusOK, resp.StatusCode, "%s: %s", path, body)
			assert.Equal(t, string(wantBody), string(body), path)
			assert.Equal(t, want.Header.Get("Link"), resp.Header.Get("Link"), path)
		}
		assert.Zero(t, counting.whole.Load(), "no run read whole")

		_, body := f.get(t, "/api/jobs/job-rich/tests")
		sum := decode[summaryBody](t, decode[testsBody](t, body).Summary)
		require.NotNil(t, sum.Comparison)
		assert.True(t, sum.Comparison.Available)
		assert.NotEmpty(t, sum.Comparison.Fixed)
		assert.NotContains(t, sum.Comparison.Fixed, "pkg::Test0040", "not run after is not fixed")
		assert.NotEmpty(t, sum.Comparison.NewFailures)
	})
}

// TestKeptExportWhileBusy: an export kept from before is answered while
// as many exports render as MaxExports allows (it renders nothing), and
// reads no run again.
func TestKeptExportWhileBusy(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		recordJob(t, st, "job-kept", 1, 10)
		recordJob(t, st, "job-slow", 1, 10)
		s := New(st, Options{MaxExports: 1})
		var loads atomic.Int32
		entered, release := make(chan struct{}), make(chan struct{})
		s.onRunLoaded = func(id string) {
			loads.Add(1)
			if id == "job-slow-run-00" {
				close(entered)
				<-release
			}
		}
		srv := httptest.NewServer(s.Handler())
		defer srv.Close()
		f := &fixture{srv: srv}
		kept := "/api/jobs/job-kept/tests?format=otel"
		resp, first := f.get(t, kept)
		require.Equal(t, http.StatusOK, resp.StatusCode, string(first))
		require.Equal(t, int32(1), loads.Load())

		slow := make(chan int, 1)
		go func() {
			resp, err := srv.Client().Get(srv.URL + "/api/jobs/job-slow/tests?format=otel")
			if err != nil {
				slow <- -1
				return
			}
			resp.Body.Close()
			slow <- resp.StatusCode
		}()
		<-entered
		resp, body := f.get(t, kept)
		assert.Equal(t, http.StatusOK, resp.StatusCode, "a kept export is answered while another renders: %s", body)
		assert.Equal(t, first, body)
		assert.Equal(t, int32(2), loads.Load(), "no run of job-kept read again")
		close(release)
		assert.Equal(t, http.StatusOK, <-slow)
	})
}
