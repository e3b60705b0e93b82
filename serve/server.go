package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Defaults of the server's bounds.
const (
	// CasesPageSize is how many cases one response lists; a next link
	// pages the rest.
	CasesPageSize = 5000
	// MaxFailingIDs is how many failing ids the summary lists.
	MaxFailingIDs = 20
	// DefaultRequestTimeout bounds the handling of one request.
	DefaultRequestTimeout = 20 * time.Second
)

// Options configure New.
type Options struct {
	// AdminToken is the bearer token of the admin endpoints; empty: every
	// admin request is refused with 403 once it carries a token (401
	// without).
	AdminToken string
	// AccessLog receives one line per request (nil: none).
	AccessLog io.Writer
	// RequestTimeout bounds one request (0: DefaultRequestTimeout).
	RequestTimeout time.Duration
	// Now stamps the access log and judges which quarantine entries a
	// listing marks expired (nil: time.Now).
	Now func() time.Time
	// TracerProvider and MeterProvider receive the server's own spans and
	// metrics, through otelhttp (nil: the global providers).
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	// MaxExports bounds the ?format=otel responses rendered at once; one
	// more is refused with 503 and Retry-After (0: DefaultMaxExports).
	MaxExports int
	// OtelPageRuns, OtelPageCases and OtelPageCaseSpans bound one
	// ?format=otel page (0: the constants of the same names).
	OtelPageRuns, OtelPageCases, OtelPageCaseSpans int
	// CacheBytes bounds the rendered responses the server keeps (0:
	// DefaultCacheBytes; less than 0: none is kept).
	CacheBytes int
}

// Server answers the API and pages from a store.
type Server struct {
	runs     store.RunStore
	flaky    flakyLister
	opts     Options
	tokenSum [sha256.Size]byte
	// exports holds a token per ?format=otel response being rendered.
	exports chan struct{}
	bounds  pageBounds
	// cache keeps rendered responses (nil: none).
	cache *bodyCache
	// onRunLoaded, when set, is called with each run ?format=otel reads
	// with its cases (tests count them).
	onRunLoaded func(id string)
}

type flakyLister interface {
	List(ctx context.Context, f store.Filter) ([]testrun.FlakyEntry, error)
}

// New returns a server over s.
func New(s store.Store, o Options) *Server {
	if o.RequestTimeout <= 0 {
		o.RequestTimeout = DefaultRequestTimeout
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	orDefault := func(n, def int) int {
		if n <= 0 {
			return def
		}
		return n
	}
	observeWatch(s, o.MeterProvider)
	var cache *bodyCache
	if o.CacheBytes >= 0 {
		cache = newBodyCache(orDefault(o.CacheBytes, DefaultCacheBytes))
	}
	return &Server{
		runs: s, flaky: s, opts: o, tokenSum: sha256.Sum256([]byte(o.AdminToken)),
		cache:   cache,
		exports: make(chan struct{}, orDefault(o.MaxExports, DefaultMaxExports)),
		bounds: pageBounds{
			runs:      orDefault(o.OtelPageRuns, OtelPageRuns),
			cases:     orDefault(o.OtelPageCases, OtelPageCases),
			caseSpans: orDefault(o.OtelPageCaseSpans, OtelPageCaseSpans),
		},
	}
}

// Handler returns the server's routes, with the request timeout and the
// access log around them.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /api/jobs/{id}/tests", handlerFunc(func(w http.ResponseWriter, r *http.Request) error { return s.tests(w, r, scopeJob) }))
	mux.Handle("GET /api/sessions/{id}/tests", handlerFunc(func(w http.ResponseWriter, r *http.Request) error { return s.tests(w, r, scopeSession) }))
	mux.Handle("GET /api/repos/tests/flaky", handlerFunc(s.flakyList))
	mux.Handle("GET /api/repos/tests/history", handlerFunc(s.testHistory))
	mux.Handle("GET /api/repos/tests/trends", handlerFunc(s.trends))
	mux.Handle("GET /api/repos/quarantine", handlerFunc(s.quarantineList))
	mux.Handle("POST /api/repos/quarantine", handlerFunc(s.quarantineAdd))
	mux.Handle("DELETE /api/repos/quarantine", handlerFunc(s.quarantineRemove))
	mux.Handle("/api/repos/quarantine", handlerFunc(quarantineMethods))
	mux.Handle("GET /repos/tests", handlerFunc(s.repoTestsPage))
	mux.Handle("GET /repos/tests/history", handlerFunc(s.testHistoryPage))
	mux.Handle("GET /api/jobs", handlerFunc(s.jobList))
	mux.Handle("GET /jobs/{id}", handlerFunc(s.jobPage))
	mux.HandleFunc("GET /jobs", jobsRedirect)
	mux.Handle("GET /{$}", handlerFunc(s.frontPage))
	mux.Handle("/", handlerFunc(noRoute))
	h := instrument(mux, s.opts.TracerProvider, s.opts.MeterProvider)
	h = s.withTimeout(h)
	if s.opts.AccessLog != nil {
		h = accessLog(h, s.opts.AccessLog, s.opts.Now)
	}
	return h
}

