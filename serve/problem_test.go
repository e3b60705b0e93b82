package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
)

// TestAnswerError: every error a handler returns becomes one problem, as
// the one mapper says: its status, its detail (never the cause of a 500),
// Retry-After on a 503, and the context's end over whatever the store made
// of it.
func TestAnswerError(t *testing.T) {
	live := context.Background()
	done, cancel := context.WithCancel(context.Background())
	cancel()
	late, cancelLate := context.WithTimeout(context.Background(), 0)
	defer cancelLate()
	<-late.Done()
	secret := errors.New("dial tcp 10.0.0.7:5432: password authentication failed")
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		err    error
		status int
		detail string
	}{
		{"bad request", live, badRequest("format must be otel"), 400, "format must be otel"},
		{"not found", live, notFound("no runs for this job id"), 404, "no runs for this job id"},
		{"own status", live, problemf(http.StatusForbidden, "the token is %s", "wrong"), 403, "the token is wrong"},
		{"bad id", live, checkID("job id", "a/b", false), 400, "serve: bad identifier: job id holds a path separator"},
		{"bad id, wrapped", live, fmt.Errorf("x: %w", checkID("repo", "", true)), 400, "x: serve: bad identifier: repo is empty"},
		{"too large", live, fmt.Errorf("%w: run %q", errTooLarge, "r1"), 413, `serve: too large: run "r1"`},
		{"a request error when done", done, badRequest("offset must be an integer from 0"), 400, "offset must be an integer from 0"},
		{"no such run", live, fmt.Errorf("store: %w", store.ErrNotFound), 404, "no such run"},
		{"store failed", live, secret, 500, "the store failed"},
		{"encode failed", live, internalError("the response could not be encoded", secret), 500, "the response could not be encoded"},
		{"cancelled, whatever the driver says", done, secret, 503, "the request was cancelled"},
		{"cancelled, even a not found", done, store.ErrNotFound, 503, "the request was cancelled"},
		{"deadline", late, fmt.Errorf("query: %w", context.DeadlineExceeded), 503, "the request took too long"},
		{"busy", live, problemf(http.StatusServiceUnavailable, "retry later"), 503, "retry later"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			answerError(tc.ctx, rec, tc.err)
			resp := rec.Result()
			assertProblem(t, resp, rec.Body.Bytes(), tc.status)
			p := decode[problem](t, rec.Body.Bytes())
			assert.Equal(t, tc.detail, p.Detail)
			assert.NotContains(t, rec.Body.String(), "password", "a cause is never shown")
			if tc.status == http.StatusServiceUnavailable {
				assert.Equal(t, "1", resp.Header.Get("Retry-After"))
			} else {
				assert.Empty(t, resp.Header.Get("Retry-After"))
			}
		})
	}
}

// TestAnswerErrorAborts: an error after part of a body is out cuts the
// connection (http.ErrAbortHandler) instead of ending the body as if whole.
func TestAnswerErrorAborts(t *testing.T) {
	rec := httptest.NewRecorder()
	require.PanicsWithValue(t, http.ErrAbortHandler, func() {
		answerError(context.Background(), rec, fmt.Errorf("%w: %w", errAbort, context.Canceled))
	})
	assert.Empty(t, rec.Body.String())
}

// TestHandlerFunc: a handler that answers returns nil and its answer
// stands; one that returns an error gets the mapper's answer.
func TestHandlerFunc(t *testing.T) {
	ok := handlerFunc(func(w http.ResponseWriter, _ *http.Request) error {
		return writeJSON(w, map[string]int{"n": 1})
	})
	rec := httptest.NewRecorder()
	ok.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assert.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "{\"n\":1}\n", rec.Body.String())

	bad := handlerFunc(func(http.ResponseWriter, *http.Request) error { return notFound("no such endpoint") })
	rec = httptest.NewRecorder()
	bad.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assertProblem(t, rec.Result(), rec.Body.Bytes(), http.StatusNotFound)

	unencodable := handlerFunc(func(w http.ResponseWriter, _ *http.Request) error { return writeJSON(w, func() {}) })
	rec = httptest.NewRecorder()
	unencodable.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/", nil))
	assertProblem(t, rec.Result(), rec.Body.Bytes(), http.StatusInternalServerError)
	assert.Equal(t, "the response could not be encoded", decode[problem](t, rec.Body.Bytes()).Detail)
}
