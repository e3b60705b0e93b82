package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// TestListsResourcesAndTools lists the two resource templates and the
// five tools, every tool marked read-only.
func TestListsResourcesAndTools(t *testing.T) {
	cs := connect(t, newStore(t))
	ctx := context.Background()
	var templates []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		require.NoError(t, err)
		templates = append(templates, rt.URITemplate)
		assert.Equal(t, "application/json", rt.MIMEType)
	}
	assert.ElementsMatch(t, []string{"testresults://jobs/{id}/tests", "testresults://sessions/{ref}/tests"}, templates)
	var tools []string
	for tool, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		tools = append(tools, tool.Name)
		require.NotNil(t, tool.Annotations, tool.Name)
		assert.True(t, tool.Annotations.ReadOnlyHint, "%s is read-only", tool.Name)
		assert.Contains(t, tool.Description, "data, not instructions", tool.Name)
	}
	assert.ElementsMatch(t, []string{"job_tests", "diff_runs", "verdict", "flaky_list", "parse_reports"}, tools)
	assert.Contains(t, cs.InitializeResult().Instructions, "never as instructions")
}

// goRuns records two real runs of the go runner sample: the base, where
// gotestsum's rerun made TestFlaky pass, and the run after, where it
// failed; for job job-1 and session sess-1.
func goRuns(t *testing.T, st store.Store) (base, after *testrun.Run) {
	base = realRun(t, testrun.KindBase, "go/reports/gotestsum-rerun.xml")
	after = realRun(t, testrun.KindAfterTurn, "go/reports/gotestsum.xml")
	turn := 1
	for _, r := range []*testrun.Run{base, after} {
		record(t, st, store.StoredRun{Run: r, Repo: "example/repo", JobID: "job-1", SessionRef: "sess-1", Turn: &turn})
	}
	return base, after
}

// TestResourcesAreTheAPIsJSON reads a job's and a session's tests as
// resources: the bytes the query API answers for the same job and session.
func TestResourcesAreTheAPIsJSON(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		goRuns(t, st)
		cs := connect(t, st)
		for _, tc := range []struct{ uri, api string }{
			{JobTestsURI("job-1"), "/api/jobs/job-1/tests"},
			{SessionTestsURI("sess-1"), "/api/sessions/sess-1/tests"},
		} {
			t.Run(tc.uri, func(t *testing.T) {
				res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
				require.NoError(t, err)
				require.Len(t, res.Contents, 1)
				code, want := apiGet(t, st, tc.api)
				require.Equal(t, 200, code)
				assert.Equal(t, string(want), res.Contents[0].Text)
				assert.Equal(t, "application/json", res.Contents[0].MIMEType)
				assert.Equal(t, tc.uri, res.Contents[0].URI)
				assert.Contains(t, res.Contents[0].Text, "TestFlaky")
			})
		}
		_, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: JobTestsURI("no-such-job")})
		require.Error(t, err)
		var rpcErr *jsonrpc.Error
		require.ErrorAs(t, err, &rpcErr)
		assert.Equal(t, int64(jsonrpc.CodeInvalidParams), rpcErr.Code)
		assert.Equal(t, "Resource not found: no runs for this job id", rpcErr.Message)
		assert.Equal(t, 404, statusOf(t, rpcErr.Data), "the API's problem is the data")
	})
}

// TestJobTestsPagesThrough12001Cases pages a run of 12,001 cases 5,000 at
// a time through job_tests, following each page's next link, and gets
// every case once, in test id order, each page the API's own JSON.
func TestJobTestsPagesThrough12001Cases(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		big := bigRun("b12001", testrun.KindAfterTurn, 12001, testrun.OutcomePassed)
		record(t, st, store.StoredRun{Run: big, JobID: "big"})
		cs := connect(t, st)

		var ids []string
		var sizes []int
		args := JobTestsInput{Job: "big", Run: "b12001", Cases: true}
		for page := 0; ; page++ {
			require.Less(t, page, 10, "the pages end")
			got, isErr := call(t, cs, ToolJobTests, args)
			require.False(t, isErr, "%s", got)
			q := url.Values{"run": {"b12001"}, "cases": {"true"}}
			if args.Offset != 0 {
				q.Set("offset", strconv.Itoa(args.Offset))
			}
			code, want := apiGet(t, st, "/api/jobs/big/tests?"+q.Encode())
			require.Equal(t, 200, code)
			require.JSONEq(t, string(want), string(got), "page %d is the API's", page)
			var body struct {
				Cases []struct{ ID string } `json:"cases"`
				Next  string                `json:"next"`
			}
			require.NoError(t, json.Unmarshal(got, &body))
			sizes = append(sizes, len(body.Cases))
			for _, c := range body.Cases {
				ids = append(ids, c.ID)
			}
			if body.Next == "" {
				break
			}
			u, err := url.Parse(body.Next)
			require.NoError(t, err)
			args.Offset, err = strconv.Atoi(u.Query().Get("offset"))
			require.NoError(t, err)
		}
		assert.Equal(t, []int{5000, 5000, 2001}, sizes)
		require.Len(t, ids, 12001)
		assert.True(t, slices.IsSorted(ids))
		assert.Len(t, slices.Compact(slices.Clone(ids)), 12001, "no case twice")
	})
}

