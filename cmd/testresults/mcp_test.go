package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mcpRecord records the reports at paths as one run with the built binary
// (parse --job-id) and returns the run's id.
func mcpRecord(t *testing.T, bin, db, job, kind string, paths ...string) string {
	t.Helper()
	args := append([]string{"parse", "--quiet", "--kind", kind, "--store", db, "--job-id", job}, paths...)
	code, out, errs := runBinary(t, bin, nil, args...)
	require.Equal(t, exitOK, code, errs)
	var r struct {
		ID string `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &r))
	require.NotEmpty(t, r.ID)
	return r.ID
}

// mcpCall calls a tool and returns its JSON text and whether it failed.
func mcpCall(t *testing.T, cs *mcp.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	require.Len(t, res.Content, 1)
	text, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	require.True(t, json.Valid([]byte(text.Text)), text.Text)
	return text.Text, res.IsError
}

// TestMCPOverStdio starts the built binary as an MCP server over stdio,
// as a client would, with the SDK's own client: it lists the resources
// and tools, reads a job's tests, pages through a run of 12,001 cases,
// compares and judges real runs (the go runner sample's reports), and is
// refused a hostile id and a report outside its folder.
func TestMCPOverStdio(t *testing.T) {
	bin := builtBinary(t)
	dir := t.TempDir()
	db := filepath.Join(dir, "store.db")
	reports := filepath.Join("..", "..", "testdata", "runners", "go", "reports")
	base := mcpRecord(t, bin, db, "job-1", "base", filepath.Join(reports, "gotestsum-rerun.xml"))
	after := mcpRecord(t, bin, db, "job-1", "after_turn", filepath.Join(reports, "gotestsum.xml"))
	// A second execution of the base's check: the same report, another time.
	data, err := os.ReadFile(filepath.Join(reports, "gotestsum-rerun.xml"))
	require.NoError(t, err)
	again := filepath.Join(dir, "gotestsum-rerun-again.xml")
	require.NoError(t, os.WriteFile(again, []byte(strings.Replace(string(data), `time="3.682896"`, `time="3.900001"`, 1)), 0o644))
	base2 := mcpRecord(t, bin, db, "pair", "base", again)
	after2 := mcpRecord(t, bin, db, "pair", "after_turn", filepath.Join(reports, "go-junit-report.xml"))

	var b strings.Builder
	b.WriteString(`<?xml version="1.0"?><testsuite name="big">`)
	for i := range 12001 {
		fmt.Fprintf(&b, `<testcase classname="pkg" name="Test%05d" time="0.001"/>`, i)
	}
	b.WriteString(`</testsuite>`)
	allowed := filepath.Join(dir, "allowed")
	require.NoError(t, os.Mkdir(allowed, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(allowed, "big.xml"), []byte(b.String()), 0o644))
	big := mcpRecord(t, bin, db, "big", "after_turn", filepath.Join(allowed, "big.xml"))

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--store", db, "--reports-dir", allowed)
	cmd.Env = []string{"HOME=" + dir, "PATH=" + os.Getenv("PATH")}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	defer cs.Close()
	assert.Equal(t, "testresults", cs.InitializeResult().ServerInfo.Name)

	var templates, tools []string
	for rt, err := range cs.ResourceTemplates(ctx, nil) {
		require.NoError(t, err)
		templates = append(templates, rt.URITemplate)
	}
	assert.ElementsMatch(t, []string{"testresults://jobs/{id}/tests", "testresults://sessions/{ref}/tests"}, templates)
	for tool, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		tools = append(tools, tool.Name)
	}
	assert.ElementsMatch(t, []string{"job_tests", "diff_runs", "verdict", "flaky_list", "parse_reports"}, tools)

	res, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testresults://jobs/job-1/tests"})
	require.NoError(t, err)
	var summary struct {
		Job  string            `json:"job"`
		Runs []json.RawMessage `json:"runs"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Contents[0].Text), &summary))
	assert.Equal(t, "job-1", summary.Job)
	assert.Len(t, summary.Runs, 2)

	// 12,001 cases, 5,000 a page, following each page's next link.
	var sizes []int
	seen := map[string]bool{}
	offset := 0
	for page := 0; ; page++ {
		require.Less(t, page, 10)
		args := map[string]any{"job": "big", "run": big, "cases": true}
		if offset > 0 {
			args["offset"] = offset
		}
		got, isErr := mcpCall(t, cs, "job_tests", args)
		require.False(t, isErr, got)
		var p struct {
			Cases []struct{ ID string } `json:"cases"`
			Next  string                `json:"next"`
		}
		require.NoError(t, json.Unmarshal([]byte(got), &p))
		sizes = append(sizes, len(p.Cases))
		for _, c := range p.Cases {
			seen[c.ID] = true
		}
		if p.Next == "" {
			break
		}
		u, err := url.Parse(p.Next)
		require.NoError(t, err)
		offset, err = strconv.Atoi(u.Query().Get("offset"))
		require.NoError(t, err)
	}
	assert.Equal(t, []int{5000, 5000, 2001}, sizes)
	assert.Len(t, seen, 12001)

	got, isErr := mcpCall(t, cs, "diff_runs", map[string]any{"base": base, "after": after})
	require.False(t, isErr, got)
	var diff struct {
		Comparison struct {
			Available   bool                  `json:"available"`
			NewFailures []struct{ ID string } `json:"new_failures"`
		} `json:"comparison"`
	}
	require.NoError(t, json.Unmarshal([]byte(got), &diff))
	require.True(t, diff.Comparison.Available)
	var newIDs []string
	for _, f := range diff.Comparison.NewFailures {
		newIDs = append(newIDs, f.ID)
	}
	assert.Contains(t, newIDs, "example.com/runnersample/calc::TestFlaky")

	got, isErr = mcpCall(t, cs, "verdict", map[string]any{"parent": []string{base, base2}, "patch": []string{after, after2}})
	require.False(t, isErr, got)
	var v struct {
		Verdict struct {
			Decision string                `json:"decision"`
			Broken   []struct{ ID string } `json:"broken"`
		} `json:"verdict"`
	}
	require.NoError(t, json.Unmarshal([]byte(got), &v))
	assert.Equal(t, "reject", v.Verdict.Decision)
	require.NotEmpty(t, v.Verdict.Broken)
	assert.Equal(t, "example.com/runnersample/calc::TestFlaky", v.Verdict.Broken[0].ID)

	for _, id := range []string{"../../etc", "a\x1b[2Jb", ".."} {
		_, err = cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "testresults://jobs/" + url.PathEscape(id) + "/tests"})
		require.Error(t, err, "%q is refused", id)
		assert.Contains(t, err.Error(), "bad identifier")
		got, isErr = mcpCall(t, cs, "job_tests", map[string]any{"job": id})
		require.True(t, isErr, "%q is refused", id)
		assert.Contains(t, got, "bad identifier")
	}

	got, isErr = mcpCall(t, cs, "parse_reports", map[string]any{"paths": []string{"big.xml"}})
	require.False(t, isErr, got)
	assert.Contains(t, got, `"total":12001`)
	for _, p := range []string{"../store.db", filepath.Join(reports, "gotestsum.xml"), "/etc/passwd"} {
		got, isErr = mcpCall(t, cs, "parse_reports", map[string]any{"paths": []string{p}})
		require.True(t, isErr, "%q is refused", p)
		assert.Contains(t, got, "outside the reports folder")
	}

	got, isErr = mcpCall(t, cs, "flaky_list", map[string]any{"repo": "example/repo"})
	require.True(t, isErr, "no admin token: refused")
	assert.Contains(t, got, `"status":403`)
}

