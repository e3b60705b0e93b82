package junit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestJoinMessage checks the attribute-and-text join, cut on a rune
// boundary within max bytes.
func TestJoinMessage(t *testing.T) {
	tests := []struct {
		name, attr, text string
		max              int
		want             string
	}{
		{name: "no text", attr: "Failed", text: "", max: 100, want: "Failed"},
		{name: "attribute holds the text", attr: "expected 1 got 2", text: "got 2", max: 100, want: "expected 1 got 2"},
		{name: "no attribute", attr: "", text: "trace", max: 100, want: "trace"},
		{name: "text starts with the attribute", attr: "boom", text: "boom\n\tat x", max: 100, want: "boom\n\tat x"},
		{name: "both", attr: "Failed", text: "trace", max: 100, want: "Failed\ntrace"},
		{name: "cut in the text", attr: "ab", text: "cdef", max: 5, want: "ab\ncd"},
		{name: "cut at the line end", attr: "ab", text: "cdef", max: 3, want: "ab\n"},
		{name: "cut in the attribute", attr: "abcd", text: "ef", max: 2, want: "ab"},
		{name: "cut before a rune of the text", attr: "a", text: "xé", max: 4, want: "a\nx"},
		{name: "cut before a rune of the attribute", attr: "aé", text: "zz", max: 2, want: "a"},
		{name: "max zero", attr: "a", text: "b", max: 0, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, joinMessage(tt.attr, []byte(tt.text), tt.max))
		})
	}
}

// TestSlab checks that ids keep their value while later ids fill and
// replace the slab's blocks, and that an id longer than a block fits.
func TestSlab(t *testing.T) {
	var s slab
	var want []string
	var refs []idRef
	add := func(b []byte) {
		want = append(want, string(b))
		refs = append(refs, s.add(b))
	}
	add(nil)
	buf := []byte{}
	for i := range 20000 {
		buf = fmt.Appendf(buf[:0], "pkg.Class%d::test_%d", i%13, i)
		add(buf)
		buf[0] = 'X' // the slab holds a copy
		if i == 5000 {
			add([]byte(strings.Repeat("é", slabMax)))
		}
	}
	add(nil)
	got := make([]string, len(refs))
	for i, r := range refs {
		got[i] = locate(s.blocks, s.b.String(), r)
	}
	require.Equal(t, want, got)
	assert.Greater(t, len(s.blocks), 5, "ids spread over several blocks")
}

// TestParseAllocations bounds the allocations of a parse: the ids of a
// report's cases share a few blocks rather than taking one allocation each.
func TestParseAllocations(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<testsuites><testsuite name="S">`)
	const cases = 2000
	for i := range cases {
		fmt.Fprintf(&b, `<testcase classname="pkg.Class%d" name="test_%d" time="0.1"/>`, i%7, i)
	}
	b.WriteString(`</testsuite></testsuites>`)
	doc := b.String()
	allocs := testing.AllocsPerRun(5, func() {
		rep, err := Parse(strings.NewReader(doc), "r.xml")
		if err != nil || len(rep.Executions) != cases {
			t.Fatal(err)
		}
	})
	t.Logf("%.0f allocations for %d cases", allocs, cases)
	assert.Less(t, allocs, float64(cases)/10, "allocations grow with the cases")
}