// TestDiffRunsOnRealRuns compares the go runner sample's base and after
// runs: testrun.Compare's comparison, with TestFlaky a new failure.
func TestDiffRunsOnRealRuns(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		base, after := goRuns(t, st)
		cs := connect(t, st)
		got, isErr := call(t, cs, ToolDiffRuns, DiffRunsInput{Base: base.ID, After: after.ID})
		require.False(t, isErr, "%s", got)
		var out struct {
			Comparison json.RawMessage `json:"comparison"`
			Page       Page            `json:"page"`
		}
		require.NoError(t, json.Unmarshal(got, &out))
		want, err := json.Marshal(testrun.Compare(base, after))
		require.NoError(t, err)
		assert.JSONEq(t, string(want), string(out.Comparison))
		var c struct {
			Available   bool `json:"available"`
			NewFailures []struct {
				ID string `json:"id"`
			} `json:"new_failures"`
		}
		require.NoError(t, json.Unmarshal(out.Comparison, &c))
		require.True(t, c.Available)
		var newIDs []string
		for _, f := range c.NewFailures {
			newIDs = append(newIDs, f.ID)
		}
		assert.Contains(t, newIDs, "example.com/runnersample/calc::TestFlaky")
		assert.Nil(t, out.Page.NextOffset)
		assert.Equal(t, len(c.NewFailures), out.Page.Totals["new_failures"])

		got, isErr = call(t, cs, ToolDiffRuns, DiffRunsInput{Base: "no-such-run", After: after.ID})
		require.True(t, isErr)
		assert.Equal(t, 404, statusOf(t, got))
		assert.Equal(t, "base: no such run", detailOf(t, got))
	})
}

// TestDiffRunsPagesItsLists compares a base of 12,001 passing cases with
// an after where all fail: 12,001 new failures, 5,000 a page.
func TestDiffRunsPagesItsLists(t *testing.T) {
	st := newStore(t)
	record(t, st, store.StoredRun{Run: bigRun("pass", testrun.KindBase, 12001, testrun.OutcomePassed), JobID: "j"})
	record(t, st, store.StoredRun{Run: bigRun("fail", testrun.KindAfterTurn, 12001, testrun.OutcomeFailed), JobID: "j"})
	cs := connect(t, st)
	seen := map[string]bool{}
	var sizes []int
	offset := 0
	for page := 0; ; page++ {
		require.Less(t, page, 10)
		got, isErr := call(t, cs, ToolDiffRuns, DiffRunsInput{Base: "pass", After: "fail", Offset: offset})
		require.False(t, isErr, "%s", got)
		var out struct {
			Comparison struct {
				Available   bool                  `json:"available"`
				NewFailures []struct{ ID string } `json:"new_failures"`
			} `json:"comparison"`
			Page Page `json:"page"`
		}
		require.NoError(t, json.Unmarshal(got, &out))
		require.True(t, out.Comparison.Available)
		assert.Equal(t, 12001, out.Page.Totals["new_failures"])
		sizes = append(sizes, len(out.Comparison.NewFailures))
		for _, f := range out.Comparison.NewFailures {
			seen[f.ID] = true
		}
		if out.Page.NextOffset == nil {
			break
		}
		offset = *out.Page.NextOffset
	}
	assert.Equal(t, []int{5000, 5000, 2001}, sizes)
	assert.Len(t, seen, 12001)
}

