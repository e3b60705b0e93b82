package testresultsreceiver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.uber.org/zap"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// UploadPath is where runs are uploaded.
const UploadPath = "/v1/runs"

// uploadServer is the running upload server.
type uploadServer struct {
	srv  *http.Server
	done chan struct{}
}

func startUploadServer(ctx context.Context, h *HTTPConfig, r *testresultsReceiver, host component.Host) (*uploadServer, error) {
	mux := http.NewServeMux()
	u := &uploads{r: r, cfg: h, sender: h.merge(r.cfg.Sender)}
	mux.HandleFunc(UploadPath, u.serve)
	var handler http.Handler = mux
	if h.Secret != "" {
		handler = &secretAuth{next: mux, secret: []byte(string(h.Secret)), subject: h.SecretSubject}
	}
	ln, err := h.ToListener(ctx)
	if err != nil {
		return nil, err
	}
	srv, err := h.ToServer(ctx, host.GetExtensions(), r.set.TelemetrySettings, handler,
		confighttpErrorHandler())
	if err != nil {
		_ = ln.Close()
		return nil, err
	}
	s := &uploadServer{srv: srv, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			r.set.Logger.Error("the upload server stopped", zap.Error(err))
		}
	}()
	r.set.Logger.Info("accepting uploads", zap.String("endpoint", ln.Addr().String()), zap.String("path", UploadPath))
	return s, nil
}

func (s *uploadServer) shutdown(ctx context.Context) error {
	err := s.srv.Shutdown(ctx)
	<-s.done
	return err
}

// secretAuth admits a request with "Authorization: Bearer SECRET", compared
// in constant time, and authenticates it as subject: client.Info.Auth then
// gives subject for every attribute name, so that the processor's
// auth_subjects match it whatever its auth_attribute. Anything else gets
// 401.
type secretAuth struct {
	next    http.Handler
	secret  []byte
	subject string
}

func (a *secretAuth) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	token, ok := strings.CutPrefix(req.Header.Get("Authorization"), "Bearer ")
	if !ok || subtle.ConstantTimeCompare([]byte(strings.TrimSpace(token)), a.secret) != 1 {
		w.Header().Set("WWW-Authenticate", `Bearer realm="testresults"`)
		problem(w, http.StatusUnauthorized, "no valid credentials: send Authorization: Bearer with the shared secret")
		return
	}
	info := client.FromContext(req.Context())
	info.Auth = subjectAuth(a.subject)
	a.next.ServeHTTP(w, req.WithContext(client.NewContext(req.Context(), info)))
}

// subjectAuth is the client.AuthData of an uploader with the secret.
type subjectAuth string

func (s subjectAuth) GetAttribute(string) any { return string(s) }

func (s subjectAuth) GetAttributeNames() []string { return []string{"subject"} }

// confighttpErrorHandler answers confighttp's own refusals (an
// authenticator's 401, a body over the limit) as problem details.
func confighttpErrorHandler() confighttp.ToServerOption {
	return confighttp.WithErrorHandler(func(w http.ResponseWriter, _ *http.Request, msg string, status int) {
		problem(w, status, msg)
	})
}

// problem writes a problem details response (RFC 9457).
func problem(w http.ResponseWriter, status int, detail string) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"type":   "about:blank",
		"title":  http.StatusText(status),
		"status": status,
		"detail": detail,
	})
}

// uploads handles POST /v1/runs.
type uploads struct {
	r      *testresultsReceiver
	cfg    *HTTPConfig
	sender Sender
}

// uploadError is a refused upload: its status and reason.
type uploadError struct {
	status int
	reason string
}

func (e *uploadError) Error() string { return e.reason }

func badRequest(format string, args ...any) *uploadError {
	return &uploadError{status: http.StatusBadRequest, reason: fmt.Sprintf(format, args...)}
}

