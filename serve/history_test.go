package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// hostileTest is a test id that is markup, a URL and an SVG element at
// once: every page and chart must show it as text.
const hostileTest = `pkg/<script>alert("t")</script>::Test"'&</svg><a href="javascript:x">`

// seedProject records n counted runs of a real project's report (a Go
// module's gotestsum JUnit report, read as `testresults run` reads it)
// for repository repo, one a minute from t0, two runs a tree. Outcomes vary
// per run: flakyID fails on one run in three (so it flips on some
// trees), brokenID fails from run brokenFrom on, durations wander, and
// coverage climbs slowly. hostileTest is added, passing on even runs.
func seedProject(t testing.TB, st store.Store, repo string, n, brokenFrom int) (flakyID, brokenID string) {
	t.Helper()
	return seedProjectIn(t, st, repo, "", "", n, brokenFrom)
}

// seedProjectIn is seedProject for environment env ("": the default), its
// run ids led by prefix.
func seedProjectIn(t testing.TB, st store.Store, repo, env, prefix string, n, brokenFrom int) (flakyID, brokenID string) {
	t.Helper()
	base, err := report.ReadRun([]string{filepath.Join("..", "testdata", "runners", "gotestjson", "reports", "gotestsum.xml")})
	require.NoError(t, err)
	ids := slices.Sorted(func(yield func(string) bool) {
		for id, o := range base.Cases {
			if o == testrun.OutcomePassed && !yield(id) {
				return
			}
		}
	})
	require.GreaterOrEqual(t, len(ids), 4)
	flakyID, brokenID = ids[0], ids[1]
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := range n {
		var execs []testrun.Execution
		for id, o := range base.Cases {
			d := base.Durations[id]
			e := testrun.Execution{ID: id, Scope: "gotestsum.xml", Outcome: o, Duration: d + time.Duration(rng.IntN(20))*time.Millisecond, Timed: true}
			switch {
			case id == flakyID && rng.IntN(3) == 0:
				e.Outcome, e.Message = testrun.OutcomeFailed, "timeout waiting for <server> & friends"
			case id == brokenID && i >= brokenFrom:
				e.Outcome, e.Message = testrun.OutcomeFailed, "expected 2, got 3"
			}
			execs = append(execs, e)
		}
		ho := testrun.OutcomePassed
		if i%2 == 1 {
			ho = testrun.OutcomeFailed
		}
		execs = append(execs, testrun.Execution{ID: hostileTest, Scope: "gotestsum.xml", Outcome: ho, Message: "<b>bold</b>", Duration: 5 * time.Millisecond, Timed: true})
		slices.SortFunc(execs, func(a, b testrun.Execution) int { return strings.Compare(a.ID, b.ID) })
		rate := 0.6 + 0.2*float64(i)/float64(max(n, 1))
		covered, valid := int64(rate*5000), int64(5000)
		tests := len(execs)
		b := testrun.NewBuilder()
		b.AddReport(testrun.ReportInfo{Path: "gotestsum.xml", Dialect: "junit", Tests: &tests, SHA256: fmt.Sprintf("%064d", i), Bytes: 1}, execs, nil)
		b.AddReport(testrun.ReportInfo{Path: "coverage.xml", Dialect: "cobertura", SHA256: fmt.Sprintf("%064d", 1), Bytes: 1}, nil,
			&testrun.CoverageReport{LineRate: &rate, LinesCovered: &covered, LinesValid: &valid})
		r := b.Build()
		r.ID, r.Kind, r.Tree = fmt.Sprintf("%srun-%04d", prefix, i), testrun.KindAfterTurn, fmt.Sprintf("tree-%04d", i/2)
		r.Command = "go test ./..."
		r.StartedAt = t0.Add(time.Duration(i) * time.Minute)
		r.EndedAt = r.StartedAt.Add(time.Duration(20+rng.IntN(20)) * time.Second)
		code := 0
		r.Status = testrun.StatusSuccess
		if r.Counts.Failed+r.Counts.Errors > 0 {
			code, r.Status = 1, testrun.StatusFailure
		}
		r.ExitCode = &code
		_, err := st.RecordRun(ctx, store.StoredRun{Run: r, Repo: repo, Environment: env, JobID: fmt.Sprintf("%sjob-%d", prefix, i/10)})
		require.NoError(t, err)
	}
	return flakyID, brokenID
}

