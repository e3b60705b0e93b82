package serve

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// Handlers return the error they met instead of answering it, and one
// mapper, answerError, turns every error into the problem the client gets:
// the status, the detail, and Retry-After for a 503. A handler that has
// answered returns nil.

// handlerFunc is a handler that returns its error to answerError.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

func (h handlerFunc) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := h(w, r); err != nil {
		answerError(r.Context(), w, err)
	}
}

// problemError is an error that says its answer: a status and the detail
// shown to the client. Its cause, if any, is never shown.
type problemError struct {
	status int
	detail string
	cause  error
}

func (e *problemError) Error() string {
	if e.cause != nil {
		return fmt.Sprintf("serve: %d %s: %v", e.status, e.detail, e.cause)
	}
	return fmt.Sprintf("serve: %d %s", e.status, e.detail)
}

func (e *problemError) Unwrap() error { return e.cause }

// problemf is the error answered with status and the detail format
// makes.
func problemf(status int, format string, args ...any) error {
	return &problemError{status: status, detail: fmt.Sprintf(format, args...)}
}

// badRequest is the error answered 400 with detail.
func badRequest(detail string) error {
	return &problemError{status: http.StatusBadRequest, detail: detail}
}

// queryOf returns the request's query. It refuses, 400, a query that does
// not parse (a stray ';', a bad escape), which url.URL.Query would answer
// as if the pair were not there, and a parameter given more than once,
// which it would answer with the first value.
func queryOf(r *http.Request) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, badRequest("malformed query: " + clip(err.Error()))
	}
	for k, v := range q {
		if len(v) > 1 {
			return nil, badRequest(fmt.Sprintf("parameter %s given %d times", strconv.Quote(clip(k)), len(v)))
		}
	}
	return q, nil
}

// onlyParams refuses, 400, a query with a parameter not in allowed.
func onlyParams(q url.Values, allowed ...string) error {
	for k := range q {
		if !slices.Contains(allowed, k) {
			return badRequest("unknown parameter " + strconv.Quote(clip(k)))
		}
	}
	return nil
}

// notFound is the error answered 404 with detail.
func notFound(detail string) error {
	return &problemError{status: http.StatusNotFound, detail: detail}
}

// internalError is the error answered 500 with detail, for a cause the
// client is not told.
func internalError(detail string, cause error) error {
	return &problemError{status: http.StatusInternalServerError, detail: detail, cause: cause}
}

// errAbort is a response whose body is partly out: the connection is cut,
// so that the client cannot take what it got for the whole.
var errAbort = errors.New("serve: response cut short")

// answerError answers err, met while answering a request of context ctx:
//
//   - a problemError as it says, a bad identifier (checkID) 400, a run
//     too large for one page 413 and a quarantine entry the rule refuses
//     (testrun.ErrQuarantine) 422, with the error's text;
//   - otherwise, once ctx is done, the error is that, whatever the store's
//     driver made of it: 503 with Retry-After;
//   - store.ErrNotFound 404; anything else is the store's failure, 500;
//   - errAbort panics with http.ErrAbortHandler, which cuts the
//     connection.
func answerError(ctx context.Context, w http.ResponseWriter, err error) {
	if errors.Is(err, errAbort) {
		panic(http.ErrAbortHandler)
	}
	var p *problemError
	switch {
	case errors.As(err, &p):
	case errors.Is(err, errBadID):
		p = &problemError{status: http.StatusBadRequest, detail: err.Error()}
	case errors.Is(err, errTooLarge):
		p = &problemError{status: http.StatusRequestEntityTooLarge, detail: err.Error()}
	case errors.Is(err, testrun.ErrQuarantine):
		p = &problemError{status: http.StatusUnprocessableEntity, detail: quarantineDetail(err)}
	default:
		p = storeProblem(ctx, err)
	}
	if p.status == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	}
	writeProblem(w, p.status, p.detail)
}

// storeProblem is the answer to err, an error of the store met while
// answering a request of context ctx.
func storeProblem(ctx context.Context, err error) *problemError {
	if cerr := ctx.Err(); cerr != nil {
		err = cerr
	}
	switch {
	case errors.Is(err, store.ErrNotFound):
		return &problemError{status: http.StatusNotFound, detail: "no such run"}
	case errors.Is(err, context.DeadlineExceeded):
		return &problemError{status: http.StatusServiceUnavailable, detail: "the request took too long"}
	case errors.Is(err, context.Canceled):
		return &problemError{status: http.StatusServiceUnavailable, detail: "the request was cancelled"}
	}
	return &problemError{status: http.StatusInternalServerError, detail: "the store failed", cause: err}
}

// problem is an RFC 9457 problem details object.
type problem struct {
	Type   string `json:"type"`
	Title  string `json:"title"`
	Status int    `json:"status"`
	Detail string `json:"detail,omitempty"`
}

// writeProblem answers with application/problem+json.
func writeProblem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="testresults"`)
	}
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(problem{Type: "about:blank", Title: http.StatusText(status), Status: status, Detail: detail})
}

// writeJSON answers with v as JSON, not kept.
func writeJSON(w http.ResponseWriter, v any) error {
	return writeJSONStatus(w, http.StatusOK, v)
}

// writeJSONStatus answers status with v as JSON, not kept.
func writeJSONStatus(w http.ResponseWriter, status int, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return internalError("the response could not be encoded", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
	return nil
}