func (u *uploads) serve(w http.ResponseWriter, req *http.Request) {
	if req.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		problem(w, http.StatusMethodNotAllowed, "use POST")
		return
	}
	if req.ContentLength > u.cfg.MaxRequestBodySize {
		problem(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the body is %d bytes, more than the limit of %d", req.ContentLength, u.cfg.MaxRequestBodySize))
		return
	}
	run, err := u.read(req)
	if err != nil {
		var ue *uploadError
		if !errors.As(err, &ue) {
			ue = badRequest("%v", err)
		}
		if ue.status == http.StatusBadRequest {
			u.r.mu.Lock()
			u.r.refused(run, errors.New(ue.reason), sourceHTTP, req.RemoteAddr)
			u.r.mu.Unlock()
		}
		problem(w, ue.status, ue.reason)
		return
	}
	snd := u.sender
	if job := req.URL.Query().Get("job"); job != "" {
		snd.Job = job
	}
	snd.apply(run)
	u.r.mu.Lock()
	err = u.r.deliver(req.Context(), run, snd, "", sourceHTTP, nil)
	u.r.mu.Unlock()
	if err != nil {
		problem(w, http.StatusServiceUnavailable, "the pipeline did not accept the run; send it again: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{
		"id":       run.ID,
		"complete": run.Complete,
		"reports":  len(run.Reports),
	})
}

// read reads the upload: report files as multipart/form-data, or a run's
// JSON form (application/json). Nothing is written to disk: each part is
// parsed as it streams in.
func (u *uploads) read(req *http.Request) (*testrun.Run, error) {
	mt, _, err := mime.ParseMediaType(req.Header.Get("Content-Type"))
	if err != nil {
		return nil, &uploadError{status: http.StatusUnsupportedMediaType, reason: "Content-Type: want multipart/form-data (report files) or application/json (a run)"}
	}
	switch mt {
	case "multipart/form-data":
		return u.readReports(req)
	case "application/json":
		tr, err := testrun.ReadTestResults(req.Body)
		if err != nil {
			if tooLarge(err) {
				return nil, u.tooLarge()
			}
			return nil, badRequest("the run is refused: %v", err)
		}
		if tr.Run == nil || tr.Run.ID == "" {
			return nil, badRequest("the run is refused: %v", errNoID)
		}
		return tr.Run, nil
	}
	return nil, &uploadError{status: http.StatusUnsupportedMediaType, reason: fmt.Sprintf("Content-Type %s: want multipart/form-data (report files) or application/json (a run)", mt)}
}

func tooLarge(err error) bool {
	var mbe *http.MaxBytesError
	return errors.As(err, &mbe)
}

func (u *uploads) tooLarge() *uploadError {
	return &uploadError{status: http.StatusRequestEntityTooLarge, reason: fmt.Sprintf("the body is over the limit of %d bytes", u.cfg.MaxRequestBodySize)}
}

