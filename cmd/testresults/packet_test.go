package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/packet"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

var updatePacket = flag.Bool("update", false, "rewrite the golden files of testdata/packet")

// runSpec describes a run a golden case builds with testrun.Builder.
type runSpec struct {
	id         string
	kind       testrun.Kind
	execs      []testrun.Execution
	rate       *float64 // line rate of one coverage report; nil: no coverage
	incomplete []string
	// expect, when set, checks the run against these expected tests.
	expect []string
}

func (s runSpec) build(t *testing.T) []byte {
	t.Helper()
	n := len(s.execs)
	b := testrun.NewBuilder(testrun.WithMaxMessage(20000))
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "junit", Tests: &n}, s.execs, nil)
	if s.rate != nil {
		b.AddReport(testrun.ReportInfo{Path: "coverage.xml", Dialect: "cobertura"}, nil, &testrun.CoverageReport{LineRate: s.rate})
	}
	for _, r := range s.incomplete {
		b.Incomplete(r)
	}
	r := b.Build()
	r.ID, r.Kind = s.id, s.kind
	if s.expect != nil {
		r.ExpectIDs(s.expect)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	_, err = testrun.ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err, "the fixture must pass the strict reader")
	return append(data, '\n')
}

func pkPass(id string) testrun.Execution {
	return testrun.Execution{ID: id, Scope: "s", Outcome: testrun.OutcomePassed}
}

func pkFail(id, msg string) testrun.Execution {
	return testrun.Execution{ID: id, Scope: "s", Outcome: testrun.OutcomeFailed, Message: msg}
}

func pkError(id, msg string) testrun.Execution {
	return testrun.Execution{ID: id, Scope: "s", Outcome: testrun.OutcomeError, Message: msg}
}

func pkSkip(id string) testrun.Execution {
	return testrun.Execution{ID: id, Scope: "s", Outcome: testrun.OutcomeSkipped}
}

func pkRetry(id string) testrun.Execution {
	return testrun.Execution{ID: id, Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true}
}

func pkRate(f float64) *float64 { return &f }

type packetCase struct {
	name  string
	base  *runSpec // nil: no --base
	after runSpec
	// flaky, when set, records these runner-retried ids for repository
	// "acme/app" in a store and passes it with --repo.
	flaky []string
	check func(t *testing.T, md, html string)
}

func hostileID(i int) string {
	return fmt.Sprintf("pkg.T::<script>alert(%d)</script>|col|`tick`*b*_i_[l](http://x)@octocat\x1b[31m\r\u202e#%d", i, i)
}

