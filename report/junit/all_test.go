package junit

import (
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/testrun"
)

// TestAllMatchesExecutions checks that Report.All yields what Executions
// holds, in order, across the store's blocks and the slab's (5,000 cases,
// retries, failures with messages, untimed cases, several suites), and that
// batches (as ReadRun has them) hand over the same.
func TestAllMatchesExecutions(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<testsuites>`)
	for s := range 5 {
		fmt.Fprintf(&b, `<testsuite name="S%d">`, s)
		for i := range 1000 {
			switch {
			case i%17 == 0:
				fmt.Fprintf(&b, `<testcase classname="pkg.C%d" name="t%d" time="0.%03d"><failure message="boom %d">trace</failure></testcase>`, s, i, i, i)
			case i%29 == 0:
				fmt.Fprintf(&b, `<testcase classname="pkg.C%d" name="t%d"><skipped/></testcase>`, s, i)
			case i%31 == 0: // a retry of the case before
				fmt.Fprintf(&b, `<testcase classname="pkg.C%d" name="t%d" time="1"/>`, s, i-1)
			default:
				fmt.Fprintf(&b, `<testcase classname="pkg.C%d" name="%s%d" time="%d.5"/>`, s, strings.Repeat("é", i%40), i, i%3)
			}
		}
		b.WriteString(`</testsuite>`)
	}
	b.WriteString(`</testsuites>`)
	doc := b.String()

	rep, err := Parse(strings.NewReader(doc), "r.xml")
	require.NoError(t, err)
	require.Len(t, rep.Executions, 5000)
	assert.Equal(t, 5000, rep.Len())
	var got []testrun.Execution
	for e := range rep.All() {
		got = append(got, *e)
	}
	assert.Equal(t, rep.Executions, got)

	// Handed over in batches (as ReadRun has them), the executions are the
	// same, and the report keeps none.
	got = got[:0]
	lazy, err := Parse(strings.NewReader(doc), "r.xml", parseopt.WithBatches(func(execs iter.Seq[*testrun.Execution]) {
		for e := range execs {
			got = append(got, *e)
		}
	}))
	require.NoError(t, err)
	assert.Nil(t, lazy.Executions)
	assert.Equal(t, 5000, lazy.Len())
	assert.Equal(t, rep.Executions, got)
	for range lazy.All() {
		t.Fatal("a report whose executions were handed over yields one")
	}

	n := 0
	for range rep.All() {
		if n++; n == 10 {
			break // All stops when the loop does
		}
	}
	assert.Equal(t, 10, n)
}

// TestAllRefused checks that a refused report yields nothing.
func TestAllRefused(t *testing.T) {
	rep, err := Parse(strings.NewReader(`<testsuites><testsuite name="S"><testcase name="a"/>`), "r.xml")
	require.Error(t, err)
	assert.Zero(t, rep.Len())
	for range rep.All() {
		t.Fatal("a refused report yields an execution")
	}
}
