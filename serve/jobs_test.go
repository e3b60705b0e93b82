package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

func jobsServer(t *testing.T, st store.Store) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(New(st, Options{}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, srv *httptest.Server, path string, header ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp, string(b)
}

func getJobs(t *testing.T, srv *httptest.Server, path string) (jobsResponse, *http.Response) {
	t.Helper()
	resp, body := get(t, srv, path)
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "application/json", resp.Header.Get("Content-Type"))
	var out jobsResponse
	require.NoError(t, json.Unmarshal([]byte(body), &out))
	return out, resp
}

// followJobs follows the next links from path to the end and returns the
// job ids in order.
func followJobs(t *testing.T, srv *httptest.Server, path string) []string {
	t.Helper()
	var ids []string
	for range 100 {
		page, resp := getJobs(t, srv, path)
		for _, j := range page.Jobs {
			ids = append(ids, j.Job)
		}
		assert.Equal(t, page.Next, nextLink(resp.Header.Get("Link")), "the Link header names the next page")
		if page.Next == "" {
			return ids
		}
		path = page.Next
	}
	t.Fatal("the pages do not end")
	return nil
}

func recordForJob(t *testing.T, st store.Store, repo, job string, r *testrun.Run) {
	t.Helper()
	_, err := st.RecordRun(context.Background(), store.StoredRun{Run: r, Repo: repo, JobID: job})
	require.NoError(t, err)
}

func TestJobListEmpty(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		srv := jobsServer(t, st)
		resp, body := get(t, srv, "/api/jobs")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.JSONEq(t, `{"jobs":[]}`, body)
		resp, body = get(t, srv, "/")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Contains(t, body, `id="no-jobs"`)
	})
}

func TestJobList(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		var want []string
		for i := range 5 {
			repo := []string{"acme/api", "acme/web"}[i%2]
			job := fmt.Sprintf("job-%d", i)
			r := mkRun("r"+job, testrun.KindAfterTurn, i, map[string]testrun.Outcome{"pkg::TestA": pass, "pkg::TestB": fail}, nil, nil)
			r.Commit = "c0ffee" + job
			recordForJob(t, st, repo, job, r)
			want = append([]string{job}, want...)
		}
		srv := jobsServer(t, st)

		page, resp := getJobs(t, srv, "/api/jobs")
		assert.Empty(t, page.Next)
		assert.Empty(t, resp.Header.Get("Link"))
		require.Len(t, page.Jobs, 5)
		j := page.Jobs[0]
		assert.Equal(t, JobEntry{
			Job: "job-4", Repository: ptr("acme/api"), Run: "rjob-4", Kind: testrun.KindAfterTurn,
			Status: ptr(testrun.StatusFailure), Counted: true, Counts: &testrun.Counts{Total: 2, Passed: 1, Failed: 1},
			Commit: ptr("c0ffeejob-4"), StartedAt: ptr(t0.Add(4 * time.Minute)), EndedAt: ptr(t0.Add(4*time.Minute + 30*time.Second)),
			RecordedAt: j.RecordedAt, Tests: "/api/jobs/job-4/tests", Page: "/jobs/job-4",
		}, j)
		assert.False(t, j.RecordedAt.IsZero())
		// The links answer.
		resp, _ = get(t, srv, j.Tests)
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		resp, _ = get(t, srv, j.Page)
		assert.Equal(t, http.StatusOK, resp.StatusCode)

		for _, limit := range []int{1, 2, 5, 200} {
			assert.Equal(t, want, followJobs(t, srv, fmt.Sprintf("/api/jobs?limit=%d", limit)), "limit %d", limit)
		}
		assert.Equal(t, []string{"job-4", "job-2", "job-0"}, followJobs(t, srv, "/api/jobs?repo=acme%2Fapi&limit=2"))
		assert.Equal(t, []string{"job-3", "job-1"}, followJobs(t, srv, "/api/jobs?repo=acme/web&limit=1"))
		assert.Empty(t, followJobs(t, srv, "/api/jobs?repo=nobody"))

		for _, bad := range []string{"?limit=0", "?limit=201", "?limit=x", "?cursor=0", "?cursor=-3", "?cursor=x", "?repo=", "?repo=a%00b", "?page=2"} {
			resp, body := get(t, srv, "/api/jobs"+bad)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode, bad)
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), bad)
			assert.Contains(t, body, `"status":400`, bad)
		}
		resp, _ = get(t, srv, "/api/jobs?limit=200")
		assert.Equal(t, http.StatusOK, resp.StatusCode)
	})
}

// TestJobListFresh: the kept list is never answered once a run was
// recorded or retention ran.
func TestJobListFresh(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		ctx := context.Background()
		recordForJob(t, st, "acme/api", "old", mkRun("r-old", testrun.KindBase, 0, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil))
		srv := jobsServer(t, st)
		ids := func(path string) []string {
			page, _ := getJobs(t, srv, path)
			var out []string
			for _, j := range page.Jobs {
				out = append(out, j.Job)
			}
			return out
		}
		for _, path := range []string{"/api/jobs", "/api/jobs?repo=acme/api", "/"} {
			resp, _ := get(t, srv, path)
			require.Equal(t, http.StatusOK, resp.StatusCode)
			etag := resp.Header.Get("ETag")
			require.NotEmpty(t, etag)
			resp, _ = get(t, srv, path, "If-None-Match", etag)
			assert.Equal(t, http.StatusNotModified, resp.StatusCode, "kept while nothing changes")
		}
		assert.Equal(t, []string{"old"}, ids("/api/jobs"))

		recordForJob(t, st, "acme/api", "new", mkRun("r-new", testrun.KindBase, 1, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil))
		assert.Equal(t, []string{"new", "old"}, ids("/api/jobs"))
		assert.Equal(t, []string{"new", "old"}, ids("/api/jobs?repo=acme/api"))
		_, body := get(t, srv, "/")
		assert.Contains(t, body, `href="/jobs/new"`)

		// A run tagged for another job moves that job to the top.
		recordForJob(t, st, "acme/api", "old", mkRun("r-new", testrun.KindBase, 1, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil))
		assert.Equal(t, []string{"old", "new"}, ids("/api/jobs"))

		// Retention drops r-old; both jobs keep r-new.
		_, err := st.PruneRuns(ctx, time.Now().Add(store.RunTTL+time.Hour))
		require.NoError(t, err)
		assert.Empty(t, ids("/api/jobs"))
		_, body = get(t, srv, "/")
		assert.NotContains(t, body, `href="/jobs/new"`)
	})
}

