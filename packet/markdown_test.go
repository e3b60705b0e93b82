package packet

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// worstCase is a run whose every list is long and whose ids grow the most
// when escaped (punctuation and control characters).
func worstCase(t *testing.T) Input {
	t.Helper()
	var base, after []testrun.Execution
	nasty := strings.Repeat("|`<*_\x01", 100)
	for i := range 200 {
		nid := fmt.Sprintf("new%03d%s", i, nasty)
		fid := fmt.Sprintf("fix%03d%s", i, nasty)
		base = append(base, testrun.Execution{ID: nid, Scope: "s", Outcome: testrun.OutcomePassed},
			testrun.Execution{ID: fid, Scope: "s", Outcome: testrun.OutcomeFailed, Message: "was"})
		after = append(after, testrun.Execution{ID: nid, Scope: "s", Outcome: testrun.OutcomeFailed, Message: strings.Repeat("`x\x02", 700)},
			testrun.Execution{ID: fid, Scope: "s", Outcome: testrun.OutcomePassed},
			testrun.Execution{ID: fmt.Sprintf("flaky%03d%s", i, nasty), Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true})
	}
	build := func(id string, kind testrun.Kind, execs []testrun.Execution) *testrun.Run {
		n := len(execs)
		b := testrun.NewBuilder(testrun.WithMaxFailures(1000))
		b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, execs, nil)
		r := b.Build()
		r.ID, r.Kind = id, kind
		return r
	}
	b, a := build("base", testrun.KindBase, base), build("after", testrun.KindAfterTurn, after)
	c := testrun.Compare(b, a, testrun.WithFlakyList(nil))
	require.True(t, c.Available, c.Unavailable)
	require.Len(t, c.NewFailures, 200)
	return Input{After: a, Base: b, Comparison: c, FlakyList: "repository r"}
}

func TestMarkdownBounded(t *testing.T) {
	in := worstCase(t)
	var buf bytes.Buffer
	require.NoError(t, Markdown(&buf, in))
	md := buf.String()
	assert.LessOrEqual(t, len(md), MaxMarkdownBytes)
	assert.Contains(t, md, "### New failures (200)")
	// The size, not only the 50-entry cap, left new failures out.
	var left int
	_, more, found := strings.Cut(md, "…and ")
	require.True(t, found, "no \"…and N more\" line")
	_, err := fmt.Sscanf(more, "%d more", &left)
	require.NoError(t, err)
	assert.Greater(t, left, 200-DefaultMaxItems)
	assert.Contains(t, md, "(message not shown: the packet is kept short)")
	assert.Contains(t, md, "Flaky list: repository r.")
	assert.NotContains(t, md, "\x01")
	assert.NotContains(t, md, "\x02")
}

func TestOptionsCapLists(t *testing.T) {
	in := worstCase(t)
	for _, tc := range []struct {
		name string
		opts []Option
		want string
	}{
		{"default", nil, "…and 150 more not shown."},
		{"ten", []Option{WithMaxItems(10)}, "…and 190 more not shown."},
		{"zero keeps the default", []Option{WithMaxItems(0)}, "…and 150 more not shown."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, HTML(&buf, in, append(tc.opts, WithMaxMessage(100))...))
			assert.Contains(t, buf.String(), tc.want)
			assert.NotContains(t, buf.String(), "\x01")
		})
	}
}

func TestNoRun(t *testing.T) {
	var buf bytes.Buffer
	assert.ErrorIs(t, Markdown(&buf, Input{}), ErrNoRun)
	assert.ErrorIs(t, HTML(&buf, Input{}), ErrNoRun)
	assert.Empty(t, buf.String())
}

func TestMdText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"pkg.T::ok", `pkg\.T\:\:ok`},
		{"a|b", `a\|b`},
		{"<script>", `\<script\>`},
		{"`code`", "\\`code\\`"},
		{"*b* _i_ [l](u) @me #1 ~s~", `\*b\* \_i\_ \[l\]\(u\) \@me \#1 \~s\~`},
		{"line\nnext\tcol", `line\\nnext\\tcol`},
		{`back\slash`, `back\\slash`},
		{"héllo wörld", "héllo wörld"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, mdText(tc.in))
		})
	}
}

func TestFenceFor(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain", "```"},
		{"a ` b `` c", "```"},
		{"```", "````"},
		{"x ````` y", "``````"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			assert.Equal(t, tc.want, fenceFor(tc.in))
		})
	}
}

