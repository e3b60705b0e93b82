package packet

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestWriteFormats: ParseFormat reads the two names and refuses others;
// Write gives exactly what Markdown and HTML give.
func TestWriteFormats(t *testing.T) {
	for _, s := range []string{"markdown", "html"} {
		f, err := ParseFormat(s)
		require.NoError(t, err)
		assert.Equal(t, Format(s), f)
	}
	for _, s := range []string{"", "md", "HTML", "text"} {
		_, err := ParseFormat(s)
		assert.Error(t, err, s)
	}
	n := 1
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n},
		[]testrun.Execution{{ID: "pkg::t", Scope: "s", Outcome: testrun.OutcomeFailed, Message: "boom"}}, nil)
	after := b.Build()
	after.ID, after.Kind = "after", testrun.KindAfterTurn
	in := Input{After: after, Comparison: testrun.Compare(nil, after)}
	var md, html, wmd, whtml bytes.Buffer
	require.NoError(t, Markdown(&md, in))
	require.NoError(t, HTML(&html, in))
	require.NoError(t, Write(&wmd, FormatMarkdown, in))
	require.NoError(t, Write(&whtml, FormatHTML, in))
	assert.Equal(t, md.String(), wmd.String())
	assert.Equal(t, html.String(), whtml.String())
	assert.True(t, strings.HasPrefix(whtml.String(), "<!DOCTYPE html>") || strings.Contains(whtml.String(), "<html"), "HTML is a page")
}
