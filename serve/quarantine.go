package serve

import (
	"errors"
	"mime"
	"net/http"
	"strings"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// The quarantine endpoints are the server's only writes, and only admins
// reach them (Server.admin): a person lists, adds and removes the entries
// flaky quarantine add|remove|list keeps, under the same rule
// (testrun.CheckQuarantine, applied by the store at its clock). Nothing
// else the server does adds an entry. Their answers are never kept in the
// cache nor by any other cache (Cache-Control: no-store), so a listing
// read after a write shows it.

// quarantineResponse is a repository's entries as listed
// (testrun.ListedQuarantine, the elements flaky quarantine list --json
// prints).
type quarantineResponse struct {
	Repository string                     `json:"repository"`
	Entries    []testrun.ListedQuarantine `json:"entries"`
}

// quarantineStore is the store's quarantine; 501 when it keeps none.
func (s *Server) quarantineStore() (store.QuarantineStore, error) {
	q, err := store.QuarantineOf(s.runs)
	if err != nil {
		return nil, problemf(http.StatusNotImplemented, "this store keeps no quarantine")
	}
	return q, nil
}

// quarantineParams reads the parameters of a quarantine request: only the
// names in allowed, each at most once.
func quarantineParams(r *http.Request, allowed ...string) (map[string]string, error) {
	q, err := queryOf(r)
	if err != nil {
		return nil, err
	}
	if err := onlyParams(q, allowed...); err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k, vs := range q {
		out[k] = vs[0] // queryOf refused a parameter given twice
	}
	return out, nil
}

// noStore keeps every cache from keeping an admin answer.
func noStore(w http.ResponseWriter) { w.Header().Set("Cache-Control", "no-store") }

// quarantineList answers a repository's entries to admins, expired ones
// marked at the server's clock: GET /api/repos/quarantine?repo=R.
func (s *Server) quarantineList(w http.ResponseWriter, r *http.Request) error {
	if err := s.admin(r); err != nil {
		return err
	}
	p, err := quarantineParams(r, "repo")
	if err != nil {
		return err
	}
	repo := p["repo"]
	if err := quarantineKeyError(testrun.CheckQuarantineRepository(repo)); err != nil {
		return err
	}
	q, err := s.quarantineStore()
	if err != nil {
		return err
	}
	entries, err := q.QuarantineList(r.Context(), repo)
	if err != nil {
		return err
	}
	noStore(w)
	return writeJSON(w, quarantineResponse{Repository: repo, Entries: testrun.QuarantineListing(entries, s.opts.Now())})
}

// quarantineAdd adds or renews the entry a JSON body names
// (testrun.ReadQuarantineRequest): 201 with the entry as stored, 200 when
// it replaced one of the same repository, environment and test.
func (s *Server) quarantineAdd(w http.ResponseWriter, r *http.Request) error {
	if err := s.admin(r); err != nil {
		return err
	}
	if _, err := quarantineParams(r); err != nil {
		return err
	}
	if err := jsonContentType(w, r); err != nil {
		return err
	}
	tooLarge := problemf(http.StatusRequestEntityTooLarge, "the body is larger than %d KiB", testrun.MaxQuarantineRequest>>10)
	if r.ContentLength > testrun.MaxQuarantineRequest {
		return tooLarge
	}
	body := http.MaxBytesReader(w, r.Body, testrun.MaxQuarantineRequest)
	e, err := testrun.ReadQuarantineRequest(body)
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return tooLarge
	case errors.Is(err, testrun.ErrQuarantineForm):
		return badRequest(quarantineDetail(err))
	case err != nil:
		return badRequest("the body could not be read")
	}
	q, err := s.quarantineStore()
	if err != nil {
		return err
	}
	stored, replaced, err := q.AddQuarantine(r.Context(), e)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	if replaced {
		status = http.StatusOK
	}
	noStore(w)
	return writeJSONStatus(w, status, testrun.QuarantineListing([]testrun.QuarantineEntry{stored}, s.opts.Now())[0])
}

// quarantineRemove removes the entry of a repository, environment and
// test: DELETE /api/repos/quarantine?repo=R&test=ID[&env=E] (no env, or an
// empty one: the entry of every environment). 204 when it was there, 404
// when not.
func (s *Server) quarantineRemove(w http.ResponseWriter, r *http.Request) error {
	if err := s.admin(r); err != nil {
		return err
	}
	p, err := quarantineParams(r, "repo", "test", "env")
	if err != nil {
		return err
	}
	repo, env, test := p["repo"], p["env"], p["test"]
	if err := quarantineKeyError(testrun.CheckQuarantineKey(repo, env, test)); err != nil {
		return err
	}
	q, err := s.quarantineStore()
	if err != nil {
		return err
	}
	removed, err := q.RemoveQuarantine(r.Context(), repo, env, test)
	if err != nil {
		return err
	}
	if !removed {
		return notFound("no quarantine entry for this test in this repository and environment")
	}
	noStore(w)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// quarantineMethods answers a method the quarantine endpoint does not
// take: 405.
func quarantineMethods(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Allow", "GET, HEAD, POST, DELETE")
	return problemf(http.StatusMethodNotAllowed, "the quarantine takes GET, POST and DELETE")
}

// jsonContentType refuses a body that is not application/json (UTF-8, the
// only charset JSON has): 415, with the one type taken in Accept-Post.
func jsonContentType(w http.ResponseWriter, r *http.Request) error {
	mt, params, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	charset, hasCharset := params["charset"]
	if err != nil || mt != "application/json" || (hasCharset && !strings.EqualFold(charset, "utf-8")) {
		w.Header().Set("Accept-Post", "application/json")
		return problemf(http.StatusUnsupportedMediaType, "the body must be application/json")
	}
	return nil
}

// quarantineKeyError is a query's key refused by testrun.CheckQuarantineKey
// as a bad request (nil when it was not refused).
func quarantineKeyError(err error) error {
	if err == nil {
		return nil
	}
	return badRequest(quarantineDetail(err))
}

// quarantineDetail is what a client is told of a quarantine refusal: the
// rule's words, without the package's.
func quarantineDetail(err error) string {
	msg := err.Error()
	msg = strings.TrimPrefix(msg, testrun.ErrQuarantine.Error()+": ")
	return strings.TrimPrefix(msg, testrun.ErrQuarantineForm.Error()+": ")
}