// noRoute answers what no route takes: 405 to a method other than GET and
// HEAD, 404 to any other path.
func noRoute(w http.ResponseWriter, r *http.Request) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		return problemf(http.StatusMethodNotAllowed, "this endpoint is read-only")
	}
	return notFound("no such endpoint")
}

// withTimeout bounds each request by the request timeout, and has the
// store read every version from its database for a request that asks for
// a fresh answer (wantsFresh).
func (s *Server) withTimeout(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		if wantsFresh(r.Header) {
			ctx = store.Fresh(ctx)
		}
		h.ServeHTTP(w, r.WithContext(ctx))
	})
}

// wantsFresh reports whether a request's headers ask for an answer
// revalidated with the origin: Cache-Control no-cache or max-age=0, or,
// without Cache-Control, Pragma: no-cache (RFC 9111).
func wantsFresh(h http.Header) bool {
	cc := h.Values("Cache-Control")
	if len(cc) == 0 {
		for _, p := range h.Values("Pragma") {
			if strings.EqualFold(strings.TrimSpace(p), "no-cache") {
				return true
			}
		}
		return false
	}
	for _, v := range cc {
		for d := range strings.SplitSeq(v, ",") {
			d = strings.ToLower(strings.TrimSpace(d))
			if d == "no-cache" || d == "max-age=0" || strings.HasPrefix(d, "no-cache=") {
				return true
			}
		}
	}
	return false
}

type scope int

const (
	scopeJob scope = iota
	scopeSession
)

func (sc scope) name() string {
	if sc == scopeSession {
		return "session ref"
	}
	return "job id"
}

// version returns the store's fingerprint of the runs of the job or
// session id.
func (s *Server) version(ctx context.Context, sc scope, id string) (string, error) {
	if sc == scopeSession {
		return s.runs.SessionVersion(ctx, id)
	}
	return s.runs.JobVersion(ctx, id)
}

// cacheKey is what a response rendered for r is kept under: its path as
// sent (the links it holds repeat it) and its query.
func cacheKey(r *http.Request) string {
	return r.URL.EscapedPath() + "?" + r.URL.RawQuery
}

// loadRuns returns the runs of the job or session id.
func (s *Server) loadRuns(ctx context.Context, sc scope, id string) ([]store.StoredRun, error) {
	if sc == scopeSession {
		return s.runs.SessionRuns(ctx, id)
	}
	return s.runs.JobRuns(ctx, id)
}

// testsQuery is what a tests request asks: ?run, ?cases, ?format,
// ?offset, ?case_spans.
type testsQuery struct {
	runID     string
	cases     bool
	otel      bool
	offset    int
	caseSpans translate.CaseSpans
}

// parseTestsQuery reads and checks the parameters of a tests request.
func parseTestsQuery(q url.Values) (testsQuery, error) {
	var tq testsQuery
	if err := onlyParams(q, "run", "cases", "format", "offset", "case_spans"); err != nil {
		return tq, err
	}
	format := q.Get("format")
	tq.runID, tq.otel = q.Get("run"), format == "otel"
	var err error
	if tq.cases, err = boolParam(q, "cases"); err != nil {
		return tq, badRequest(err.Error())
	}
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<30 {
			return tq, badRequest("offset must be an integer from 0")
		}
		tq.offset = n
	}
	switch {
	case format != "" && !tq.otel:
		return tq, badRequest("format must be otel")
	case q.Has("run"):
		if err := checkID("run id", tq.runID, false); err != nil {
			return tq, err
		}
	}
	switch {
	case tq.cases && tq.runID == "":
		return tq, badRequest("cases=true needs run=<id>")
	case q.Has("offset") && !tq.cases && !tq.otel:
		return tq, badRequest("offset needs cases=true or format=otel")
	case q.Has("offset") && tq.otel && tq.runID != "":
		return tq, badRequest("offset with format=otel pages the runs: it takes no run=<id>")
	case q.Has("case_spans") && !tq.otel:
		return tq, badRequest("case_spans needs format=otel")
	}
	tq.caseSpans = translate.CaseSpansNone
	if q.Has("case_spans") {
		if tq.caseSpans, err = translate.ParseCaseSpans(q.Get("case_spans")); err != nil {
			return tq, badRequest("case_spans must be none, failed or all")
		}
	}
	return tq, nil
}

// cachedScope answers r from the cache when a response for the current
// version of the job or session id is kept, and returns the key and
// version to keep a new one under.
func (s *Server) cachedScope(w http.ResponseWriter, r *http.Request, sc scope, id string) (key, version string, done bool, err error) {
	version, err = s.version(r.Context(), sc, id)
	if err != nil {
		return "", "", false, err
	}
	key, done = s.cacheHit(w, r, version)
	return key, version, done, nil
}

