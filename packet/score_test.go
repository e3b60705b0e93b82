package packet

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestPacketScores: a failing test given a flakiness score (WithScores)
// has it beside it, in Markdown and HTML, with and without a base; a
// failing test without one shows none, and a score never changes what is
// a new failure.
func TestPacketScores(t *testing.T) {
	build := func(id string, kind testrun.Kind, execs []testrun.Execution) *testrun.Run {
		n := len(execs)
		b := testrun.NewBuilder()
		b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, execs, nil)
		r := b.Build()
		r.ID, r.Kind = id, kind
		return r
	}
	base := build("base", testrun.KindBase, []testrun.Execution{
		{ID: "pkg::scored", Scope: "s", Outcome: testrun.OutcomePassed},
		{ID: "pkg::plain", Scope: "s", Outcome: testrun.OutcomePassed},
		{ID: "pkg::fresh", Scope: "s", Outcome: testrun.OutcomePassed},
	})
	after := build("after", testrun.KindAfterTurn, []testrun.Execution{
		{ID: "pkg::scored", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "boom"},
		{ID: "pkg::plain", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "boom"},
		{ID: "pkg::fresh", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "boom"},
	})
	scores := WithScores(map[string]testrun.Flakiness{
		"pkg::scored": {FailureRate: 0.3125, Evidence: 12, Flips: 7, FlipRate: 7.0 / 49, FlipWindowRuns: 50, Flaky: true},
		"pkg::fresh":  {FailureRate: 0.5, FlipWindowRuns: 1},
		"pkg::passes": {FailureRate: 0.9, Evidence: 40, FlipWindowRuns: 40},
	})
	for name, in := range map[string]Input{
		"base":    {After: after, Base: base, Comparison: testrun.Compare(base, after)},
		"no base": {After: after, Comparison: testrun.Compare(nil, after)},
	} {
		t.Run(name, func(t *testing.T) {
			var md, html bytes.Buffer
			require.NoError(t, Markdown(&md, in, scores))
			require.NoError(t, HTML(&html, in, scores))
			assert.Contains(t, md.String(), "**failed**: pkg\\:\\:scored\n\nFlakiness score: failure rate 0\\.31 over 12 outcomes\\, 7 flips in the last 50 runs\n")
			assert.Contains(t, md.String(), "**failed**: pkg\\:\\:fresh\n\nFlakiness score: no failure\\-rate evidence\\, 0 flips in the last 1 runs\n")
			assert.Contains(t, md.String(), "**failed**: pkg\\:\\:plain\n\n```\nboom", "no score, no score line")
			assert.Equal(t, 2, strings.Count(md.String(), "Flakiness score:"), "only failing tests with a score")
			assert.Contains(t, html.String(), "<p>Flakiness score: failure rate 0.31 over 12 outcomes, 7 flips in the last 50 runs</p>")
			assert.Equal(t, 2, strings.Count(html.String(), "Flakiness score:"))

			var plain bytes.Buffer
			require.NoError(t, Markdown(&plain, in))
			assert.NotContains(t, plain.String(), "Flakiness score", "no scores given, none shown")
			if in.Base != nil {
				assert.Contains(t, md.String(), "3 new failures against the base.", "a score excuses nothing")
			}
		})
	}
}