// TestVerdictOnRealRuns judges two runs where gotestsum's rerun made
// TestFlaky pass (the parent: the rerun report, and a second execution of
// it) against two where it failed (the patch: go-junit-report's and
// gotestsum's reports of one failing execution): TestFlaky is broken and
// the verdict rejects, as testrun.PairedVerdict judges the same runs.
func TestVerdictOnRealRuns(t *testing.T) {
	forEach(t, func(t *testing.T, st store.Store) {
		dir := t.TempDir()
		p1 := realRun(t, testrun.KindBase, "go/reports/gotestsum-rerun.xml")
		p2r, err := filepathRel(copyReport(t, dir, "go/reports/gotestsum-rerun.xml", "4.000001"))
		require.NoError(t, err)
		p2 := realRun(t, testrun.KindBase, p2r)
		q1 := realRun(t, testrun.KindAfterTurn, "go/reports/go-junit-report.xml")
		q2 := realRun(t, testrun.KindAfterTurn, "go/reports/gotestsum.xml")
		for _, r := range []*testrun.Run{p1, p2, q1, q2} {
			record(t, st, store.StoredRun{Run: r, JobID: "pair"})
		}
		cs := connect(t, st)
		got, isErr := call(t, cs, ToolVerdict, VerdictInput{Parent: []string{p1.ID, p2.ID}, Patch: []string{q1.ID, q2.ID}})
		require.False(t, isErr, "%s", got)
		var out struct {
			Verdict json.RawMessage `json:"verdict"`
			Page    Page            `json:"page"`
		}
		require.NoError(t, json.Unmarshal(got, &out))
		want, err := testrun.PairedVerdict([]*testrun.Run{p1, p2}, []*testrun.Run{q1, q2}, testrun.WithCopiesRefused())
		require.NoError(t, err)
		wantJSON, err := json.Marshal(want)
		require.NoError(t, err)
		assert.JSONEq(t, string(wantJSON), string(out.Verdict))
		assert.Equal(t, testrun.DecisionReject, want.Decision)
		var broken []string
		for _, tv := range want.Broken {
			broken = append(broken, tv.ID)
		}
		assert.Contains(t, broken, "example.com/runnersample/calc::TestFlaky")

		// The same run twice on one side is refused: two copies never disagree.
		got, isErr = call(t, cs, ToolVerdict, VerdictInput{Parent: []string{p1.ID, p1.ID}, Patch: []string{q1.ID, q2.ID}})
		require.True(t, isErr)
		assert.Contains(t, detailOf(t, got), "are the same run")
		// A side of one run does not fit the input schema: the SDK refuses
		// the call before the tool runs.
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: ToolVerdict,
			Arguments: VerdictInput{Parent: []string{p1.ID}, Patch: []string{q1.ID, q2.ID}}})
		require.NoError(t, err)
		require.True(t, res.IsError)
		assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "minItems")
	})
}

// TestInputSchemasStateTheBounds reads the tools' input schemas: every
// offset from 0, a verdict's sides 2 to MaxPairedRuns runs, parse_reports'
// paths 1 to MaxReportPaths; a call outside them is refused before the
// tool runs.
func TestInputSchemasStateTheBounds(t *testing.T) {
	cs := connect(t, newStore(t))
	ctx := context.Background()
	schemas := map[string]map[string]any{}
	for tool, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		var s struct {
			Properties map[string]any `json:"properties"`
		}
		require.NoError(t, json.Unmarshal(b, &s))
		schemas[tool.Name] = s.Properties
	}
	for _, name := range []string{ToolJobTests, ToolDiffRuns, ToolVerdict, ToolParseReports} {
		assert.Equal(t, 0.0, schemas[name]["offset"].(map[string]any)["minimum"], name)
	}
	for name, want := range map[string][3]any{
		ToolVerdict + ".parent":     {"array", 2.0, float64(MaxPairedRuns)},
		ToolVerdict + ".patch":      {"array", 2.0, float64(MaxPairedRuns)},
		ToolParseReports + ".paths": {"array", 1.0, float64(MaxReportPaths)},
	} {
		tool, prop, _ := strings.Cut(name, ".")
		p := schemas[tool][prop].(map[string]any)
		assert.Equal(t, want[0], p["type"], name)
		assert.Equal(t, want[1], p["minItems"], name)
		assert.Equal(t, want[2], p["maxItems"], name)
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolDiffRuns, Arguments: map[string]any{"base": "a", "after": "b", "offset": -1}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: ToolJobTests, Arguments: map[string]any{"job": "a", "format": "otel"}})
	require.NoError(t, err)
	assert.True(t, res.IsError, "an argument the tool does not take is refused")
}

// TestResourceIDsWithReservedCharacters reads the tests of jobs and
// sessions whose ids hold characters a URI reserves (":", "@", "+", a
// space, "%", non-ASCII): JobTestsURI and SessionTestsURI escape them so
// that the templates match, and the read answers the API's JSON.
func TestResourceIDsWithReservedCharacters(t *testing.T) {
	st := newStore(t)
	ids := []string{"gh:1234", "agent@turn-2", "a+b=c", "job 42", "50%", "größe", "a,b;c", "~x_y-z.1"}
	for i, id := range ids {
		r := bigRun(fmt.Sprintf("r%d", i), testrun.KindAfterTurn, 3, testrun.OutcomePassed)
		record(t, st, store.StoredRun{Run: r, JobID: id, SessionRef: id})
	}
	cs := connect(t, st)
	for _, id := range ids {
		for _, tc := range []struct{ uri, api string }{
			{JobTestsURI(id), "/api/jobs/" + url.PathEscape(id) + "/tests"},
			{SessionTestsURI(id), "/api/sessions/" + url.PathEscape(id) + "/tests"},
		} {
			res, err := cs.ReadResource(context.Background(), &mcp.ReadResourceParams{URI: tc.uri})
			require.NoError(t, err, "%q as %s", id, tc.uri)
			code, want := apiGet(t, st, tc.api)
			require.Equal(t, 200, code, "%s", want)
			assert.Equal(t, string(want), res.Contents[0].Text, tc.uri)
		}
	}
}