// tests answers a job's or a session's summary, one of its runs, or its
// runs as OTLP/JSON.
func (s *Server) tests(w http.ResponseWriter, r *http.Request, sc scope) error {
	id := r.PathValue("id")
	if err := checkID(sc.name(), id, false); err != nil {
		return err
	}
	q, err := queryOf(r)
	if err != nil {
		return err
	}
	tq, err := parseTestsQuery(q)
	if err != nil {
		return err
	}
	ctx := r.Context()
	key, version, done, err := s.cachedScope(w, r, sc, id)
	if done || err != nil {
		return err
	}
	runs, err := s.loadRuns(ctx, sc, id)
	if err != nil {
		return err
	}
	if len(runs) == 0 {
		return notFound("no runs for this " + sc.name())
	}
	if tq.runID != "" && !hasRun(runs, tq.runID) {
		return notFound("no such run in this " + sc.name())
	}
	switch {
	case tq.otel:
		return s.otel(w, r, sc, id, runs, tq, key, version)
	case tq.runID != "":
		return s.oneRun(w, r, runs, tq.runID, tq.cases, tq.offset, key, version)
	}
	sum, err := s.summarize(ctx, runs)
	if err != nil {
		return err
	}
	out := testsResponse{Summary: sum.Summary, Runs: sum.Runs, Latest: sum.Latest}
	if sc == scopeSession {
		out.Session = id
	} else {
		out.Job = id
	}
	return s.answerJSON(w, r, key, version, out)
}

// answerJSON renders v as JSON, keeps it under key for version and
// answers r with it.
func (s *Server) answerJSON(w http.ResponseWriter, r *http.Request, key, version string, v any, header ...[2]string) error {
	data, err := json.Marshal(v)
	if err != nil {
		return internalError("the response could not be encoded", err)
	}
	b := render(key, version, append(data, '\n'), append([][2]string{{"Content-Type", "application/json"}}, header...)...)
	s.cache.put(b)
	b.serve(w, r)
	return nil
}

func hasRun(runs []store.StoredRun, id string) bool {
	for _, r := range runs {
		if r.Run.ID == id {
			return true
		}
	}
	return false
}

func boolParam(q url.Values, name string) (bool, error) {
	if !q.Has(name) {
		return false, nil
	}
	switch q.Get(name) {
	case "true", "1":
		return true, nil
	case "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("%s must be true or false", name)
}

// clip shortens a value quoted in a problem's detail.
func clip(s string) string {
	if len(s) > 64 {
		return s[:64] + "…"
	}
	return s
}

func (s *Server) oneRun(w http.ResponseWriter, r *http.Request, runs []store.StoredRun, runID string, cases bool, offset int, key, version string) error {
	limit := 0
	if cases {
		limit = CasesPageSize
	}
	// Only the page's cases are read out of the store.
	sr, next, err := s.runs.RunPage(r.Context(), runID, offset, limit)
	if err != nil {
		return err
	}
	// The tags as the job or session asked about lists the run, as the
	// runs list and ?format=otel show them.
	for _, listed := range runs {
		if listed.Run.ID == runID {
			listedTags(&sr, listed)
			sr.RecordedAt = listed.RecordedAt
			break
		}
	}
	out := oneRunResponse{Run: runSummaryOf(sr), Full: runWithoutCases(sr.Run)}
	var header [][2]string
	if cases {
		out.Cases = pageCases(sr)
		if next >= 0 {
			u := *r.URL
			q := u.Query()
			q.Set("offset", strconv.Itoa(next))
			u.RawQuery = q.Encode()
			out.Next = u.RequestURI()
			header = append(header, [2]string{"Link", "<" + out.Next + `>; rel="next"`})
		}
		out.CasesKept = &sr.HasCases
	}
	return s.answerJSON(w, r, key, version, out, header...)
}

// admin refuses r unless it carries the admin bearer token: 401 without a
// bearer token, 403 with another token, and 403 to every token when the
// server has none. The tokens are compared as SHA-256 sums, in constant
// time.
func (s *Server) admin(r *http.Request) error {
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if auth == "" || !ok || token == "" {
		return problemf(http.StatusUnauthorized, "a bearer token is required")
	}
	sum := sha256.Sum256([]byte(token))
	if s.opts.AdminToken == "" || subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 {
		return problemf(http.StatusForbidden, "the token is not an admin token")
	}
	return nil
}

// flakyList answers a repository's flaky list to admins.
func (s *Server) flakyList(w http.ResponseWriter, r *http.Request) error {
	if err := s.admin(r); err != nil {
		return err
	}
	q, err := queryOf(r)
	if err != nil {
		return err
	}
	if err := onlyParams(q, "repo"); err != nil {
		return err
	}
	repo := q.Get("repo")
	if err := checkID("repo", repo, true); err != nil {
		return err
	}
	list, err := s.flaky.List(r.Context(), store.Filter{Repository: repo})
	if err != nil {
		return err
	}
	if len(list) > MaxFlakyEntries {
		list = list[:MaxFlakyEntries]
	}
	return writeJSON(w, flakyResponse{Repository: repo, Entries: list})
}

// MaxFlakyEntries bounds the flaky list one response holds.
const MaxFlakyEntries = 10000