func packetCases() []packetCase {
	flakyRun := runSpec{id: "after-flaky", kind: testrun.KindAfterTurn, execs: []testrun.Execution{
		pkPass("pkg.T::a"), pkRetry("pkg.T::onlist"), pkRetry("pkg.T::offlist"),
	}, rate: pkRate(0.5)}
	bigMsg := "```\n</details>\n# heading\n" + strings.Repeat("`", 7) + "\n" + strings.Repeat("x", 4000) + "\n" + strings.Repeat("y", 6000)
	var sizeBase, sizeAfter []testrun.Execution
	for i := range 60 {
		id := fmt.Sprintf("pkg.Size::%03d_%s", i, strings.Repeat("n", 100))
		sizeBase = append(sizeBase, pkPass(id))
		sizeAfter = append(sizeAfter, pkFail(id, strings.Repeat(fmt.Sprintf("message %d ", i), 140)))
		fid := fmt.Sprintf("pkg.Fixed::%03d", i)
		sizeBase = append(sizeBase, pkFail(fid, "was broken"))
		sizeAfter = append(sizeAfter, pkPass(fid), pkRetry(fmt.Sprintf("pkg.Flaky::%03d", i)))
	}
	return []packetCase{
		{
			name: "new-failures",
			base: &runSpec{id: "base-1", kind: testrun.KindBase, execs: []testrun.Execution{
				pkFail("pkg.T::old", "still broken"), pkPass("pkg.T::b"), pkPass("pkg.T::c"), pkFail("pkg.T::d", "was broken"), pkSkip("pkg.T::s"),
			}, rate: pkRate(0.8)},
			after: runSpec{id: "after-1", kind: testrun.KindAfterTurn, execs: []testrun.Execution{
				pkFail("pkg.T::old", "still broken"), pkFail("pkg.T::b", "expected 1, got 2"), pkError("pkg.T::c", "panic: nil map"), pkPass("pkg.T::d"), pkSkip("pkg.T::s"),
			}, rate: pkRate(0.8125)},
			check: func(t *testing.T, md, html string) {
				assert.Contains(t, md, "2 new failures against the base")
				assert.Contains(t, md, "Line coverage: 81.25%, change against the base: +1.25 points")
				assert.Contains(t, html, "&#43;1.25 points")
				assert.Contains(t, md, "its own failures: 2")
				assert.Contains(t, md, "<details><summary>Fixed (1)</summary>")
			},
		},
		{
			name: "unavailable-incomplete",
			base: &runSpec{id: "base-2", kind: testrun.KindBase, execs: []testrun.Execution{pkPass("pkg.T::a")}, rate: pkRate(0.9)},
			after: runSpec{id: "after-2", kind: testrun.KindAfterTurn, execs: []testrun.Execution{
				pkFail("pkg.T::a", "boom"),
			}, rate: pkRate(0.85), incomplete: []string{"reports/junit-2.xml: limit: more than 100000 test cases"}},
			check: func(t *testing.T, md, html string) {
				assert.Contains(t, md, "**Comparison unavailable: ")
				assert.Contains(t, md, "incomplete")
				assert.NotContains(t, md, "No new failures")
				assert.NotContains(t, html, "No new failures")
				assert.Contains(t, md, "-5.00 points")
			},
		},
		{
			name:  "no-base",
			after: runSpec{id: "after-3", kind: testrun.KindAfterTurn, execs: []testrun.Execution{pkPass("pkg.T::a"), pkSkip("pkg.T::b"), pkFail("pkg.T::c", "bad")}},
			check: func(t *testing.T, md, html string) {
				assert.Contains(t, md, "No base run given")
				assert.Contains(t, md, "Line coverage: unknown")
				assert.NotContains(t, md, "change against the base")
				assert.Contains(t, md, "### Failures (1)\n\n**failed**: pkg\\.T\\:\\:c\n\n```\nbad\n```\n\nFlaky")
				assert.Contains(t, html, "<h2>Failures (1)</h2>")
				assert.NotContains(t, md, "New failures")
			},
		},
		{
			name:  "flaky-on-list",
			base:  &runSpec{id: "base-4", kind: testrun.KindBase, execs: []testrun.Execution{pkPass("pkg.T::a")}},
			after: flakyRun,
			flaky: []string{"pkg.T::onlist"},
			check: func(t *testing.T, md, html string) {
				assert.Contains(t, md, "pkg\\.T\\:\\:onlist — on the flaky list")
				assert.Contains(t, md, "pkg\\.T\\:\\:offlist — not on the flaky list")
				assert.Contains(t, md, "change against the base: unknown")
				assert.Contains(t, html, "pkg.T::onlist — on the flaky list")
			},
		},
		{
			name:  "flaky-no-list",
			base:  &runSpec{id: "base-4", kind: testrun.KindBase, execs: []testrun.Execution{pkPass("pkg.T::a")}},
			after: flakyRun,
			check: func(t *testing.T, md, html string) {
				assert.NotContains(t, md, "on the flaky list")
				assert.Contains(t, md, "Flaky list not read")
				assert.Contains(t, html, "Flaky list not read")
			},
		},
		{
			name: "hostile",
			base: &runSpec{id: "base-5", kind: testrun.KindBase, execs: []testrun.Execution{pkPass(hostileID(1)), pkPass(hostileID(2))}, rate: pkRate(0.5)},
			after: runSpec{id: "after-5 <b>|`x`", kind: testrun.KindAfterTurn, execs: []testrun.Execution{
				pkFail(hostileID(1), "<script>alert('m')</script> | ``` \x07\x1b]0;title\x07 @octocat"), pkFail(hostileID(2), bigMsg),
			}, rate: pkRate(0.5)},
			check: func(t *testing.T, md, html string) {
				assert.NotContains(t, html, "<script")
				assert.NotRegexp(t, `(^|[^\\])<script`, outsideFences(t, md), "only fenced code holds a message as it is")
				for _, out := range []string{md, html} {
					assert.NotContains(t, out, "\x1b")
					assert.NotContains(t, out, "\x07")
					assert.NotContains(t, out, "\r")
					assert.NotContains(t, out, "\u202e")
				}
				assert.NotContains(t, html, "<b>after")
				assert.NotRegexp(t, `(^|[^\\])<b>`, outsideFences(t, md))
				assert.Contains(t, md, `\<script\>alert\(1\)\<\/script\>\|col\|\`+"`tick\\`")
				assert.Contains(t, md, `\@octocat`)
				assert.Contains(t, md, "\n"+strings.Repeat("`", 8)+"\n", "the fence is longer than the message's longest backtick run")
				assert.Contains(t, html, "&lt;script&gt;alert(1)&lt;/script&gt;|col|")
				assert.Contains(t, md, "…\n", "the 10,000-character message is clipped")
				assert.Contains(t, md, "change against the base: ±0.00 points")
			},
		},
		{
			name: "not-run",
			base: &runSpec{id: "base-7", kind: testrun.KindBase, execs: []testrun.Execution{pkPass("test_calc::test_adds"), pkPass("test_parse::test_parses_int")}},
			after: runSpec{id: "after-7", kind: testrun.KindAfterTurn, execs: []testrun.Execution{
				pkPass("test_calc::test_adds"), pkError("test_parse", "collection failure\nE   ModuleNotFoundError: No module named 'parse_helper'"),
			}, expect: []string{"test_calc::test_adds", "test_parse::test_parses_int", "test_parse::`x`|<b>"}},
			check: func(t *testing.T, md, html string) {
				assert.Contains(t, md, "### Expected tests that never ran (2)\n\n- test\\_parse\\:\\:\\`x\\`\\|\\<b\\>\n- test\\_parse\\:\\:test\\_parses\\_int\n")
				assert.Contains(t, md, "Run after\\-7: incomplete, not counted.")
				assert.Contains(t, md, "**Comparison unavailable: ", "an incomplete run has no exact comparison")
				assert.Contains(t, html, "<h2>Expected tests that never ran (2)</h2>")
				assert.Contains(t, html, "<li>test_parse::`x`|&lt;b&gt;</li>")
			},
		},
		{
			name:  "size-cap",
			base:  &runSpec{id: "base-6", kind: testrun.KindBase, execs: sizeBase},
			after: runSpec{id: "after-6", kind: testrun.KindAfterTurn, execs: sizeAfter},
			check: func(t *testing.T, md, html string) {
				assert.LessOrEqual(t, len(md), packet.MaxMarkdownBytes)
				assert.Contains(t, md, "60 new failures against the base")
				assert.Contains(t, md, "more not shown")
				assert.Contains(t, md, "<details><summary>Fixed (60)</summary>")
				assert.Contains(t, md, "<details><summary>Flaky (60)</summary>")
				assert.Contains(t, html, "…and 10 more not shown.")
				assert.Less(t, len(html), 200_000)
			},
		},
	}
}

// TestPacketGolden renders every case in both formats through the command
// and compares with testdata/packet/<case>/expected.{md,html}; -update
// rewrites the runs and the expected files.
func TestPacketGolden(t *testing.T) {
	for _, tc := range packetCases() {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join("testdata", "packet", tc.name)
			after := tc.after.build(t)
			var base []byte
			if tc.base != nil {
				base = tc.base.build(t)
			}
			if *updatePacket {
				require.NoError(t, os.MkdirAll(dir, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, "after.json"), after, 0o644))
				if base != nil {
					require.NoError(t, os.WriteFile(filepath.Join(dir, "base.json"), base, 0o644))
				}
			} else {
				// The runs on disk are the ones the case describes.
				got, err := os.ReadFile(filepath.Join(dir, "after.json"))
				require.NoError(t, err)
				require.Equal(t, string(after), string(got))
				if base != nil {
					got, err := os.ReadFile(filepath.Join(dir, "base.json"))
					require.NoError(t, err)
					require.Equal(t, string(base), string(got))
				}
			}

			args := []string{}
			vars := map[string]string{}
			if tc.base != nil {
				args = append(args, "--base", filepath.Join(dir, "base.json"))
			}
			if tc.flaky != nil {
				db := filepath.Join(t.TempDir(), "store.db")
				recordFlaky(t, db, tc.flaky)
				args = append(args, "--flaky-store", db, "--repo", "acme/app")
			}
			args = append(args, filepath.Join(dir, "after.json"))

			outs := map[string]string{}
			for format, file := range map[string]string{"markdown": "expected.md", "html": "expected.html"} {
				code, out, stderr := runCmdEnv(t, vars, append([]string{"packet", "--format", format}, args...)...)
				require.Equal(t, exitOK, code, stderr)
				assert.Empty(t, stderr)
				require.True(t, utf8.ValidString(out))
				outs[format] = out
				p := filepath.Join(dir, file)
				if *updatePacket {
					require.NoError(t, os.WriteFile(p, []byte(out), 0o644))
					continue
				}
				want, err := os.ReadFile(p)
				require.NoError(t, err)
				assert.Equal(t, string(want), out, "%s differs from the golden file (go test -run TestPacketGolden -update)", p)
			}
			tc.check(t, outs["markdown"], outs["html"])
		})
	}
}