// readReports reads the report files of a multipart upload under the
// limits of parse: per report, and per run (report.DefaultMaxFiles files,
// report.DefaultMaxRunBytes bytes). A refused report refuses the upload
// with its reason; nothing of it is delivered. The query's command,
// exit_code, commit, started_at and ended_at describe the run, as parse's
// flags of the same names do.
func (u *uploads) readReports(req *http.Request) (*testrun.Run, error) {
	meta, err := uploadMeta(req)
	if err != nil {
		return nil, err
	}
	closing := &boundarySeen{r: req.Body}
	if _, params, err := mime.ParseMediaType(req.Header.Get("Content-Type")); err == nil && params["boundary"] != "" {
		closing.pattern = []byte("--" + params["boundary"] + "--")
		req.Body = io.NopCloser(closing)
	}
	mr, err := req.MultipartReader()
	if err != nil {
		return nil, badRequest("multipart: %v", err)
	}
	b := testrun.NewBuilder(testrun.WithRedactor(u.r.emitter.redactor))
	opts := u.r.emitter.reportOptions()
	var total int64
	files := 0
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			// The multipart reader ends at the closing boundary and also
			// where a body was cut short between two files: what the
			// client did not send is not a run.
			if !closing.seen {
				return nil, badRequest("multipart: the body ended before its closing boundary: the upload was cut short")
			}
			break
		}
		if err != nil {
			if tooLarge(err) {
				return nil, u.tooLarge()
			}
			return nil, badRequest("multipart: %v", err)
		}
		name := part.FileName()
		if name == "" {
			_ = part.Close()
			continue // a form field, not a file
		}
		name = path.Base(strings.ReplaceAll(name, "\\", "/"))
		files++
		if files > report.DefaultMaxFiles {
			return nil, badRequest("more than %d report files: %s", report.DefaultMaxFiles,
				report.Describe(&report.LimitError{Limit: report.LimitFiles, Max: report.DefaultMaxFiles}))
		}
		res, perr := report.Parse(part, name, opts...)
		_ = part.Close()
		if perr != nil {
			if tooLarge(perr) {
				return nil, u.tooLarge()
			}
			run := b.Build()
			run.Reports = append(run.Reports, res.Info)
			return run, badRequest("report %s refused: %s", name, res.Info.Error)
		}
		total += res.Info.Bytes
		if total > report.DefaultMaxRunBytes {
			return nil, &uploadError{status: http.StatusRequestEntityTooLarge, reason: report.Describe(&report.LimitError{Limit: report.LimitRunBytes, Max: report.DefaultMaxRunBytes})}
		}
		b.AddReport(res.Info, res.Executions, res.Coverage)
	}
	if files == 0 {
		return nil, badRequest("no report file in the upload (send each as a multipart file part)")
	}
	run := b.Build()
	run.ID = testrun.DeriveID(run.Reports)
	meta.apply(run)
	return run, nil
}

// runMeta is what an upload's query says about the run.
type runMeta struct {
	command        string
	exitCode       *int
	commit         string
	started, ended time.Time
}

func uploadMeta(req *http.Request) (runMeta, error) {
	q := req.URL.Query()
	m := runMeta{command: q.Get("command"), commit: q.Get("commit")}
	if v := q.Get("exit_code"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || testrun.CheckExitCode(n) != nil {
			return m, badRequest("exit_code %q is not between 0 and %d", v, testrun.MaxExitCode)
		}
		m.exitCode = &n
	}
	for _, t := range []struct {
		key string
		to  *time.Time
	}{{"started_at", &m.started}, {"ended_at", &m.ended}} {
		v := q.Get(t.key)
		if v == "" {
			continue
		}
		tm, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			return m, badRequest("%s %q is not an RFC 3339 time", t.key, v)
		}
		*t.to = tm
	}
	if !m.started.IsZero() && !m.ended.IsZero() && m.ended.Before(m.started) {
		return m, badRequest("ended_at is before started_at")
	}
	if m.started.IsZero() && m.ended.IsZero() {
		m.ended = time.Now()
	}
	return m, nil
}

func (m runMeta) apply(run *testrun.Run) {
	run.Command = testrun.DefaultRedactor().Redact(m.command)
	run.Commit = m.commit
	run.StartedAt, run.EndedAt = m.started, m.ended
	if m.exitCode != nil {
		run.ExitCode = m.exitCode
		run.Status = testrun.StatusForExitCode(*m.exitCode)
	}
}

// boundarySeen reads r and notes whether the closing boundary of a
// multipart body (pattern, "--BOUNDARY--") went by: the multipart reader
// says io.EOF both there and where a body ends short of it.
type boundarySeen struct {
	r       io.Reader
	pattern []byte
	tail    []byte // the last len(pattern)-1 bytes read
	seen    bool
}

func (b *boundarySeen) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if n > 0 && !b.seen && len(b.pattern) > 0 {
		b.tail = append(b.tail, p[:n]...)
		b.seen = bytes.Contains(b.tail, b.pattern)
		if keep := len(b.pattern) - 1; len(b.tail) > keep {
			b.tail = append(b.tail[:0], b.tail[len(b.tail)-keep:]...)
		}
	}
	return n, err
}
