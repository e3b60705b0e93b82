package serve

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"time"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// Bounds of the job list.
const (
	// JobsPageSize is how many jobs one page lists unless ?limit= says.
	JobsPageSize = 50
	// MaxJobsPageSize is the largest ?limit= of the job list.
	MaxJobsPageSize = store.MaxJobsPerPage
)

// JobEntry is one job of the job list: its latest run in brief, and its
// links.
type JobEntry struct {
	Job        string          `json:"job"`
	Repository *string         `json:"repository"`
	Run        string          `json:"run"`
	Kind       testrun.Kind    `json:"kind"`
	Status     *testrun.Status `json:"status"`
	Counted    bool            `json:"counted"`
	Counts     *testrun.Counts `json:"counts"`
	Commit     *string         `json:"commit"`
	StartedAt  *time.Time      `json:"started_at"`
	EndedAt    *time.Time      `json:"ended_at"`
	RecordedAt time.Time       `json:"recorded_at"`
	// Tests is the job's summary, Page its HTML page.
	Tests string `json:"tests"`
	Page  string `json:"page"`
}

type jobsResponse struct {
	Jobs []JobEntry `json:"jobs"`
	Next string     `json:"next,omitempty"`
}

// jobPath is the path of job id under prefix, id escaped as one segment.
func jobPath(prefix, id, suffix string) string {
	return prefix + url.PathEscape(id) + suffix
}

func jobEntryOf(e store.JobEntry) JobEntry {
	r := e.Latest.Run
	out := JobEntry{
		Job: e.JobID, Repository: strOrNil(e.Latest.Repo), Run: r.ID, Kind: r.Kind,
		Counted: r.Counted(), Counts: r.Counts, Commit: strOrNil(r.Commit),
		StartedAt: timeOrNil(r.StartedAt), EndedAt: timeOrNil(r.EndedAt), RecordedAt: e.Latest.RecordedAt,
		Tests: jobPath("/api/jobs/", e.JobID, "/tests"), Page: jobPath("/jobs/", e.JobID, ""),
	}
	if r.Status != "" {
		st := r.Status
		out.Status = &st
	}
	return out
}

// jobsPage reads the page of jobs r asks for (?limit, ?cursor, ?repo),
// its next link and the store's version of all runs (store.RunStore.
// RunsVersion), which every tagging and retention sets anew. It returns
// ok false once it has answered w: a bad request, a store error, or the
// response kept for r and that version.
func (s *Server) jobsPage(w http.ResponseWriter, r *http.Request) (page jobsResponse, version string, ok bool) {
	q := r.URL.Query()
	for k := range q {
		switch k {
		case "limit", "cursor", "repo":
		default:
			writeProblem(w, http.StatusBadRequest, "unknown parameter "+strconv.Quote(clip(k)))
			return page, "", false
		}
	}
	jq := store.JobsQuery{Limit: JobsPageSize}
	if v := q.Get("limit"); q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxJobsPageSize {
			writeProblem(w, http.StatusBadRequest, "limit must be an integer from 1 to "+strconv.Itoa(MaxJobsPageSize))
			return page, "", false
		}
		jq.Limit = n
	}
	if v := q.Get("cursor"); q.Has("cursor") {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			writeProblem(w, http.StatusBadRequest, "cursor must be the cursor of a next link")
			return page, "", false
		}
		jq.Before = n
	}
	if q.Has("repo") {
		jq.Repo = q.Get("repo")
		if err := checkID("repo", jq.Repo, true); err != nil {
			writeProblem(w, http.StatusBadRequest, err.Error())
			return page, "", false
		}
	}
	ctx := r.Context()
	version, err := s.runs.RunsVersion(ctx)
	if err != nil {
		storeError(ctx, w, err)
		return page, "", false
	}
	if b := s.cache.get(cacheKey(r), version); b != nil {
		b.serve(w, r)
		return page, "", false
	}
	jobs, next, err := s.runs.Jobs(ctx, jq)
	if err != nil {
		storeError(ctx, w, err)
		return page, "", false
	}
	page.Jobs = make([]JobEntry, 0, len(jobs))
	for _, e := range jobs {
		page.Jobs = append(page.Jobs, jobEntryOf(e))
	}
	if next > 0 {
		u := *r.URL
		q.Set("cursor", strconv.FormatInt(next, 10))
		u.RawQuery = q.Encode()
		page.Next = u.RequestURI()
	}
	return page, version, true
}