// recordFlaky records, with the store API, one trusted run of repository
// acme/app in which the runner retried ids and they passed.
func recordFlaky(t *testing.T, db string, ids []string) {
	t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, db)
	require.NoError(t, err)
	defer st.Close()
	execs := make([]testrun.Execution, len(ids))
	for i, id := range ids {
		execs[i] = pkRetry(id)
	}
	n := len(execs)
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "junit", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID, r.Kind = "earlier-run", testrun.KindBase
	rec, err := st.Record(ctx, "acme/app", "default", r)
	require.NoError(t, err)
	require.Len(t, rec.Flaky, len(ids))
}

func TestPacketExitCodes(t *testing.T) {
	dir := t.TempDir()
	good := writeRun(t, dir, "good", testrun.KindAfterTurn, "", map[string]testrun.Outcome{"a": testrun.OutcomePassed})
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte(`{"id":"x"}`), 0o644))
	for _, tc := range []struct {
		name string
		args []string
		want int
	}{
		{"written", []string{good}, exitOK},
		{"written with base", []string{"--base", good, good}, exitOK},
		{"help", []string{"--help"}, exitOK},
		{"no run", nil, exitUsage},
		{"two runs", []string{good, good}, exitUsage},
		{"bad format", []string{"--format", "pdf", good}, exitUsage},
		{"store without repo", []string{"--flaky-store", filepath.Join(dir, "s.db"), good}, exitUsage},
		{"both from stdin", []string{"--base", "-", "-"}, exitUsage},
		{"after unreadable", []string{bad}, exitRejected},
		{"after missing", []string{filepath.Join(dir, "none.json")}, exitRejected},
		{"base unreadable", []string{"--base", bad, good}, exitRejected},
		{"store unsupported", []string{"--flaky-store", "mysql://x", "--repo", "r", good}, exitRejected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, append([]string{"packet"}, tc.args...)...)
			assert.Equal(t, tc.want, code, stderr)
		})
	}
}