func historyServer(t *testing.T, st store.Store) *httptest.Server {
	srv := httptest.NewServer(New(st, Options{}).Handler())
	t.Cleanup(srv.Close)
	return srv
}

func historyQuery(repo, test string) string {
	v := url.Values{"repo": {repo}}
	if test != "" {
		v.Set("test", test)
	}
	return v.Encode()
}

func TestTestHistoryAPI(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		flaky, _ := seedProject(t, st, "acme/api", 60, 50)
		srv := historyServer(t, st)

		resp, body := get(t, srv, "/api/repos/tests/history?"+historyQuery("acme/api", flaky))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var got testHistoryResponse
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		assert.Equal(t, "acme/api", got.Repository)
		require.Len(t, got.Entries, 60, "one entry per stored run")
		first := got.Entries[0]
		assert.Equal(t, "run-0000", first.Run)
		assert.Equal(t, t0, first.At)
		assert.Equal(t, "/api/jobs/job-0/tests?run=run-0000", first.Link)
		require.NotNil(t, first.Duration)
		assert.Equal(t, "tree-0000", first.Tree)
		for i := 1; i < len(got.Entries); i++ {
			assert.True(t, got.Entries[i-1].At.Before(got.Entries[i].At), "oldest first")
		}
		assert.Equal(t, 60, got.Score.Runs)
		assert.Positive(t, got.Score.Flips)
		assert.Equal(t, 50, got.Score.FlipWindowRuns)
		assert.GreaterOrEqual(t, got.Score.FailureRateUpper, got.Score.FailureRate)
		assert.Equal(t, "/repos/tests/history?"+historyQuery("acme/api", flaky), got.Page)

		// A time range and a limit.
		q := historyQuery("acme/api", flaky) + "&since=" + url.QueryEscape(t0.Add(10*time.Minute).Format(time.RFC3339)) +
			"&until=" + url.QueryEscape(t0.Add(20*time.Minute).Format(time.RFC3339)) + "&limit=5"
		resp, body = get(t, srv, "/api/repos/tests/history?"+q)
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		got = testHistoryResponse{}
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		var runs []string
		for _, e := range got.Entries {
			runs = append(runs, e.Run)
		}
		assert.Equal(t, []string{"run-0015", "run-0016", "run-0017", "run-0018", "run-0019"}, runs)

		// The hostile id is an id like any other.
		resp, body = get(t, srv, "/api/repos/tests/history?"+historyQuery("acme/api", hostileTest))
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		assert.Contains(t, body, `"test":"pkg/\u003cscript\u003e`)
	})
}

