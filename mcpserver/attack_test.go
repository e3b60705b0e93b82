package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// A hostile client's attempts at reading what it should not, or at an
// answer without bound.

// A path far longer than any file name is refused for its length, and the
// refusal does not repeat it: the answer stays small whatever was sent.
func TestAttackLongPathsAreRefusedBriefly(t *testing.T) {
	root, _ := reportsDir(t)
	cs := connect(t, newStore(t), WithReportsDir(root))
	for _, p := range []string{
		strings.Repeat("a", 1<<20),
		strings.Repeat("sub/", 1<<18) + "pytest.xml",
		strings.Repeat("é", 1<<19),
	} {
		got, isErr := call(t, cs, ToolParseReports, ParseReportsInput{Paths: []string{p}})
		require.True(t, isErr)
		assert.Equal(t, 403, statusOf(t, got))
		assert.Contains(t, detailOf(t, got), fmt.Sprintf("longer than %d bytes", MaxPathBytes))
		assert.Less(t, len(got), 2048, "the refusal is brief, not the path again")
	}
	// A path just within the bound is looked at as any other.
	got, isErr := call(t, cs, ToolParseReports, ParseReportsInput{Paths: []string{strings.Repeat("./", MaxPathBytes/2-len("sub/pytest.xml")/2-1) + "sub/pytest.xml"}})
	require.False(t, isErr, "%s", got)
}

// A reports folder given as a symbolic link is the folder it led to when
// the server started: pointing the link elsewhere later opens nothing new.
func TestAttackReportsFolderLinkRetargeted(t *testing.T) {
	root, outside := reportsDir(t)
	link := filepath.Join(t.TempDir(), "reports-link")
	require.NoError(t, os.Symlink(root, link))
	cs := connect(t, newStore(t), WithReportsDir(link))

	got, isErr := call(t, cs, ToolParseReports, ParseReportsInput{Paths: []string{"sub/pytest.xml"}})
	require.False(t, isErr, "%s", got)

	// The link now leads to the folder of the secret file.
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink(filepath.Dir(outside), link))
	got, isErr = call(t, cs, ToolParseReports, ParseReportsInput{Paths: []string{filepath.Base(outside)}})
	require.True(t, isErr, "%s", got)
	assert.Equal(t, 403, statusOf(t, got))
	got, isErr = call(t, cs, ToolParseReports, ParseReportsInput{Paths: []string{filepath.Join(link, filepath.Base(outside))}})
	require.True(t, isErr, "%s", got)
	assert.Equal(t, 403, statusOf(t, got))
	assert.NotContains(t, string(got), "test_sample")
}

// Resource URIs that try escapes the template does not allow: an escaped
// separator, an escaped or doubly escaped "..", another host spelling, a
// port, a user, a trailing slash. None reads a job's tests other than the
// one named, and a doubly escaped id is that id, literally.
func TestAttackResourceURIs(t *testing.T) {
	st := newStore(t)
	goRuns(t, st)
	cs := connect(t, st)
	ctx := context.Background()
	for _, uri := range []string{
		"testresults://jobs/..%2Fsessions%2Fx/tests",
		"testresults://jobs/%2E%2E/tests",
		"testresults://jobs/%2e/tests",
		"testresults://jobs/job-1%00/tests",
		"testresults://jobs/job-1%0A/tests",
		"testresults://JOBS/job-1/tests",
		"testresults://jobs:80/job-1/tests",
		"testresults://u@jobs/job-1/tests",
		"testresults://jobs/job-1/tests/",
		"testresults://jobs//tests",
		"testresults://jobs/job-1%/tests",
		"TESTRESULTS://jobs/job-1/tests",
		"testresults://jobs/" + strings.Repeat("a", 257) + "/tests",
	} {
		_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
		assert.Error(t, err, uri)
	}
	// "%252E%252E" names the job whose id is "%2E%2E": there is none.
	_, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testresults://jobs/%252E%252E/tests"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no runs for this job id")
	// The job itself is read.
	_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: JobTestsURI("job-1")})
	require.NoError(t, err)
}

// Many clients at once over the HTTP transport, each with its own
// session, get each its own answers (run under -race).
func TestAttackConcurrentHTTPSessions(t *testing.T) {
	st := newStore(t)
	goRuns(t, st)
	root, _ := reportsDir(t)
	srv, err := New(st, WithReportsDir(root))
	require.NoError(t, err)
	ln, err := Listen("127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeListener(ctx, ln) }()
	defer func() {
		cancel()
		require.NoError(t, <-errc)
	}()
	_, want := apiGet(t, st, "/api/jobs/job-1/tests")

	const clients, calls = 8, 6
	var wg sync.WaitGroup
	errs := make(chan error, clients*calls)
	for c := range clients {
		wg.Go(func() {
			cs, err := mcp.NewClient(&mcp.Implementation{Name: fmt.Sprint("c", c), Version: "v0"}, nil).Connect(ctx,
				&mcp.StreamableClientTransport{Endpoint: "http://" + ln.Addr().String(), HTTPClient: &http.Client{}, DisableStandaloneSSE: true}, nil)
			if err != nil {
				errs <- err
				return
			}
			defer cs.Close()
			for i := range calls {
				if i%2 == 0 {
					res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: JobTestsURI("job-1")})
					if err != nil {
						errs <- err
					} else if res.Contents[0].Text != string(want) {
						errs <- fmt.Errorf("client %d: another answer than the API's", c)
					}
					continue
				}
				res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolParseReports, Arguments: ParseReportsInput{Paths: []string{"sub/pytest.xml"}}})
				if err != nil {
					errs <- err
					continue
				}
				var out struct{ Run testrun.Run }
				text := res.Content[0].(*mcp.TextContent).Text
				if err := json.Unmarshal([]byte(text), &out); err != nil || res.IsError || out.Run.Counts == nil || out.Run.Counts.Total != 18 {
					errs <- fmt.Errorf("client %d: parse_reports gave %s", c, text)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