// TestFrontPage: the front page lists each repository's jobs linked to
// their pages, escapes every id and string, and /jobs leads to it.
func TestFrontPage(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		hostile := `<script>alert(1)</script>"&'`
		// A job id is one path element (the store refuses a slash).
		hostileJob := `<script>alert(2)<script>"&'`
		r := mkRun("r1", testrun.KindAfterTurn, 0, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil)
		r.Commit = hostile
		recordForJob(t, st, "acme/<b>api</b>", hostileJob, r)
		recordForJob(t, st, "acme/web", "job web?#1", mkRun("r2", testrun.KindBase, 1, map[string]testrun.Outcome{"pkg::TestA": pass}, nil, nil))
		srv := jobsServer(t, st)

		resp, body := get(t, srv, "/")
		require.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
		assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "default-src 'none'")
		assert.NotContains(t, body, "<script")
		assert.NotContains(t, body, "<b>")
		assert.Contains(t, body, "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;&#39;")
		assert.Contains(t, body, "&lt;script&gt;alert(2)&lt;script&gt;&#34;&amp;&#39;")
		assert.Contains(t, body, `href="/jobs/job%20web%3F%231"`, "the id is one escaped path segment")
		assert.Contains(t, body, `href="/?repo=acme%2Fweb"`)
		assert.Less(t, strings.Index(body, "acme/web"), strings.Index(body, "acme/&lt;b&gt;api&lt;/b&gt;"), "newest first")
		resp, _ = get(t, srv, "/jobs/job%20web%3F%231")
		assert.Equal(t, http.StatusOK, resp.StatusCode, "the job's link answers")

		_, body = get(t, srv, "/?repo=acme%2Fweb")
		assert.Contains(t, body, "job web?#1")
		assert.NotContains(t, body, "alert(1)")

		// Paged as the list is.
		_, body = get(t, srv, "/?limit=1")
		assert.Contains(t, body, "job web?#1")
		assert.NotContains(t, body, "alert(1)")
		page, _ := getJobs(t, srv, "/api/jobs?limit=1")
		require.NotEmpty(t, page.Next)
		_, cursor, ok := strings.Cut(page.Next, "?")
		require.True(t, ok, "the next link has a query: %s", page.Next)
		m := regexp.MustCompile(`<a id="next" rel="next" href="([^"]*)">`).FindStringSubmatch(body)
		require.NotNil(t, m)
		assert.Equal(t, "/?"+cursor, html.UnescapeString(m[1]))
		_, body = get(t, srv, "/?"+cursor)
		assert.Contains(t, body, "alert(1)")
		assert.NotContains(t, body, "job web?#1")

		client := *srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		res, err := client.Get(srv.URL + "/jobs?limit=1")
		require.NoError(t, err)
		res.Body.Close()
		assert.Equal(t, http.StatusFound, res.StatusCode)
		assert.Equal(t, "/?limit=1", res.Header.Get("Location"))

		resp, _ = get(t, srv, "/nothing-here")
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	})
}

// TestJobPageRuns: the job page shows each run's commit, command, times,
// kind and status, and links to it, all escaped.
func TestJobPageRuns(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		job := `j<i>&"1`
		r := mkRun("run <1>", testrun.KindAfterTurn, 2, map[string]testrun.Outcome{"pkg::TestA": fail}, nil, nil)
		r.Commit = "<script>commit</script>"
		r.Command = `go test <script>alert("c")</script> ./...`
		recordForJob(t, st, "acme/api", job, r)
		srv := jobsServer(t, st)

		resp, body := get(t, srv, "/jobs/"+url.PathEscape(job))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		assert.NotContains(t, body, "<script")
		assert.NotContains(t, body, "<i>")
		assert.Contains(t, body, `<code class="commit">&lt;script&gt;commit&lt;/script&gt;</code>`)
		assert.Contains(t, body, `<code class="command">go test &lt;script&gt;alert(&#34;c&#34;)&lt;/script&gt; ./...</code>`)
		assert.Contains(t, body, "<td>2026-11-30T10:02:00Z</td><td>2026-11-30T10:02:30Z</td>")
		assert.Contains(t, body, "<td>after_turn</td><td>failure</td>")
		link := "/api/jobs/" + url.PathEscape(job) + "/tests?run=" + url.QueryEscape("run <1>")
		m := regexp.MustCompile(`<a class="run" href="([^"]*)">`).FindStringSubmatch(body)
		require.NotNil(t, m)
		assert.Equal(t, link, html.UnescapeString(m[1]))
		resp, runBody := get(t, srv, link)
		assert.Equal(t, http.StatusOK, resp.StatusCode, runBody)
		assert.Contains(t, runBody, `"id":"run \u003c1\u003e"`)
	})
}
