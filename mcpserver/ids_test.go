package mcpserver

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/serve"
)

// hostileIDs are identifiers the query API refuses.
var hostileIDs = map[string]string{
	"empty":             "",
	"dot":               ".",
	"dot dot":           "..",
	"slash":             "a/b",
	"backslash":         `a\b`,
	"traversal":         "../../etc/passwd",
	"NUL":               "a\x00b",
	"ANSI escape":       "run\x1b[31mred",
	"newline":           "a\nb",
	"DEL":               "a\x7f",
	"C1 control":        "a\u0085b",
	"not UTF-8":         "a\xffb",
	"one byte too long": strings.Repeat("x", serve.MaxIDLength+1),
}

// TestIDsRefusedAsTheAPIRefusesThem sends each hostile identifier to the
// query API and to the server, as a resource's id, a tool's job id and a
// run id: the server refuses each, for the reason the API gives.
func TestIDsRefusedAsTheAPIRefusesThem(t *testing.T) {
	st := newStore(t)
	goRuns(t, st)
	cs := connect(t, st)
	ctx := context.Background()
	for name, id := range hostileIDs {
		t.Run(name, func(t *testing.T) {
			// The API refuses a run id before it reads the store.
			code, problem := apiGet(t, st, "/api/jobs/job-1/tests?run="+url.QueryEscape(id))
			require.Equal(t, 400, code, "%s", problem)
			reason, ok := strings.CutPrefix(detailOf(t, problem), "serve: bad identifier: run id ")
			require.True(t, ok, "%s", problem)

			err := checkID("run id", id)
			require.ErrorIs(t, err, ErrBadID)
			var be *badIDError
			require.True(t, errors.As(err, &be))
			assert.Equal(t, "run id "+reason, be.Reason)

			if id != "" && id != "." && id != ".." {
				// Where the API's path can carry the id, it refuses it there too.
				code, problem = apiGet(t, st, "/api/jobs/"+url.PathEscape(id)+"/tests")
				require.Equal(t, 400, code, "%s", problem)
				assert.Equal(t, "serve: bad identifier: job id "+reason, detailOf(t, problem))
			}

			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: JobTestsURI(id)})
			require.Error(t, err, "the resource is refused")
			assert.Contains(t, err.Error(), "job id "+reason)
			_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: SessionTestsURI(id)})
			require.Error(t, err)
			assert.Contains(t, err.Error(), "session ref "+reason)

			if !utf8.ValidString(id) {
				// JSON carries no such string: the client's encoder
				// replaced its bytes before the call was sent.
				return
			}
			if id != "" {
				got, isErr := call(t, cs, ToolJobTests, JobTestsInput{Job: id})
				require.True(t, isErr, "job_tests refuses it")
				assert.Equal(t, 400, statusOf(t, got))
				assert.Contains(t, detailOf(t, got), "job id "+reason)
			}
			got, isErr := call(t, cs, ToolJobTests, JobTestsInput{Job: "job-1", Run: id})
			if id != "" {
				require.True(t, isErr, "job_tests refuses the run id")
				assert.Equal(t, "serve: bad identifier: run id "+reason, detailOf(t, got), "the API's own refusal")
			}
			got, isErr = call(t, cs, ToolDiffRuns, DiffRunsInput{Base: id, After: "x"})
			require.True(t, isErr, "diff_runs refuses it")
			assert.Contains(t, detailOf(t, got), "run id "+reason)
			got, isErr = call(t, cs, ToolVerdict, VerdictInput{Parent: []string{"a", id}, Patch: []string{"c", "d"}})
			require.True(t, isErr, "verdict refuses it")
			assert.Contains(t, detailOf(t, got), "run id "+reason)
		})
	}
}

// TestResourceURIsOtherThanTheTemplatesAreRefused reads URIs that are not
// a job's or a session's tests.
func TestResourceURIsOtherThanTheTemplatesAreRefused(t *testing.T) {
	st := newStore(t)
	goRuns(t, st)
	cs := connect(t, st)
	for _, uri := range []string{
		"testresults://jobs/job-1/tests?run=x",
		"testresults://jobs/job-1/tests#frag",
		"testresults://jobs/job-1/cases",
		"testresults://jobs/a/b/tests",
		"file:///etc/passwd",
		"testresults://repos/tests/flaky",
	} {
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: uri})
		assert.Error(t, err, uri)
	}
}
