package junit

import (
	"bytes"
	"fmt"
	"iter"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/testrun"
)

// TestFileAndLine: a testcase's file attribute and its line attribute (a
// positive integer; anything else is unknown) are where the execution is
// written; pytest counts its lines from 0, so its line 9 is line 10. A
// failure message's file:line is never read as the case's place.
func TestFileAndLine(t *testing.T) {
	long := strings.Repeat("a", 1025)
	type place struct {
		file string
		line int
	}
	for _, tc := range []struct {
		name string
		doc  string
		want []place
	}{
		{
			name: "generic: lines from 1, bad lines unknown, files interned",
			doc: `<testsuites><testsuite name="S">
<testcase classname="c" name="a" file="tests/a.php" line="12"/>
<testcase classname="c" name="b" file="tests/a.php" line="0"/>
<testcase classname="c" name="c" file="tests/b.php" line="-3"/>
<testcase classname="c" name="d" line="+4"/>
<testcase classname="c" name="e" line="1.5"/>
<testcase classname="c" name="f" line=" 7"/>
<testcase classname="c" name="g" line="99999999999999999999"/>
<testcase classname="c" name="h" line="2147483647" file="` + long + `"/>
<testcase classname="c" name="i"><failure message="x">at tests/x.php:40</failure></testcase>
</testsuite></testsuites>`,
			want: []place{{"tests/a.php", 12}, {"tests/a.php", 0}, {"tests/b.php", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 0}, {"", 2147483647}, {"", 0}},
		},
		{
			name: "pytest: lines from 0",
			doc: `<testsuites><testsuite name="pytest">
<testcase classname="t" name="a" file="t.py" line="9"/>
<testcase classname="t" name="b" file="t.py" line="0"/>
<testcase classname="t" name="c" file="t.py" line="2147483647"/>
</testsuite></testsuites>`,
			want: []place{{"t.py", 10}, {"t.py", 1}, {"t.py", 0}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Parse(strings.NewReader(tc.doc), "r.xml")
			require.NoError(t, err)
			var got []place
			for _, e := range rep.Executions {
				got = append(got, place{e.File, e.Line})
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestFileAndLineInBatches: executions handed over in batches while the
// report is read carry their place too, the same as read whole.
func TestFileAndLineInBatches(t *testing.T) {
	data := withFileLine(genReport(1 << 20))
	whole, err := Parse(bytes.NewReader(data), "r.xml")
	require.NoError(t, err)
	require.NotEmpty(t, whole.Executions)
	var fed []string
	_, err = Parse(bytes.NewReader(data), "r.xml", parseopt.WithBatches(func(execs iter.Seq[*testrun.Execution]) {
		for e := range execs {
			fed = append(fed, fmt.Sprintf("%s %s:%d", e.ID, e.File, e.Line))
		}
	}))
	require.NoError(t, err)
	var want []string
	for _, e := range whole.Executions {
		require.NotEmpty(t, e.File)
		want = append(want, fmt.Sprintf("%s %s:%d", e.ID, e.File, e.Line))
	}
	assert.Equal(t, want, fed)
}

// withFileLine gives every testcase of a generated report a file (one per
// suite) and a line.
func withFileLine(data []byte) []byte {
	var out bytes.Buffer
	n := 0
	for {
		i := bytes.Index(data, []byte("<testcase "))
		if i < 0 {
			out.Write(data)
			return out.Bytes()
		}
		out.Write(data[:i])
		fmt.Fprintf(&out, `<testcase file="src/test/java/com/example/Suite%d.java" line="%d" `, n/50, 10+n%50*7)
		data = data[i+len("<testcase "):]
		n++
	}
}

// BenchmarkParseFileLine parses a 6 MiB report as generated and with a
// file and a line on every testcase: the allocations stay flat (one string
// per distinct file, none per case).
func BenchmarkParseFileLine(b *testing.B) {
	plain := genReport(6 << 20)
	for _, tc := range []struct {
		name string
		data []byte
	}{{"plain", plain}, {"file-line", withFileLine(plain)}} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(tc.data), "bench.xml"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
