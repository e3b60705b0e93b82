package serve

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
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
	// Now stamps the access log (nil: time.Now).
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
	mux.HandleFunc("GET /api/jobs/{id}/tests", func(w http.ResponseWriter, r *http.Request) { s.tests(w, r, scopeJob) })
	mux.HandleFunc("GET /api/sessions/{id}/tests", func(w http.ResponseWriter, r *http.Request) { s.tests(w, r, scopeSession) })
	mux.HandleFunc("GET /api/repos/tests/flaky", s.flakyList)
	mux.HandleFunc("GET /api/jobs", s.jobList)
	mux.HandleFunc("GET /jobs/{id}", s.jobPage)
	mux.HandleFunc("GET /jobs", jobsRedirect)
	mux.HandleFunc("GET /{$}", s.frontPage)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			writeProblem(w, http.StatusMethodNotAllowed, "the API is read-only")
			return
		}
		writeProblem(w, http.StatusNotFound, "no such endpoint")
	})
	var h http.Handler = instrument(mux, s.opts.TracerProvider, s.opts.MeterProvider)
	h = s.withTimeout(h)
	if s.opts.AccessLog != nil {
		h = accessLog(h, s.opts.AccessLog, s.opts.Now)
	}
	return h
}

func (s *Server) withTimeout(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
		defer cancel()
		h.ServeHTTP(w, r.WithContext(ctx))
	})
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

// storeError maps an error of the store, met while answering a request of
// context ctx, to a problem. Once ctx is done the error is that, whatever
// the driver made of it: 503 with Retry-After.
func storeError(ctx context.Context, w http.ResponseWriter, err error) {
	if cerr := ctx.Err(); cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		writeProblem(w, http.StatusNotFound, "no such run")
	case errors.Is(err, context.DeadlineExceeded):
		unavailable(w, "the request took too long")
	case errors.Is(err, context.Canceled):
		unavailable(w, "the request was cancelled")
	default:
		writeProblem(w, http.StatusInternalServerError, "the store failed")
	}
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

func (s *Server) tests(w http.ResponseWriter, r *http.Request, sc scope) {
	id := r.PathValue("id")
	if err := checkID(sc.name(), id, false); err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error())
		return
	}
	q := r.URL.Query()
	for k := range q {
		switch k {
		case "run", "cases", "format", "offset", "case_spans":
		default:
			writeProblem(w, http.StatusBadRequest, "unknown parameter "+strconv.Quote(clip(k)))
			return
		}
	}
	runID, format := q.Get("run"), q.Get("format")
	cases, err := boolParam(q, "cases")
	if err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error())
		return
	}
	offset := 0
	if v := q.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 1<<30 {
			writeProblem(w, http.StatusBadRequest, "offset must be an integer from 0")
			return
		}
		offset = n
	}
	switch {
	case format != "" && format != "otel":
		writeProblem(w, http.StatusBadRequest, "format must be otel")
		return
	case q.Has("run") && checkID("run id", runID, false) != nil:
		writeProblem(w, http.StatusBadRequest, checkID("run id", runID, false).Error())
		return
	case cases && runID == "":
		writeProblem(w, http.StatusBadRequest, "cases=true needs run=<id>")
		return
	case q.Has("offset") && !cases && format != "otel":
		writeProblem(w, http.StatusBadRequest, "offset needs cases=true or format=otel")
		return
	case q.Has("offset") && format == "otel" && runID != "":
		writeProblem(w, http.StatusBadRequest, "offset with format=otel pages the runs: it takes no run=<id>")
		return
	case q.Has("case_spans") && format != "otel":
		writeProblem(w, http.StatusBadRequest, "case_spans needs format=otel")
		return
	}
	caseSpans := translate.CaseSpansNone
	if q.Has("case_spans") {
		if caseSpans, err = translate.ParseCaseSpans(q.Get("case_spans")); err != nil {
			writeProblem(w, http.StatusBadRequest, "case_spans must be none, failed or all")
			return
		}
	}
	ctx := r.Context()
	version, err := s.version(ctx, sc, id)
	if err != nil {
		storeError(ctx, w, err)
		return
	}
	key := cacheKey(r)
	if b := s.cache.get(key, version); b != nil {
		b.serve(w, r)
		return
	}
	runs, err := s.loadRuns(ctx, sc, id)
	if err != nil {
		storeError(ctx, w, err)
		return
	}
	if len(runs) == 0 {
		writeProblem(w, http.StatusNotFound, "no runs for this "+sc.name())
		return
	}
	if runID != "" {
		if !hasRun(runs, runID) {
			writeProblem(w, http.StatusNotFound, "no such run in this "+sc.name())
			return
		}
	}
	if format == "otel" {
		s.otel(w, r, sc, id, runs, runID, offset, caseSpans, key, version)
		return
	}
	if runID != "" {
		s.oneRun(w, r, runID, cases, offset, key, version)
		return
	}
	sum, err := s.summarize(ctx, runs)
	if err != nil {
		storeError(ctx, w, err)
		return
	}
	out := testsResponse{Summary: sum.Summary, Runs: sum.Runs, Latest: sum.Latest}
	if sc == scopeSession {
		out.Session = id
	} else {
		out.Job = id
	}
	s.answerJSON(w, r, key, version, out)
}

// answerJSON renders v as JSON, keeps it under key for version and
// answers r with it.
func (s *Server) answerJSON(w http.ResponseWriter, r *http.Request, key, version string, v any, header ...[2]string) {
	data, err := json.Marshal(v)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "the response could not be encoded")
		return
	}
	b := render(key, version, append(data, '\n'), append([][2]string{{"Content-Type", "application/json"}}, header...)...)
	s.cache.put(b)
	b.serve(w, r)
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

func (s *Server) oneRun(w http.ResponseWriter, r *http.Request, runID string, cases bool, offset int, key, version string) {
	limit := 0
	if cases {
		limit = CasesPageSize
	}
	// Only the page's cases are read out of the store.
	sr, next, err := s.runs.RunPage(r.Context(), runID, offset, limit)
	if err != nil {
		storeError(r.Context(), w, err)
		return
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
	s.answerJSON(w, r, key, version, out, header...)
}

// flakyList answers a repository's flaky list to admins.
func (s *Server) flakyList(w http.ResponseWriter, r *http.Request) {
	auth := r.Header.Get("Authorization")
	token, ok := strings.CutPrefix(auth, "Bearer ")
	if auth == "" || !ok || token == "" {
		writeProblem(w, http.StatusUnauthorized, "a bearer token is required")
		return
	}
	sum := sha256.Sum256([]byte(token))
	if s.opts.AdminToken == "" || subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 {
		writeProblem(w, http.StatusForbidden, "the token is not an admin token")
		return
	}
	q := r.URL.Query()
	for k := range q {
		if k != "repo" {
			writeProblem(w, http.StatusBadRequest, "unknown parameter "+strconv.Quote(clip(k)))
			return
		}
	}
	repo := q.Get("repo")
	if err := checkID("repo", repo, true); err != nil {
		writeProblem(w, http.StatusBadRequest, err.Error())
		return
	}
	list, err := s.flaky.List(r.Context(), store.Filter{Repository: repo})
	if err != nil {
		storeError(r.Context(), w, err)
		return
	}
	if len(list) > MaxFlakyEntries {
		list = list[:MaxFlakyEntries]
	}
	writeJSON(w, flakyResponse{Repository: repo, Entries: list})
}

// MaxFlakyEntries bounds the flaky list one response holds.
const MaxFlakyEntries = 10000
