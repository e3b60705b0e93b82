package xmlsafe

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchReport is a JUnit report of the usual shape, about 1 MiB: indented
// suites of test cases with four attributes each, one in twenty failing
// with a message and a stack trace.
func benchReport() []byte {
	var b bytes.Buffer
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n")
	for s := 0; b.Len() < 1<<20; s++ {
		fmt.Fprintf(&b, "  <testsuite name=\"com.example.pkg%d.ServiceTest\" tests=\"40\" failures=\"2\" time=\"1.234\">\n", s)
		for c := range 40 {
			if c%20 == 7 {
				fmt.Fprintf(&b, "    <testcase classname=\"com.example.pkg%d.ServiceTest\" name=\"test_case_%d[param-%d]\" time=\"0.012\" file=\"src/test/ServiceTest.java\">\n", s, c, c%3)
				b.WriteString("      <failure message=\"expected: &lt;3&gt; but was: &lt;4&gt;\" type=\"org.opentest4j.AssertionFailedError\">org.opentest4j.AssertionFailedError: expected: &lt;3&gt; but was: &lt;4&gt;\n" +
					"\tat com.example.service.Handler.process(Handler.java:121)\n\tat com.example.service.ServiceTest.test(ServiceTest.java:42)\n</failure>\n")
				b.WriteString("    </testcase>\n")
				continue
			}
			fmt.Fprintf(&b, "    <testcase classname=\"com.example.pkg%d.ServiceTest\" name=\"test_case_%d[param-%d]\" time=\"0.012\" file=\"src/test/ServiceTest.java\"/>\n", s, c, c%3)
		}
		b.WriteString("  </testsuite>\n")
	}
	b.WriteString("</testsuites>\n")
	return b.Bytes()
}

// BenchmarkNext reads every token of a report, white space between tags
// skipped as the JUnit parser asks, and reads each attribute's value.
func BenchmarkNext(b *testing.B) {
	data := benchReport()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rd := NewReader(bytes.NewReader(data), "bench.xml", Limits{})
		rd.SkipSpace(true)
		n := 0
		for {
			tok, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			for i := range tok.Attrs {
				n += len(rd.Value(&tok.Attrs[i]))
			}
			n++
		}
		if n == 0 {
			b.Fatal("no tokens")
		}
	}
}