// TestPacketStoreFromEnv: with --repo and no --flaky-store, the list is
// read from $HANGAR_STORE.
func TestPacketStoreFromEnv(t *testing.T) {
	db := filepath.Join(t.TempDir(), "store.db")
	recordFlaky(t, db, []string{"pkg.T::onlist"})
	dir := filepath.Join("testdata", "packet", "flaky-on-list")
	code, out, stderr := runCmdEnv(t, map[string]string{"HANGAR_STORE": db}, "packet", "--repo", "acme/app", filepath.Join(dir, "after.json"))
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "pkg\\.T\\:\\:onlist — on the flaky list")
	assert.Contains(t, out, "pkg\\.T\\:\\:offlist — not on the flaky list")
}

// TestPacketFlakyListAtJobStart: the packet marks a flaky test on the list
// only by an entry that was on it when the job started, as run marks
// flaky_on_list; without --job-start the list as it stands now.
func TestPacketFlakyListAtJobStart(t *testing.T) {
	db := filepath.Join(t.TempDir(), "store.db")
	recordFlaky(t, db, []string{"pkg.T::onlist"})
	after := filepath.Join("testdata", "packet", "flaky-on-list", "after.json")
	before := time.Now().Add(-time.Hour).UTC().Format(time.RFC3339)
	code, out, stderr := runCmdEnv(t, nil, "packet", "--flaky-store", db, "--repo", "acme/app", "--job-start", before, after)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, out, "pkg\\.T\\:\\:onlist — not on the flaky list", "recorded after the job started")
	code, _, stderr = runCmdEnv(t, nil, "packet", "--flaky-store", db, "--repo", "acme/app", "--job-start", "yesterday", after)
	assert.Equal(t, exitUsage, code, stderr)
	code, _, stderr = runCmdEnv(t, nil, "packet", "--job-start", before, after)
	assert.Equal(t, exitUsage, code, stderr)
	assert.Contains(t, stderr, "need --repo")
}

// outsideFences returns md without its fenced code blocks, checking that
// every block that opens also closes.
func outsideFences(t *testing.T, md string) string {
	t.Helper()
	var out strings.Builder
	fence := ""
	for _, line := range strings.Split(md, "\n") {
		switch {
		case fence == "" && strings.HasPrefix(line, "```"):
			fence = line
		case fence != "" && line == fence:
			fence = ""
		case fence == "":
			out.WriteString(line + "\n")
		}
	}
	require.Empty(t, fence, "a fenced block is left open")
	return out.String()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

// TestPacketWriteFails: a packet that cannot be written is exit 1, not a
// silent success.
func TestPacketWriteFails(t *testing.T) {
	dir := t.TempDir()
	good := writeRun(t, dir, "good", testrun.KindAfterTurn, "", map[string]testrun.Outcome{"a": testrun.OutcomePassed})
	for _, format := range []string{"markdown", "html"} {
		t.Run(format, func(t *testing.T) {
			var errb strings.Builder
			code := run(context.Background(), []string{"packet", "--format", format, good}, Env{
				Stdin: strings.NewReader(""), Stdout: failingWriter{}, Stderr: &errb,
				Getenv: func(string) string { return "" }, Environ: func() []string { return nil },
			})
			assert.Equal(t, exitFailed, code)
			assert.Contains(t, errb.String(), "testresults packet:")
		})
	}
}
