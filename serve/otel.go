package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Bounds of one ?format=otel response. A response is a page: whole runs,
// consecutive in recorded order, from the offset parameter (0 when absent),
// as many as fit in every bound, and always at least one. A Link header
// with rel="next" names the next page while runs are left. Each page is
// byte for byte the OTLP/JSON export of its runs; a job or session within
// the bounds is one page, the export of all its runs.
const (
	// OtelPageRuns is the most runs one page holds.
	OtelPageRuns = 100
	// OtelPageCases is the most stored cases the runs of one page hold
	// (the server reads them all to render the page). A run with more is a
	// page of its own.
	OtelPageCases = 100_000
	// OtelPageCaseSpans is the most case spans one page holds (case_spans
	// asks for them: all, a span per stored case; failed, one per test.case
	// event, at most translate.DefaultMaxCaseEvents a run). A single run
	// with more is refused with 413: ask case_spans=failed or none.
	OtelPageCaseSpans = 20_000
	// DefaultMaxExports is how many ?format=otel responses are rendered at
	// once; one more is refused with 503 and Retry-After.
	DefaultMaxExports = 2
	// RetryAfterSeconds is the Retry-After of a 503.
	RetryAfterSeconds = 1
)

// errTooLarge is a run whose case spans alone exceed the page bound.
var errTooLarge = errors.New("serve: too large")

// ExportOptions are the exporter options of ?format=otel: OTLP/JSON with
// the resource an export reads from an empty environment, so that the
// bytes equal those of `testresults export --format otlp-json --job ID`
// (or --session REF) run without OTEL_* variables.
func ExportOptions(out io.Writer) exporter.Options {
	return exporter.Options{
		Format:  exporter.FormatOTLPJSON,
		Output:  out,
		Getenv:  func(string) string { return "" },
		Environ: func() []string { return nil },
	}
}

// ExportJob writes the OTLP/JSON of runs as a job export of jobID, with the
// case spans cs asks for. It stops when ctx is done.
func ExportJob(ctx context.Context, jobID string, runs []*testrun.Run, cs translate.CaseSpans, out io.Writer) error {
	o := ExportOptions(out)
	o.JobID = jobID
	o.CaseSpans = cs
	_, err := exporter.ExportRuns(ctx, runs, o)
	return err
}

// ExportSession writes the OTLP/JSON of a session's runs, each on its turn
// (turn 0 when unknown), with the case spans cs asks for. It stops when
// ctx is done.
func ExportSession(ctx context.Context, ref string, runs []store.StoredRun, cs translate.CaseSpans, out io.Writer) error {
	sess := translate.Session{ID: ref}
	index := map[int]int{}
	for _, sr := range runs {
		n := 0
		if sr.Turn != nil {
			n = *sr.Turn
		}
		i, ok := index[n]
		if !ok {
			i = len(sess.Turns)
			index[n] = i
			sess.Turns = append(sess.Turns, translate.Turn{Number: n})
		}
		sess.Turns[i].Runs = append(sess.Turns[i].Runs, sr.Run)
	}
	o := ExportOptions(out)
	o.CaseSpans = cs
	_, err := exporter.ExportSession(ctx, sess, o)
	return err
}

// otelPage is what one ?format=otel response renders.
type otelPage struct {
	runs []store.StoredRun // with their cases
	// next is the offset of the next page, -1 when none.
	next int
}

// pageBounds are the bounds of one page.
type pageBounds struct {
	runs, cases, caseSpans int
}

// caseSpansOf is how many case spans run r gives under cs, with n stored
// cases (an upper bound for CaseSpansFailed).
func caseSpansOf(r *testrun.Run, n int, cs translate.CaseSpans) int {
	switch cs {
	case translate.CaseSpansAll:
		return n
	case translate.CaseSpansFailed:
		m := len(r.Failures) + len(r.Flaky)
		if c := r.Counts; c != nil {
			m = max(m, c.Failed+c.Errors+c.Flaky)
		}
		return min(m, translate.DefaultMaxCaseEvents)
	}
	return 0
}

