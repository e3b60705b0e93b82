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
// RunsVersion), which every tagging and retention sets anew. When the
// response kept for r and that version answers r, it returns kept true
// and the caller has nothing more to do.
func (s *Server) jobsPage(w http.ResponseWriter, r *http.Request) (page jobsResponse, version string, kept bool, err error) {
	q, err := queryOf(r)
	if err != nil {
		return page, "", false, err
	}
	if err := onlyParams(q, "limit", "cursor", "repo"); err != nil {
		return page, "", false, err
	}
	jq := store.JobsQuery{Limit: JobsPageSize}
	if v := q.Get("limit"); q.Has("limit") {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > MaxJobsPageSize {
			return page, "", false, badRequest("limit must be an integer from 1 to " + strconv.Itoa(MaxJobsPageSize))
		}
		jq.Limit = n
	}
	if v := q.Get("cursor"); q.Has("cursor") {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 1 {
			return page, "", false, badRequest("cursor must be the cursor of a next link")
		}
		jq.Before = n
	}
	if q.Has("repo") {
		jq.Repo = q.Get("repo")
		if err := checkID("repo", jq.Repo, true); err != nil {
			return page, "", false, err
		}
	}
	ctx := r.Context()
	version, err = s.runs.RunsVersion(ctx)
	if err != nil {
		return page, "", false, err
	}
	if b := s.cache.get(cacheKey(r), version); b != nil {
		b.serve(w, r)
		return page, "", true, nil
	}
	jobs, next, err := s.runs.Jobs(ctx, jq)
	if err != nil {
		return page, "", false, err
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
	return page, version, false, nil
}

// jobList answers the job list as JSON.
func (s *Server) jobList(w http.ResponseWriter, r *http.Request) error {
	page, version, kept, err := s.jobsPage(w, r)
	if kept || err != nil {
		return err
	}
	var header [][2]string
	if page.Next != "" {
		header = append(header, [2]string{"Link", "<" + page.Next + `>; rel="next"`})
	}
	return s.answerJSON(w, r, cacheKey(r), version, page, header...)
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
var frontTemplate = sync.OnceValue(func() *template.Template { return parsePage("front.tmpl") })

// timeText is t for a page: UTC, to the second; "unknown" when nil.
func timeText(t *time.Time) string {
	if t == nil {
		return "unknown"
	}
	return t.UTC().Format(time.RFC3339)
}

// frontPage answers the repositories and their latest jobs as HTML, paged
// as the job list is.
func (s *Server) frontPage(w http.ResponseWriter, r *http.Request) error {
	page, version, kept, err := s.jobsPage(w, r)
	if kept || err != nil {
		return err
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
	return s.answerHTML(w, r, cacheKey(r), version, frontTemplate(), d)
}

// answerHTML renders the page t of d, keeps it under key for version and
// answers r with it.
func (s *Server) answerHTML(w http.ResponseWriter, r *http.Request, key, version string, t *template.Template, d any) error {
	var buf bytes.Buffer
	if err := t.Execute(&buf, d); err != nil {
		return internalError("the page could not be rendered", err)
	}
	b := render(key, version, buf.Bytes(),
		[2]string{"Content-Type", "text/html; charset=utf-8"},
		[2]string{"Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'"})
	s.cache.put(b)
	b.serve(w, r)
	return nil
}

// jobsRedirect sends /jobs to the front page, with its query.
func jobsRedirect(w http.ResponseWriter, r *http.Request) {
	target := "/"
	if r.URL.RawQuery != "" {
		target += "?" + r.URL.RawQuery
	}
	http.Redirect(w, r, target, http.StatusFound)
}