// TestHistoryRefusals: the history endpoints refuse what the API refuses
// elsewhere, through the one problem mapper.
func TestHistoryRefusals(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	seedProject(t, st, "acme/api", 3, 10)
	srv := historyServer(t, st)
	long := strings.Repeat("x", MaxIDLength+1)
	for _, c := range []struct {
		path   string
		status int
		detail string
	}{
		{"/api/repos/tests/history?repo=acme/api", 400, "test id is empty"},
		{"/api/repos/tests/history?test=a", 400, "repo is empty"},
		{"/api/repos/tests/history?repo=acme/api&test=a%00b", 400, "control character"},
		{"/api/repos/tests/history?repo=acme/api&test=" + long, 400, "longer than"},
		{"/api/repos/tests/history?repo=acme/api&test=%ff", 400, "not UTF-8"},
		{"/api/repos/tests/history?repo=acme/api&test=a&x=1", 400, `unknown parameter \"x\"`},
		{"/api/repos/tests/history?repo=acme/api&test=a&since=yesterday", 400, "since must be an RFC 3339 time"},
		{"/api/repos/tests/history?repo=acme/api&test=a&limit=0", 400, "limit must be an integer"},
		{"/api/repos/tests/history?repo=acme/api&test=nope", 404, "no history of this test"},
		{"/api/repos/tests/trends?repo=acme/none", 404, "no counted runs"},
		{"/api/repos/tests/trends?repo=acme/api&runs=1001", 400, "runs must be an integer from 1 to 1000"},
		{"/repos/tests?repo=acme/api&test=a", 400, `unknown parameter \"test\"`},
		{"/repos/tests?repo=%1b", 400, "control character"},
		{"/repos/tests/history?repo=acme/api&test=nope", 404, "no history"},
		{"/repos/tests/history?repo=acme/api&test=a&runs=x", 400, "runs must be an integer"},
	} {
		resp, body := get(t, srv, c.path)
		assert.Equal(t, c.status, resp.StatusCode, c.path)
		assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"), c.path)
		assert.Contains(t, body, c.detail, c.path)
	}
}

func TestTrendsAPI(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		flaky, broken := seedProject(t, st, "acme/api", 60, 50)
		srv := historyServer(t, st)
		resp, body := get(t, srv, "/api/repos/tests/trends?"+historyQuery("acme/api", "")+"&runs=40")
		require.Equal(t, http.StatusOK, resp.StatusCode, body)
		var got trendsResponse
		require.NoError(t, json.Unmarshal([]byte(body), &got))
		require.Len(t, got.Runs, 40, "the last 40")
		assert.Equal(t, "run-0020", got.Runs[0].Run)
		last := got.Runs[39]
		assert.Equal(t, "run-0059", last.Run)
		require.NotNil(t, last.PassRate)
		require.NotNil(t, last.Duration)
		require.NotNil(t, last.LineRate)
		assert.InDelta(t, 0.6+0.2*59/60, *last.LineRate, 1e-9)
		assert.InDelta(t, float64(last.Counts.Passed)/float64(last.Counts.Passed+last.Counts.Failed+last.Counts.Errors), *last.PassRate, 1e-9)

		assert.Equal(t, 40, got.Tests.Runs)
		var flakiest []string
		for _, f := range got.Tests.Flakiest {
			flakiest = append(flakiest, f.Test)
		}
		assert.Contains(t, flakiest, flaky)
		assert.Contains(t, flakiest, hostileTest, "it flips on every run")
		assert.Equal(t, hostileTest, got.Tests.Flakiest[0].Test, "the highest flip rate first")
		require.NotEmpty(t, got.Tests.RecentlyBroken)
		var brokenEntry *BrokenTestEntry
		for i := range got.Tests.RecentlyBroken {
			if got.Tests.RecentlyBroken[i].Test == broken {
				brokenEntry = &got.Tests.RecentlyBroken[i]
			}
		}
		require.NotNil(t, brokenEntry, "the test broken from run 50 is listed")
		assert.Equal(t, "run-0050", brokenEntry.Since.Run)
		assert.Equal(t, "run-0049", brokenEntry.LastPassed.Run)
		assert.Equal(t, 10, brokenEntry.Failures)
		require.NotEmpty(t, got.Tests.Slowest)
		for i := 1; i < len(got.Tests.Slowest); i++ {
			assert.GreaterOrEqual(t, got.Tests.Slowest[i-1].Mean, got.Tests.Slowest[i].Mean)
		}
	})
}

