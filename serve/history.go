package serve

import (
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// The history endpoints: a repository's trends and ranked tests, and one
// test's history, as JSON and as pages. Repository names and test ids hold
// slashes, so both go in the query. What they show informs people; it
// excuses no failure.
//
// A history is one repository's in one environment (the flaky list's,
// what run and flaky record with --env): ?env names it, and without it
// the default environment (store.DefaultEnvironment) is answered. Every
// answer says which environment it is and lists the repository's
// environments, so that another is one link away; environments are
// never blended.

// Bounds of the history endpoints.
const (
	// DefaultTrendRuns is how many of a repository's latest counted runs
	// its trends and lists cover when ?runs is not given.
	DefaultTrendRuns = 100
	// DefaultStripRuns is how many of a test's latest runs its page draws
	// when ?runs is not given (its score reads its whole history).
	DefaultStripRuns = 200
	// MaxStripRuns bounds the runs a test's page draws.
	MaxStripRuns = 1000
	// PageListLength bounds each list of a repository's page (the JSON
	// lists store.MaxTestsListed).
	PageListLength = 20
	// ScoreCredibility is the credibility of the upper bound given with a
	// failure rate.
	ScoreCredibility = 0.95
)

// historyStore returns the store's history, 501 when it keeps none.
func (s *Server) historyStore() (store.HistoryStore, error) {
	h, err := store.HistoryOf(s.runs)
	if err != nil {
		return nil, problemf(http.StatusNotImplemented, "this store keeps no per-test history")
	}
	return h, nil
}

// historyKey is the history a request reads: a repository's in one
// environment, and one test's in it for a test's history.
type historyKey struct {
	repo, env, test string
}

// historyParams reads the parameters of a history request: repo always,
// env when given (else the default environment), test when wantTest, and
// only the names in allowed besides.
func historyParams(q url.Values, wantTest bool, allowed ...string) (historyKey, error) {
	var k historyKey
	allowed = append([]string{"repo", "env"}, allowed...)
	if wantTest {
		allowed = append(allowed, "test")
	}
	if err := onlyParams(q, allowed...); err != nil {
		return k, err
	}
	k.repo = q.Get("repo")
	if err := checkID("repo", k.repo, true); err != nil {
		return k, err
	}
	k.env = store.DefaultEnvironment
	if q.Has("env") {
		k.env = q.Get("env")
		if err := checkID("env", k.env, true); err != nil {
			return k, err
		}
	}
	if wantTest {
		k.test = q.Get("test")
		if err := checkID("test id", k.test, true); err != nil {
			return k, err
		}
	}
	return k, nil
}

// intParam reads the integer parameter name, from 1 to most (def when
// absent).
func intParam(q url.Values, name string, def, most int) (int, error) {
	if !q.Has(name) {
		return def, nil
	}
	n, err := strconv.Atoi(q.Get(name))
	if err != nil || n < 1 || n > most {
		return 0, badRequest(name + " must be an integer from 1 to " + strconv.Itoa(most))
	}
	return n, nil
}

// timeParam reads the RFC 3339 time parameter name (zero when absent).
func timeParam(q url.Values, name string) (time.Time, error) {
	if !q.Has(name) {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, q.Get(name))
	if err != nil {
		return time.Time{}, badRequest(name + " must be an RFC 3339 time")
	}
	return t, nil
}

// cached answers r from the cache when a response for the store's
// current version is kept, and returns the key and version to keep a new
// one under.
func (s *Server) cached(w http.ResponseWriter, r *http.Request) (key, version string, done bool, err error) {
	version, err = s.runs.RunsVersion(r.Context())
	if err != nil {
		return "", "", false, err
	}
	key, done = s.cacheHit(w, r, version)
	return key, version, done, nil
}

// cacheHit answers r from the cache when a response for version is kept
// (done), and returns the key to keep a new one under.
func (s *Server) cacheHit(w http.ResponseWriter, r *http.Request, version string) (key string, done bool) {
	key = cacheKey(r)
	if b := s.cache.get(key, version); b != nil {
		b.serve(w, r)
		return key, true
	}
	return key, false
}

// HistoryEntry is one run of a test's history.
type HistoryEntry struct {
	Run     string          `json:"run"`
	At      time.Time       `json:"at"`
	Outcome testrun.Outcome `json:"outcome"`
	// Duration is the time the reports stated for the test, in seconds;
	// null when they stated none.
	Duration *float64 `json:"duration"`
	Tree     string   `json:"tree,omitempty"`
	Retried  bool     `json:"retried"`
	// Link is the run in the API, when it was recorded for a job or a
	// session.
	Link string `json:"link,omitempty"`
}

// Score is a test's flakiness score, with the upper credible bound of its
// failure rate.
type Score struct {
	testrun.Flakiness
	// FailureRateUpper is the ScoreCredibility quantile of the failure
	// rate's posterior.
	FailureRateUpper float64 `json:"failure_rate_upper"`
}

func scoreOf(f testrun.Flakiness) Score {
	// FailureRate is the mean of Beta(1+fails, 1+passes), over Evidence
	// outcomes: the posterior's parameters back from the two.
	n := float64(f.Evidence + 2)
	a := f.FailureRate * n
	return Score{Flakiness: f, FailureRateUpper: testrun.BetaUpper(a, n-a, ScoreCredibility)}
}

// testHistoryResponse is GET /api/repos/tests/history.
type testHistoryResponse struct {
	Repository string `json:"repository"`
	// Environment is the environment whose runs the entries are;
	// Environments those the repository has counted runs in.
	Environment  string         `json:"environment"`
	Environments []Environment  `json:"environments"`
	Test         string         `json:"test"`
	Page         string         `json:"page"`
	Entries      []HistoryEntry `json:"entries"`
	// Score reads the entries listed.
	Score Score `json:"score"`
}

// runLink is the API's address of run id, recorded for job or session.
func runLink(id, job, session string) string {
	q := "/tests?" + url.Values{"run": {id}}.Encode()
	switch {
	case job != "":
		return jobPath("/api/jobs/", job, q)
	case session != "":
		return jobPath("/api/sessions/", session, q)
	}
	return ""
}

func historyEntryOf(e store.HistoryEntry) HistoryEntry {
	out := HistoryEntry{Run: e.RunID, At: e.At, Outcome: e.Outcome, Tree: e.Tree, Retried: e.Retried, Link: runLink(e.RunID, e.JobID, e.SessionRef)}
	if e.Timed {
		secs := e.Duration.Seconds()
		out.Duration = &secs
	}
	return out
}

// Environment is one of a repository's environments, with the address
// of the same answer (page and JSON) in it.
type Environment struct {
	Name string `json:"name"`
	Page string `json:"page"`
	API  string `json:"api"`
	// Current is true for the environment answered.
	Current bool `json:"current"`
}

// historyValues is the query of the history addresses of k: env only when
// it is not the default environment, so that the addresses made before
// environments were kept stay the default environment's.
func historyValues(k historyKey) string {
	v := url.Values{"repo": {k.repo}}
	if k.env != store.DefaultEnvironment {
		v.Set("env", k.env)
	}
	if k.test != "" {
		v.Set("test", k.test)
	}
	return v.Encode()
}

func testPagePath(k historyKey) string { return "/repos/tests/history?" + historyValues(k) }

func repoPagePath(k historyKey) string {
	k.test = ""
	return "/repos/tests?" + historyValues(k)
}

// environmentsOf lists the environments of k's repository (names in
// byte order), each with the addresses of k's answer in it: its test's
// history when k names a test, else the repository's.
func (s *Server) environmentsOf(r *http.Request, h store.HistoryStore, k historyKey) ([]Environment, error) {
	names, err := h.Environments(r.Context(), k.repo)
	if err != nil {
		return nil, err
	}
	out := make([]Environment, len(names))
	for i, name := range names {
		ek := k
		ek.env = name
		e := Environment{Name: name, Current: name == k.env, Page: repoPagePath(ek), API: "/api/repos/tests/trends?" + historyValues(historyKey{repo: ek.repo, env: ek.env})}
		if k.test != "" {
			e.Page, e.API = testPagePath(ek), "/api/repos/tests/history?"+historyValues(ek)
		}
		out[i] = e
	}
	return out, nil
}

// notInEnvironment is the 404 of a history k's environment lacks: it
// names the environments the repository has.
func notInEnvironment(what string, envs []Environment) error {
	names := make([]string, len(envs))
	for i, e := range envs {
		names[i] = strconv.Quote(clip(e.Name))
	}
	msg := what + " in this environment"
	if len(names) > 0 {
		msg += "; the repository's environments: " + strings.Join(names, ", ")
	}
	return notFound(msg)
}

// loadTestHistory reads the history q asks for of k's test, and the
// repository's environments.
func (s *Server) loadTestHistory(r *http.Request, k historyKey, q store.HistoryQuery) ([]store.HistoryEntry, []Environment, error) {
	h, err := s.historyStore()
	if err != nil {
		return nil, nil, err
	}
	q.Repo, q.Environment, q.TestID = k.repo, k.env, k.test
	entries, err := h.TestHistory(r.Context(), q)
	if err != nil {
		return nil, nil, err
	}
	envs, err := s.environmentsOf(r, h, k)
	if err != nil {
		return nil, nil, err
	}
	if len(entries) == 0 {
		return nil, nil, notInEnvironment("no history of this test in this repository", envs)
	}
	return entries, envs, nil
}

// testHistory answers a test's history as JSON: one entry per stored
// counted run, oldest first, and its score.
func (s *Server) testHistory(w http.ResponseWriter, r *http.Request) error {
	q, err := queryOf(r)
	if err != nil {
		return err
	}
	k, err := historyParams(q, true, "since", "until", "limit")
	if err != nil {
		return err
	}
	var hq store.HistoryQuery
	if hq.Since, err = timeParam(q, "since"); err != nil {
		return err
	}
	if hq.Until, err = timeParam(q, "until"); err != nil {
		return err
	}
	if hq.Limit, err = intParam(q, "limit", store.MaxHistoryRuns, store.MaxHistoryRuns); err != nil {
		return err
	}
	key, version, done, err := s.cached(w, r)
	if done || err != nil {
		return err
	}
	entries, envs, err := s.loadTestHistory(r, k, hq)
	if err != nil {
		return err
	}
	out := testHistoryResponse{Repository: k.repo, Environment: k.env, Environments: envs, Test: k.test, Page: testPagePath(k),
		Entries: make([]HistoryEntry, len(entries)), Score: scoreOf(testrun.ScoreFlakiness(store.Points(entries)))}
	for i, e := range entries {
		out.Entries[i] = historyEntryOf(e)
	}
	return s.answerJSON(w, r, key, version, out)
}

// TrendPoint is one counted run of a repository's trends.
type TrendPoint struct {
	Run    string         `json:"run"`
	At     time.Time      `json:"at"`
	Counts testrun.Counts `json:"counts"`
	// PassRate is passed over passed, failed and errors (null when none
	// ran); Duration the run's wall time in seconds and LineRate its line
	// coverage (null when unknown).
	PassRate *float64 `json:"pass_rate"`
	Duration *float64 `json:"duration"`
	LineRate *float64 `json:"line_rate"`
	Flaky    int      `json:"flaky"`
}

// FlakyTestEntry is a test of the flakiest list.
type FlakyTestEntry struct {
	Test  string `json:"test"`
	Page  string `json:"page"`
	Score Score  `json:"score"`
}

// SlowTestEntry is a test of the slowest list; times in seconds.
type SlowTestEntry struct {
	Test      string  `json:"test"`
	Page      string  `json:"page"`
	Mean      float64 `json:"mean"`
	Max       float64 `json:"max"`
	Latest    float64 `json:"latest"`
	TimedRuns int     `json:"timed_runs"`
}

// BrokenTestEntry is a test of the recently broken list.
type BrokenTestEntry struct {
	Test       string       `json:"test"`
	Page       string       `json:"page"`
	Since      HistoryEntry `json:"since"`
	LastPassed HistoryEntry `json:"last_passed"`
	Failures   int          `json:"failures"`
}

// RepoTestsLists are a repository's tests ranked over its latest runs.
type RepoTestsLists struct {
	Runs           int               `json:"runs"`
	Tests          int               `json:"tests"`
	Flakiest       []FlakyTestEntry  `json:"flakiest"`
	Slowest        []SlowTestEntry   `json:"slowest"`
	RecentlyBroken []BrokenTestEntry `json:"recently_broken"`
}

// trendsResponse is GET /api/repos/tests/trends.
type trendsResponse struct {
	Repository string `json:"repository"`
	// Environment is the environment whose runs these are; Environments
	// those the repository has counted runs in.
	Environment  string         `json:"environment"`
	Environments []Environment  `json:"environments"`
	Page         string         `json:"page"`
	Runs         []TrendPoint   `json:"runs"`
	Tests        RepoTestsLists `json:"tests"`
}

// repoHistory is what a repository's trends and lists read, in one
// environment.
type repoHistory struct {
	key    historyKey
	envs   []Environment
	trends []store.TrendPoint
	tests  store.RepoTests
}

// loadRepoHistory reads the last n counted runs of k's repository in its
// environment and ranks its tests over them.
func (s *Server) loadRepoHistory(r *http.Request, k historyKey, n int) (repoHistory, error) {
	rh := repoHistory{key: k}
	h, err := s.historyStore()
	if err != nil {
		return rh, err
	}
	if rh.trends, err = h.Trends(r.Context(), k.repo, k.env, n); err != nil {
		return rh, err
	}
	if rh.envs, err = s.environmentsOf(r, h, k); err != nil {
		return rh, err
	}
	if len(rh.trends) == 0 {
		return rh, notInEnvironment("no counted runs of this repository", rh.envs)
	}
	rh.tests, err = h.RepoTests(r.Context(), k.repo, k.env, n, 0)
	return rh, err
}

func trendPointOf(p store.TrendPoint) TrendPoint {
	out := TrendPoint{Run: p.RunID, At: p.At, Counts: p.Counts, LineRate: p.LineRate, Flaky: p.Counts.Flaky}
	if rate, ok := p.PassRate(); ok {
		out.PassRate = &rate
	}
	if p.Timed {
		secs := p.Duration.Seconds()
		out.Duration = &secs
	}
	return out
}

func listsOf(k historyKey, t store.RepoTests) RepoTestsLists {
	out := RepoTestsLists{Runs: t.Runs, Tests: t.Tests, Flakiest: []FlakyTestEntry{}, Slowest: []SlowTestEntry{}, RecentlyBroken: []BrokenTestEntry{}}
	page := func(test string) string {
		tk := k
		tk.test = test
		return testPagePath(tk)
	}
	for _, f := range t.Flakiest {
		out.Flakiest = append(out.Flakiest, FlakyTestEntry{Test: f.TestID, Page: page(f.TestID), Score: scoreOf(f.Score)})
	}
	for _, sl := range t.Slowest {
		out.Slowest = append(out.Slowest, SlowTestEntry{Test: sl.TestID, Page: page(sl.TestID),
			Mean: sl.Mean.Seconds(), Max: sl.Max.Seconds(), Latest: sl.Latest.Seconds(), TimedRuns: sl.Timed})
	}
	for _, b := range t.RecentlyBroken {
		out.RecentlyBroken = append(out.RecentlyBroken, BrokenTestEntry{Test: b.TestID, Page: page(b.TestID),
			Since: historyEntryOf(b.Since), LastPassed: historyEntryOf(b.LastPassed), Failures: b.Failures})
	}
	return out
}

// trends answers a repository's trends over its last counted runs, and
// its tests ranked over them, as JSON.
func (s *Server) trends(w http.ResponseWriter, r *http.Request) error {
	rh, c, err := s.repoRequest(w, r)
	if c.done || err != nil {
		return err
	}
	k := rh.key
	out := trendsResponse{Repository: k.repo, Environment: k.env, Environments: rh.envs, Page: repoPagePath(k),
		Runs: make([]TrendPoint, len(rh.trends)), Tests: listsOf(k, rh.tests)}
	for i, p := range rh.trends {
		out.Runs[i] = trendPointOf(p)
	}
	return s.answerJSON(w, r, c.key, c.version, out)
}

// cacheSlot is where a new response is kept (key, version), or done when
// the cache answered.
type cacheSlot struct {
	key, version string
	done         bool
}

// repoRequest reads a repository request (repo, ?env and ?runs),
// answers it from the cache when it can, and otherwise loads the
// repository's history the answer shows.
func (s *Server) repoRequest(w http.ResponseWriter, r *http.Request) (repoHistory, cacheSlot, error) {
	var c cacheSlot
	q, err := queryOf(r)
	if err != nil {
		return repoHistory{}, c, err
	}
	k, err := historyParams(q, false, "runs")
	if err != nil {
		return repoHistory{}, c, err
	}
	n, err := intParam(q, "runs", DefaultTrendRuns, store.MaxTrendRuns)
	if err != nil {
		return repoHistory{}, c, err
	}
	if c.key, c.version, c.done, err = s.cached(w, r); c.done || err != nil {
		return repoHistory{}, c, err
	}
	rh, err := s.loadRepoHistory(r, k, n)
	return rh, c, err
}

// parseHistoryPage parses the page template name with the charts'
// templates.
func parseHistoryPage(name string) *template.Template {
	return template.Must(template.New(name).Funcs(pageFuncs()).Funcs(template.FuncMap{"seconds": secondsText, "at": whenText}).ParseFS(templates, "templates/"+name, "templates/history_svg.tmpl"))
}

var (
	repoTestsTemplate   = sync.OnceValue(func() *template.Template { return parseHistoryPage("history_repo.tmpl") })
	testHistoryTemplate = sync.OnceValue(func() *template.Template { return parseHistoryPage("history_test.tmpl") })
)

func whenText(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// repoPageData is what a repository's tests page shows.
type repoPageData struct {
	Repo, Env, API string
	// Environments are the repository's, each linking to its page.
	Environments []Environment
	Runs         int
	Charts       []chart
	Tests        RepoTestsLists
}

// repoTestsPage renders a repository's trends as charts and its ranked
// tests as HTML.
func (s *Server) repoTestsPage(w http.ResponseWriter, r *http.Request) error {
	rh, c, err := s.repoRequest(w, r)
	if c.done || err != nil {
		return err
	}
	return s.answerHTML(w, r, c.key, c.version, repoTestsTemplate(), repoPageDataOf(rh))
}

func repoPageDataOf(rh repoHistory) repoPageData {
	k := rh.key
	d := repoPageData{Repo: k.repo, Env: k.env, Environments: rh.envs, API: "/api/repos/tests/trends?" + historyValues(k),
		Runs: len(rh.trends), Tests: listsOf(k, rh.tests)}
	t := &d.Tests
	t.Flakiest = t.Flakiest[:min(len(t.Flakiest), PageListLength)]
	t.Slowest = t.Slowest[:min(len(t.Slowest), PageListLength)]
	t.RecentlyBroken = t.RecentlyBroken[:min(len(t.RecentlyBroken), PageListLength)]
	n := len(rh.trends)
	pass, dur, cov, flaky := make([]chartValue, n), make([]chartValue, n), make([]chartValue, n), make([]chartValue, n)
	mostFlaky := 0.0
	for i, p := range rh.trends {
		mostFlaky = max(mostFlaky, float64(p.Counts.Flaky))
		v := chartValue{Run: p.RunID, When: whenText(p.At)}
		pass[i], dur[i], cov[i], flaky[i] = v, v, v, v
		pass[i].Value, pass[i].OK = p.PassRate()
		dur[i].Value, dur[i].OK = p.Duration.Seconds(), p.Timed
		if p.LineRate != nil {
			cov[i].Value, cov[i].OK = *p.LineRate, true
		}
		flaky[i].Value, flaky[i].OK = float64(p.Counts.Flaky), true
	}
	d.Charts = []chart{
		lineChart("pass-rate", "Pass rate", pass, 1, percentText),
		lineChart("duration", "Duration of the suite", dur, 0, secondsText),
		lineChart("coverage", "Line coverage", cov, 1, percentText),
		lineChart("flaky-count", "Flaky tests (reported by the run)", flaky, countTop(mostFlaky), countText),
	}
	return d
}

// testPageData is what a test's page shows.
type testPageData struct {
	Repo, Env, Test string
	// Environments are the repository's, each linking to the test's page
	// in it.
	Environments   []Environment
	RepoPage, API  string
	Shown, Total   int
	Strip          strip
	Duration       chart
	Score          Score
	Latest         HistoryEntry
	Passed, Failed int
	Skipped        int
}

// testHistoryPage renders a test's history strip, its duration over time
// and its score as HTML.
func (s *Server) testHistoryPage(w http.ResponseWriter, r *http.Request) error {
	q, err := queryOf(r)
	if err != nil {
		return err
	}
	k, err := historyParams(q, true, "runs")
	if err != nil {
		return err
	}
	n, err := intParam(q, "runs", DefaultStripRuns, MaxStripRuns)
	if err != nil {
		return err
	}
	key, version, done, err := s.cached(w, r)
	if done || err != nil {
		return err
	}
	entries, envs, err := s.loadTestHistory(r, k, store.HistoryQuery{})
	if err != nil {
		return err
	}
	return s.answerHTML(w, r, key, version, testHistoryTemplate(), testPageDataOf(k, envs, entries, n))
}

func testPageDataOf(k historyKey, envs []Environment, entries []store.HistoryEntry, n int) testPageData {
	d := testPageData{Repo: k.repo, Env: k.env, Test: k.test, Environments: envs, RepoPage: repoPagePath(k), Total: len(entries),
		API:   "/api/repos/tests/history?" + historyValues(k),
		Score: scoreOf(testrun.ScoreFlakiness(store.Points(entries))), Latest: historyEntryOf(entries[len(entries)-1])}
	for _, e := range entries {
		switch {
		case e.Outcome == testrun.OutcomePassed:
			d.Passed++
		case e.Outcome.Failing():
			d.Failed++
		default:
			d.Skipped++
		}
	}
	shown := entries[max(0, len(entries)-n):]
	d.Shown = len(shown)
	cells := make([]stripCellOf, len(shown))
	durs := make([]chartValue, len(shown))
	for i, e := range shown {
		he := historyEntryOf(e)
		detail := string(e.Outcome)
		if e.Retried {
			detail += ", retried by its runner"
		}
		if he.Duration != nil {
			detail += ", " + secondsText(*he.Duration)
		}
		cells[i] = stripCellOf{Outcome: string(e.Outcome), Run: e.RunID, When: whenText(e.At), Link: he.Link, Detail: detail}
		durs[i] = chartValue{Run: e.RunID, When: whenText(e.At), Value: e.Duration.Seconds(), OK: e.Timed}
	}
	d.Strip = layStrip(cells)
	d.Duration = lineChart("test-duration", "Time the reports stated for the test", durs, 0, secondsText)
	return d
}
