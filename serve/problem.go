package serve

import (
	"encoding/json"
	"net/http"
	"strconv"
)

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

// unavailable answers 503 with Retry-After.
func unavailable(w http.ResponseWriter, detail string) {
	w.Header().Set("Retry-After", strconv.Itoa(RetryAfterSeconds))
	writeProblem(w, http.StatusServiceUnavailable, detail)
}

func writeJSON(w http.ResponseWriter, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		writeProblem(w, http.StatusInternalServerError, "the response could not be encoded")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(append(data, '\n'))
}