// TestHistoryPages renders both pages and reads their charts and lists:
// an SVG per trend with a dot per run, a strip cell per run linking to
// it, and every id as text.
func TestHistoryPages(t *testing.T) {
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	flaky, _ := seedProject(t, st, "acme/api", 30, 25)
	srv := historyServer(t, st)

	resp, body := get(t, srv, "/repos/tests?"+historyQuery("acme/api", ""))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, "text/html; charset=utf-8", resp.Header.Get("Content-Type"))
	for _, id := range []string{"pass-rate", "duration", "coverage", "flaky-count"} {
		assert.Contains(t, body, `<svg id="`+id+`"`)
	}
	assert.Equal(t, 30*4, strings.Count(body, `<circle class="point"`), "a dot per run on each of the four charts")
	assert.Contains(t, body, `data-run="run-0029"`)
	assert.Contains(t, body, `<table id="flakiest">`)
	assert.Contains(t, body, `<table id="recently-broken">`)
	slowest := regexp.MustCompile(`(?s)<table id="slowest">.*?</table>`).FindString(body)
	assert.Equal(t, PageListLength, strings.Count(slowest, `<a class="test"`), "the page lists the first of each list")
	assert.NotContains(t, body, "<script>")
	assert.NotContains(t, body, `</svg><a href="javascript`)
	assert.Contains(t, body, `pkg/&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt;::Test&#34;&#39;&amp;&lt;/svg&gt;`)

	resp, body = get(t, srv, "/repos/tests/history?"+historyQuery("acme/api", flaky))
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, 30, strings.Count(body, `<rect class="cell `))
	assert.Contains(t, body, `<a href="/api/jobs/job-2/tests?run=run-0029"><rect class="cell `)
	assert.Contains(t, body, `<svg id="test-duration"`)
	assert.Equal(t, 30, strings.Count(body, `<circle class="point"`))

	resp, body = get(t, srv, "/repos/tests/history?"+historyQuery("acme/api", hostileTest)+"&runs=10")
	require.Equal(t, http.StatusOK, resp.StatusCode, body)
	assert.Equal(t, 10, strings.Count(body, `<rect class="cell `))
	assert.Equal(t, 5, strings.Count(body, `<rect class="cell failed"`))
	assert.NotContains(t, body, "<script>")
	assert.NotContains(t, body, `href="javascript`)
	assert.Contains(t, body, `<code id="test">pkg/&lt;script&gt;`)
}

// hostileEnv is an environment name that is markup and a URL at once.
const hostileEnv = `mac<script>alert("e")</script>&os`