// jobList answers the job list as JSON.
func (s *Server) jobList(w http.ResponseWriter, r *http.Request) {
	page, version, ok := s.jobsPage(w, r)
	if !ok {
		return
	}
	var header [][2]string
	if page.Next != "" {
		header = append(header, [2]string{"Link", "<" + page.Next + `>; rel="next"`})
	}
	s.answerJSON(w, r, cacheKey(r), version, page, header...)
}

// repoJobs is one repository's jobs on the front page.
type repoJobs struct {
	Repo, Link string
	Jobs       []JobEntry
}

type frontData struct {
	Repo  string
	Repos []repoJobs
	Next  string
}

// frontTemplate is parsed the first time the front page is asked for.
var frontTemplate = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("front").Funcs(pageFuncs()).Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Test results{{with .Repo}} of {{.}}{{end}}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem;color:#1b1b1b;line-height:1.4}
h1{font-size:1.5rem;word-break:break-all}h2{font-size:1.15rem;margin-top:1.8rem;border-bottom:1px solid #ddd;word-break:break-all}
table{border-collapse:collapse}td,th{padding:.25rem .8rem;text-align:left;border-bottom:1px solid #eee;vertical-align:top}
.fail{color:#b00020}.pass{color:#1b6e20}code{word-break:break-all}.muted{color:#666}
</style>
</head>
<body>
<h1>Test results{{with .Repo}} of <code id="repo">{{.}}</code>{{end}}</h1>
{{if .Repo}}<p><a href="/">All repositories</a></p>{{end}}
{{range .Repos}}<h2>{{if .Repo}}<a class="repo" href="{{.Link}}">{{.Repo}}</a>{{else}}<span class="muted">no repository</span>{{end}}</h2>
<table class="jobs"><tr><th>job</th><th>latest run</th><th>kind</th><th>status</th><th>counted</th><th>total</th><th>failed</th><th>errors</th><th>commit</th><th>started</th></tr>
{{range .Jobs}}<tr><td><a class="job" href="{{.Page}}"><code>{{.Job}}</code></a></td><td><code>{{.Run}}</code></td><td>{{.Kind}}</td><td>{{status .Status}}</td><td>{{.Counted}}</td>{{with .Counts}}<td>{{.Total}}</td><td{{if .Failed}} class="fail"{{end}}>{{.Failed}}</td><td{{if .Errors}} class="fail"{{end}}>{{.Errors}}</td>{{else}}<td colspan="3" class="muted">no counts</td>{{end}}<td><code>{{deref .Commit}}</code></td><td>{{when .StartedAt}}</td></tr>
{{end}}</table>
{{else}}<p id="no-jobs">No jobs recorded{{with .Repo}} for this repository{{end}}.</p>
{{end}}{{with .Next}}<p><a id="next" rel="next" href="{{.}}">Older jobs</a></p>{{end}}
</body>
</html>
`))
})

// timeText is t for a page: UTC, to the second; "unknown" when nil.
func timeText(t *time.Time) string {
	if t == nil {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

// frontPage answers the repositories and their latest jobs as HTML, paged
// as the job list is.
func (s *Server) frontPage(w http.ResponseWriter, r *http.Request) {
	page, version, ok := s.jobsPage(w, r)
	if !ok {
		return
	}
	d := frontData{Repo: r.URL.Query().Get("repo"), Next: page.Next}
	at := map[string]int{}
	for _, j := range page.Jobs {
		repo := ""
		if j.Repository != nil {
			repo = *j.Repository
		}
		i, seen := at[repo]
		if !seen {
			i = len(d.Repos)
			at[repo] = i
			d.Repos = append(d.Repos, repoJobs{Repo: repo, Link: "/?" + url.Values{"repo": {repo}}.Encode()})
		}
		d.Repos[i].Jobs = append(d.Repos[i].Jobs, j)
	}
	var buf bytes.Buffer
	if err := frontTemplate().Execute(&buf, d); err != nil {
		writeProblem(w, http.StatusInternalServerError, "the page could not be rendered")
		return
	}
	s.answerHTML(w, r, cacheKey(r), version, buf.Bytes())
}

// answerHTML keeps the page data under key for version and answers r with
// it.
func (s *Server) answerHTML(w http.ResponseWriter, r *http.Request, key, version string, data []byte) {
	b := render(key, version, data,
		[2]string{"Content-Type", "text/html; charset=utf-8"},
		[2]string{"Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"})
	s.cache.put(b)
	b.serve(w, r)
}

// jobsRedirect sends /jobs to the front page, with its query.
func jobsRedirect(w http.ResponseWriter, r *http.Request) {
	target := "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
}