// TestMCPUsage refuses a non-loopback --http address, arguments and a
// reports folder that is not there, with exit 2.
func TestMCPUsage(t *testing.T) {
	vars := map[string]string{"HANGAR_STORE": filepath.Join(t.TempDir(), "s.db")}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"all interfaces", []string{"mcp", "--http", "0.0.0.0:0"}, "not a loopback address"},
		{"no host", []string{"mcp", "--http", ":8080"}, "not a loopback address"},
		{"another host", []string{"mcp", "--http", "192.168.1.10:8080"}, "not a loopback address"},
		{"argument", []string{"mcp", "extra"}, "takes no arguments"},
		{"missing reports folder", []string{"mcp", "--reports-dir", "/nonexistent/reports"}, "--reports-dir"},
		{"missing token file", []string{"mcp", "--admin-token-file", "/nonexistent/token"}, "--admin-token-file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runCmdEnv(t, vars, tc.args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, errs, tc.want)
			assert.Empty(t, out, "nothing but the protocol goes to stdout")
		})
	}
	code, out, _ := runCmdEnv(t, nil, "mcp", "--help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, out, "testresults://jobs/{id}/tests")
}

// TestMCPOverHTTPCommand runs the command with --http on 127.0.0.1, lists
// its tools with the SDK's client, and stops it by cancelling its context
// (what SIGINT or SIGTERM does).
func TestMCPOverHTTPCommand(t *testing.T) {
	vars := map[string]string{"HANGAR_STORE": filepath.Join(t.TempDir(), "s.db")}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &lockedBuffer{}
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"mcp", "--http", "127.0.0.1:0"}, Env{
			Stdin: strings.NewReader(""), Stdout: &lockedBuffer{}, Stderr: stderr,
			Getenv: func(k string) string { return vars[k] }, Environ: func() []string { return nil },
		})
	}()
	var endpoint string
	deadline := time.Now().Add(20 * time.Second)
	for endpoint == "" {
		if _, rest, ok := strings.Cut(stderr.String(), "listening on "); ok {
			endpoint, _, _ = strings.Cut(rest, "\n")
			break
		}
		require.True(t, time.Now().Before(deadline), "the server did not start: %s", stderr.String())
		time.Sleep(20 * time.Millisecond)
	}
	require.True(t, strings.HasPrefix(endpoint, "http://127.0.0.1:"), endpoint)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: endpoint, DisableStandaloneSSE: true}, nil)
	require.NoError(t, err)
	n := 0
	for _, err := range cs.Tools(ctx, nil) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)
	cs.Close()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, exitOK, code, stderr.String())
	case <-time.After(30 * time.Second):
		t.Fatal("mcp did not stop when its context was cancelled")
	}
	assert.Contains(t, stderr.String(), "testresults mcp: stopped")
}