// TestHistoryPerEnvironment: one repository's runs in two environments
// are answered apart: without ?env the default environment's, with it the
// named one's, each answer naming its environment and linking to the
// other's, the same test's history in each its own; an environment with
// no runs is a 404 naming those there are, and every name is escaped on
// the pages.
func TestHistoryPerEnvironment(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		flaky, _ := seedProject(t, st, "acme/api", 30, 25)
		seedProjectIn(t, st, "acme/api", hostileEnv, "mac-", 12, 100)
		srv := historyServer(t, st)
		envQuery := func(env, test string) string {
			v := url.Values{"repo": {"acme/api"}, "env": {env}}
			if test != "" {
				v.Set("test", test)
			}
			return v.Encode()
		}
		trends := func(query string) trendsResponse {
			t.Helper()
			resp, body := get(t, srv, "/api/repos/tests/trends?"+query)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			var got trendsResponse
			require.NoError(t, json.Unmarshal([]byte(body), &got))
			return got
		}
		def := trends(historyQuery("acme/api", ""))
		assert.Equal(t, store.DefaultEnvironment, def.Environment)
		assert.Len(t, def.Runs, 30)
		assert.Equal(t, def, trends(envQuery(store.DefaultEnvironment, "")), "no env is the default environment")
		require.Len(t, def.Environments, 2)
		assert.Equal(t, Environment{Name: store.DefaultEnvironment, Current: true, Page: "/repos/tests?repo=acme%2Fapi", API: "/api/repos/tests/trends?repo=acme%2Fapi"}, def.Environments[0])
		assert.Equal(t, Environment{Name: hostileEnv, Page: "/repos/tests?" + envQuery(hostileEnv, ""), API: "/api/repos/tests/trends?" + envQuery(hostileEnv, "")}, def.Environments[1])

		mac := trends(envQuery(hostileEnv, ""))
		assert.Equal(t, hostileEnv, mac.Environment)
		require.Len(t, mac.Runs, 12)
		for _, p := range mac.Runs {
			assert.True(t, strings.HasPrefix(p.Run, "mac-"), p.Run)
		}
		assert.Equal(t, 12, mac.Tests.Runs)
		assert.True(t, mac.Environments[1].Current)
		assert.False(t, mac.Environments[0].Current)
		require.NotEmpty(t, mac.Tests.Flakiest)
		assert.Equal(t, "/repos/tests/history?"+envQuery(hostileEnv, mac.Tests.Flakiest[0].Test), mac.Tests.Flakiest[0].Page)

		history := func(query string) testHistoryResponse {
			t.Helper()
			resp, body := get(t, srv, "/api/repos/tests/history?"+query)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			var got testHistoryResponse
			require.NoError(t, json.Unmarshal([]byte(body), &got))
			return got
		}
		dh, mh := history(historyQuery("acme/api", flaky)), history(envQuery(hostileEnv, flaky))
		assert.Equal(t, store.DefaultEnvironment, dh.Environment)
		assert.Len(t, dh.Entries, 30)
		assert.Equal(t, hostileEnv, mh.Environment)
		require.Len(t, mh.Entries, 12)
		for _, e := range mh.Entries {
			assert.True(t, strings.HasPrefix(e.Run, "mac-"), e.Run)
		}
		assert.Equal(t, 12, mh.Score.Runs, "scored from its environment's runs only")
		assert.Equal(t, "/repos/tests/history?"+envQuery(hostileEnv, flaky), mh.Page)
		assert.Equal(t, "/api/repos/tests/history?"+historyQuery("acme/api", flaky), mh.Environments[0].API)

		resp, body := get(t, srv, "/api/repos/tests/trends?"+envQuery("windows", ""))
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Contains(t, body, `no counted runs of this repository in this environment; the repository's environments: \"default\", \"mac\u003cscript\u003ealert(\\\"e\\\")\u003c/script\u003e\u0026os\"`)
		resp, body = get(t, srv, "/repos/tests/history?"+envQuery("windows", flaky))
		assert.Equal(t, http.StatusNotFound, resp.StatusCode)
		assert.Contains(t, body, "no history of this test in this repository in this environment")
		resp, body = get(t, srv, "/api/repos/tests/trends?"+envQuery("", ""))
		assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
		assert.Contains(t, body, "env is empty")

		for _, page := range []string{"/repos/tests?" + envQuery(hostileEnv, ""), "/repos/tests/history?" + envQuery(hostileEnv, flaky)} {
			resp, body := get(t, srv, page)
			require.Equal(t, http.StatusOK, resp.StatusCode, body)
			assert.NotContains(t, body, "<script>", page)
			assert.Contains(t, body, `<code id="env">mac&lt;script&gt;alert(&#34;e&#34;)&lt;/script&gt;&amp;os</code>`, page)
			assert.Contains(t, body, `<strong class="env current"><code>mac&lt;script&gt;`, page)
		}
		_, body = get(t, srv, "/repos/tests?"+historyQuery("acme/api", ""))
		assert.Contains(t, body, `<a class="env" href="/repos/tests?env=mac%3Cscript%3Ealert%28%22e%22%29%3C%2Fscript%3E%26os&amp;repo=acme%2Fapi"><code>mac&lt;script&gt;`)
		assert.Contains(t, body, `<code id="env">default</code>`)
		assert.Equal(t, 30*4, strings.Count(body, `<circle class="point"`), "the default environment's runs only")
		_, body = get(t, srv, "/repos/tests/history?"+envQuery(hostileEnv, flaky))
		assert.Equal(t, 12, strings.Count(body, `<rect class="cell `))
		assert.Contains(t, body, `<a class="env" href="/repos/tests/history?`+strings.ReplaceAll(historyQuery("acme/api", flaky), "&", "&amp;")+`"><code>default</code></a>`)
	})
}
