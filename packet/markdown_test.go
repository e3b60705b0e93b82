package packet

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

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
	_, err := fmt.Sscanf(md[strings.Index(md, "…and "):], "…and %d more", &left)
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