// TestNotRunShown: the expected tests that never ran are listed with how
// many there are, beyond the run's own list too; a run not checked, or one
// whose expected tests all ran, shows no such list.
func TestNotRunShown(t *testing.T) {
	var ids []string
	for i := range 1000 {
		ids = append(ids, fmt.Sprintf("pkg.T::never_%04d|`<b>", i))
	}
	run := func(expect []string) *testrun.Run {
		n := 1
		b := testrun.NewBuilder()
		b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, []testrun.Execution{{ID: "pkg.T::ran", Scope: "s", Outcome: testrun.OutcomePassed}}, nil)
		r := b.Build()
		r.ID, r.Kind = "after", testrun.KindAfterTurn
		if expect != nil {
			r.ExpectIDs(expect)
		}
		return r
	}
	render := func(r *testrun.Run) (string, string) {
		in := Input{After: r, Comparison: testrun.Compare(nil, r)}
		var md, html bytes.Buffer
		require.NoError(t, Markdown(&md, in))
		require.NoError(t, HTML(&html, in))
		return md.String(), html.String()
	}

	md, html := render(run(append([]string{"pkg.T::ran"}, ids...)))
	assert.Contains(t, md, "### Expected tests that never ran (1000)\n\n- pkg\\.T\\:\\:never\\_0000\\|\\`\\<b\\>\n")
	assert.Contains(t, md, "…and 950 more not shown")
	assert.NotContains(t, md, "never\\_0050", "the list shows DefaultMaxItems entries")
	assert.Contains(t, md, "1000 expected tests never ran")
	assert.Contains(t, md, "incomplete, not counted")
	assert.Contains(t, html, "<h2>Expected tests that never ran (1000)</h2>")
	assert.Contains(t, html, "<li>pkg.T::never_0000|`&lt;b&gt;</li>")
	assert.Contains(t, html, "<p>…and 950 more not shown.</p>")

	for name, r := range map[string]*testrun.Run{"not checked": run(nil), "all ran": run([]string{"pkg.T::ran"})} {
		md, html := render(r)
		assert.NotContains(t, md, "never ran", name)
		assert.NotContains(t, html, "never ran", name)
		assert.Contains(t, md, "complete, counted", name)
	}
}

// TestPacketRerunCommands: each failure of a run from a runner that takes
// one test comes with the command that reruns it, shown exactly (a code
// span no backtick of the test's name can close; HTML-escaped in HTML).
func TestPacketRerunCommands(t *testing.T) {
	run, err := report.ReadRun([]string{"../testdata/runners/go/reports/gotestsum.xml"})
	require.NoError(t, err)
	in := Input{After: run, Comparison: testrun.Compare(nil, run), Repository: "../testdata/runners/go"}
	var md, html bytes.Buffer
	require.NoError(t, Markdown(&md, in))
	require.NoError(t, HTML(&html, in))
	assert.Contains(t, md.String(), "**failed**: example\\.com\\/runnersample\\/calc\\:\\:TestFailure\n\nRerun: `go test -count=1 -run '^TestFailure$' ./calc`\n")
	assert.Contains(t, md.String(), "Rerun: `go test -count=1 -run '^TestOuter$/^inner$/^deeper_fails$' ./calc`")
	assert.Contains(t, html.String(), "<p>Rerun: <code>go test -count=1 -run &#39;^TestFailure$&#39; ./calc</code></p>")

	in.Repository = ""
	md.Reset()
	require.NoError(t, Markdown(&md, in))
	assert.Contains(t, md.String(), "Rerun: `go test -count=1 -run '^TestFailure$' example.com/runnersample/calc`", "no repository: the import path")

	n := 1
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "jest-junit", Tests: &n},
		[]testrun.Execution{{ID: "a `b` c::a `b` c", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "no"}}, nil)
	jr := b.Build()
	jr.ID = "j"
	md.Reset()
	require.NoError(t, Markdown(&md, Input{After: jr, Comparison: testrun.Compare(nil, jr)}))
	assert.Contains(t, md.String(), "Rerun: ``npx jest -t '^a `b` c$'``\n")

	b = testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "surefire", Tests: &n},
		[]testrun.Execution{{ID: "calc.CalcTest::fails", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "no"}}, nil)
	sr := b.Build()
	sr.ID = "s"
	md.Reset()
	require.NoError(t, Markdown(&md, Input{After: sr, Comparison: testrun.Compare(nil, sr)}))
	assert.NotContains(t, md.String(), "Rerun:", "no command for a runner that takes no test id")
}
