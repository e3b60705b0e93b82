package serve

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"sync"
	"time"
)

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// accessLog writes one line per request to out: time, remote address,
// method, the request URI quoted (control characters escaped), status,
// bytes and duration. A response cut midway (http.ErrAbortHandler) is
// logged too, with what was sent.
func accessLog(h http.Handler, out io.Writer, now func() time.Time) http.Handler {
	var mu sync.Mutex
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := now()
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			uri := r.RequestURI
			if len(uri) > 512 {
				uri = uri[:512] + "..."
			}
			line := fmt.Sprintf("%s %s %s %s %d %d %s\n", start.UTC().Format(time.RFC3339Nano),
				strconv.Quote(r.RemoteAddr), strconv.Quote(r.Method), strconv.Quote(uri),
				sw.status, sw.bytes, now().Sub(start).Round(time.Microsecond))
			mu.Lock()
			defer mu.Unlock()
			_, _ = io.WriteString(out, line)
		}()
		h.ServeHTTP(sw, r)
	})
}