// loadPage reads the runs of the page from offset of runs (listed without
// their cases) with their cases, one at a time, checking ctx before each:
// the work stops when the request is cancelled or its deadline passes. A
// run's stored case count (its counts' total) decides whether it fits
// before it is read; what it holds once read decides again.
func (s *Server) loadPage(ctx context.Context, runs []store.StoredRun, offset int, cs translate.CaseSpans, b pageBounds) (otelPage, error) {
	p := otelPage{next: -1}
	cases, spans := 0, 0
	for i := offset; i < len(runs); i++ {
		if len(p.runs) == b.runs {
			p.next = i
			break
		}
		if est := estimatedCases(runs[i]); len(p.runs) > 0 &&
			(cases+est > b.cases || spans+caseSpansOf(runs[i].Run, est, cs) > b.caseSpans) {
			p.next = i
			break
		}
		if err := ctx.Err(); err != nil {
			return p, err
		}
		full, err := s.runs.Run(ctx, runs[i].Run.ID)
		if err != nil {
			return p, err
		}
		if s.onRunLoaded != nil {
			s.onRunLoaded(full.Run.ID)
		}
		n := len(full.Run.Cases)
		sp := caseSpansOf(full.Run, n, cs)
		if len(p.runs) == 0 && sp > b.caseSpans {
			return p, fmt.Errorf("%w: run %q has %d case spans, more than the %d one response holds; ask case_spans=failed or none",
				errTooLarge, clip(full.Run.ID), sp, b.caseSpans)
		}
		if len(p.runs) > 0 && (cases+n > b.cases || spans+sp > b.caseSpans) {
			p.next = i
			break
		}
		// The tags as listed (the same row), with the cases now read.
		listedTags(&full, runs[i])
		p.runs = append(p.runs, full)
		cases += n
		spans += sp
	}
	return p, nil
}

// estimatedCases is how many cases a listed run holds in the store.
func estimatedCases(sr store.StoredRun) int {
	if !sr.HasCases || sr.Run.Counts == nil {
		return 0
	}
	return sr.Run.Counts.Total
}

// otel answers a page of the runs (or the one run tq names) as OTLP/JSON
// spans, streamed as the exporter writes them. A page exported whole is
// kept under key for version, and later requests are answered from it.
func (s *Server) otel(w http.ResponseWriter, r *http.Request, sc scope, id string, runs []store.StoredRun, tq testsQuery, key, version string) error {
	select {
	case s.exports <- struct{}{}:
		defer func() { <-s.exports }()
	default:
		return problemf(http.StatusServiceUnavailable, "the server renders at most %d OTLP/JSON exports at once; retry later", cap(s.exports))
	}
	ctx := r.Context()
	b := s.bounds
	if tq.runID != "" {
		for i, sr := range runs {
			if sr.Run.ID == tq.runID {
				runs = runs[i : i+1]
				break
			}
		}
		b.runs = 1
	} else if tq.offset >= len(runs) {
		return notFound(fmt.Sprintf("offset %d is past the %d runs of this %s", tq.offset, len(runs), sc.name()))
	}
	page, err := s.loadPage(ctx, runs, tq.offset, tq.caseSpans, b)
	if err != nil {
		return err
	}
	sw := &streamWriter{w: w, keep: s.cache.fits}
	if page.next >= 0 {
		u := *r.URL
		q := u.Query()
		q.Set("offset", strconv.Itoa(page.next))
		u.RawQuery = q.Encode()
		sw.link = "<" + u.RequestURI() + `>; rel="next"`
	}
	if sc == scopeSession {
		err = ExportSession(ctx, id, page.runs, tq.caseSpans, sw)
	} else {
		rs := make([]*testrun.Run, len(page.runs))
		for i, f := range page.runs {
			rs[i] = f.Run
		}
		err = ExportJob(ctx, id, rs, tq.caseSpans, sw)
	}
	switch {
	case err == nil:
		sw.start()
		if sw.keep != nil {
			header := [][2]string{{"Content-Type", "application/json"}}
			if sw.link != "" {
				header = append(header, [2]string{"Link", sw.link})
			}
			s.cache.put(render(key, version, sw.kept.Bytes(), header...))
		}
		return nil
	case sw.started:
		return fmt.Errorf("%w: %w", errAbort, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return internalError("the runs could not be exported", err)
}

// streamWriter writes the response headers of an export on its first
// write, then the body as it comes.
type streamWriter struct {
	w       http.ResponseWriter
	link    string
	started bool
	// keep, while not nil, says whether a body of so many bytes can be
	// kept; kept is the body written so far.
	keep func(n int) bool
	kept bytes.Buffer
}

func (sw *streamWriter) start() {
	if sw.started {
		return
	}
	sw.started = true
	h := sw.w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("X-Content-Type-Options", "nosniff")
	if sw.link != "" {
		h.Set("Link", sw.link)
	}
	sw.w.WriteHeader(http.StatusOK)
}

func (sw *streamWriter) Write(b []byte) (int, error) {
	sw.start()
	if sw.keep != nil {
		if sw.keep(sw.kept.Len() + len(b)) {
			sw.kept.Write(b)
		} else {
			sw.keep = nil
			sw.kept = bytes.Buffer{}
		}
	}
	return sw.w.Write(b)
}

// listedTags gives sr, a run read from the store, the tags of the row a
// job or session lists it by: a run tagged for several carries each one's.
func listedTags(sr *store.StoredRun, row store.StoredRun) {
	sr.Turn, sr.Repo, sr.JobID, sr.SessionRef = row.Turn, row.Repo, row.JobID, row.SessionRef
}
