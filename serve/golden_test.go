package serve

import (
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
)

var update = flag.Bool("update", false, "rewrite serve/testdata/responses from the server's answers")

// goldenRequests are the requests whose whole answers (status, the headers
// a client reads, body) are kept in testdata/responses/NAME.txt: every
// route, its successes and its problems.
var goldenRequests = []struct {
	name, method, path string
	header             []string
}{
	{"job-tests", http.MethodGet, "/api/jobs/job-1/tests", nil},
	{"session-tests", http.MethodGet, "/api/sessions/sess-1/tests", nil},
	{"one-run", http.MethodGet, "/api/jobs/job-1/tests?run=a1", nil},
	{"one-run-cases", http.MethodGet, "/api/jobs/job-1/tests?run=a1&cases=true", nil},
	{"cases-page", http.MethodGet, "/api/jobs/job-big/tests?run=big1&cases=true&offset=11999", nil},
	{"otel", http.MethodGet, "/api/jobs/job-1/tests?format=otel&case_spans=failed", nil},
	{"otel-session", http.MethodGet, "/api/sessions/sess-1/tests?format=otel", nil},
	{"job-page", http.MethodGet, "/jobs/job-1", nil},
	{"front-page", http.MethodGet, "/", nil},
	{"front-page-repo", http.MethodGet, "/?repo=acme%2Fapi&limit=1", nil},
	{"job-list", http.MethodGet, "/api/jobs", nil},
	{"job-list-paged", http.MethodGet, "/api/jobs?limit=1", nil},
	{"jobs-redirect", http.MethodGet, "/jobs?repo=acme%2Fapi", nil},
	{"flaky", http.MethodGet, "/api/repos/tests/flaky?repo=acme%2Fapi", []string{"Authorization", "Bearer " + token}},
	{"flaky-no-token", http.MethodGet, "/api/repos/tests/flaky?repo=acme%2Fapi", nil},
	{"flaky-wrong-token", http.MethodGet, "/api/repos/tests/flaky?repo=acme%2Fapi", []string{"Authorization", "Bearer nope"}},
	{"flaky-bad-param", http.MethodGet, "/api/repos/tests/flaky?repo=acme%2Fapi&x=1", []string{"Authorization", "Bearer " + token}},
	{"flaky-no-repo", http.MethodGet, "/api/repos/tests/flaky", []string{"Authorization", "Bearer " + token}},
	{"unknown-job", http.MethodGet, "/api/jobs/nope/tests", nil},
	{"unknown-run", http.MethodGet, "/api/jobs/job-1/tests?run=nope", nil},
	{"unknown-param", http.MethodGet, "/api/jobs/job-1/tests?bogus=1", nil},
	{"bad-format", http.MethodGet, "/api/jobs/job-1/tests?format=xml", nil},
	{"bad-bool", http.MethodGet, "/api/jobs/job-1/tests?run=a1&cases=maybe", nil},
	{"bad-offset", http.MethodGet, "/api/jobs/job-1/tests?run=a1&cases=true&offset=-1", nil},
	{"cases-without-run", http.MethodGet, "/api/jobs/job-1/tests?cases=true", nil},
	{"offset-without-cases", http.MethodGet, "/api/jobs/job-1/tests?offset=1", nil},
	{"otel-offset-with-run", http.MethodGet, "/api/jobs/job-1/tests?format=otel&run=a1&offset=1", nil},
	{"otel-offset-past", http.MethodGet, "/api/jobs/job-1/tests?format=otel&offset=9", nil},
	{"case-spans-without-otel", http.MethodGet, "/api/jobs/job-1/tests?case_spans=all", nil},
	{"bad-case-spans", http.MethodGet, "/api/jobs/job-1/tests?format=otel&case_spans=some", nil},
	{"bad-run-id", http.MethodGet, "/api/jobs/job-1/tests?run=", nil},
	{"bad-job-id", http.MethodGet, "/api/jobs/..%2Fx/tests", nil},
	{"page-params", http.MethodGet, "/jobs/job-1?x=1", nil},
	{"page-unknown-job", http.MethodGet, "/jobs/nope", nil},
	{"page-bad-id", http.MethodGet, "/jobs/%01", nil},
	{"list-bad-limit", http.MethodGet, "/api/jobs?limit=0", nil},
	{"list-bad-cursor", http.MethodGet, "/api/jobs?cursor=x", nil},
	{"list-bad-param", http.MethodGet, "/api/jobs?page=2", nil},
	{"list-bad-repo", http.MethodGet, "/api/jobs?repo=", nil},
	{"no-endpoint", http.MethodGet, "/api/nothing", nil},
	{"read-only", http.MethodPost, "/api/jobs", nil},
	{"read-only-delete", http.MethodDelete, "/api/jobs/job-1/tests", nil},
}

// goldenHeaders are the response headers the golden files keep.
var goldenHeaders = []string{"Allow", "Content-Type", "Content-Security-Policy", "Link", "Location", "Retry-After", "Vary", "WWW-Authenticate", "X-Content-Type-Options"}

// recordedAtRE matches what differs between two recordings of the same
// runs: the times the store recorded them and the flaky list saw them.
var recordedAtRE = regexp.MustCompile(`"(recorded_at|first_seen|last_seen|at)":"[^"]*"`)

// TestResponsesGolden asks every route for its answers, successes and
// problems, and compares each, byte for byte but for the recording times,
// with its golden file: a change of how the server is written changes no
// answer. Both stores give the same files.
func TestResponsesGolden(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		f := newFixture(t, st)
		client := *f.srv.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		for _, g := range goldenRequests {
			t.Run(g.name, func(t *testing.T) {
				req, err := http.NewRequest(g.method, f.srv.URL+g.path, nil)
				require.NoError(t, err)
				for i := 0; i+1 < len(g.header); i += 2 {
					req.Header.Set(g.header[i], g.header[i+1])
				}
				resp, err := client.Do(req)
				require.NoError(t, err)
				defer resp.Body.Close()
				var b strings.Builder
				fmt.Fprintf(&b, "%s %s\n%d\n", g.method, g.path, resp.StatusCode)
				for _, h := range goldenHeaders {
					if v := resp.Header.Values(h); len(v) > 0 {
						fmt.Fprintf(&b, "%s: %s\n", h, strings.Join(v, ", "))
					}
				}
				b.WriteString("\n")
				body, err := io.ReadAll(resp.Body)
				require.NoError(t, err)
				b.Write(recordedAtRE.ReplaceAll(body, []byte(`"$1":"TIME"`)))
				got := b.String()
				path := filepath.Join("testdata", "responses", g.name+".txt")
				if *update {
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
				}
				want, err := os.ReadFile(path)
				require.NoError(t, err, "run go test -run TestResponsesGolden -update ./serve/ to write it")
				assert.Equal(t, string(want), got)
			})
		}
	})
}
