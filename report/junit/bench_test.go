package junit

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/hangar-dev/testresults/internal/testmem"
	"github.com/hangar-dev/testresults/report/internal/xmlbaseline"
)

// genReport writes a JUnit report of about size bytes the way a large Java
// or Python suite would: properties, passing cases, one in ten failing with
// a message and a stack trace, one in twenty skipped, captured output.
func genReport(size int) []byte {
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<testsuites name=\"bench\">\n")
	trace := strings.Repeat("\tat com.example.service.Handler.process(Handler.java:123)\n", 12)
	out := strings.Repeat("2024-01-01 12:00:00 INFO  request handled &amp; logged in 12 ms\n", 8)
	for s := 0; b.Len() < size; s++ {
		fmt.Fprintf(&b, "  <testsuite name=\"com.example.Suite%d\" tests=\"50\" failures=\"5\" errors=\"0\" skipped=\"2\" time=\"1.5\" timestamp=\"2024-01-01T12:00:00\" hostname=\"ci\">\n", s)
		b.WriteString("    <properties>\n")
		for p := 0; p < 5; p++ {
			fmt.Fprintf(&b, "      <property name=\"java.prop.%d\" value=\"some value %d\"/>\n", p, p)
		}
		b.WriteString("    </properties>\n")
		for c := 0; c < 50; c++ {
			fmt.Fprintf(&b, "    <testcase classname=\"com.example.Suite%d\" name=\"test_case_%d[param-%d]\" time=\"0.0%d\">", s, c, c%7, c%10)
			switch {
			case c%10 == 3:
				fmt.Fprintf(&b, "\n      <failure message=\"expected:&lt;%d&gt; but was:&lt;%d&gt;\" type=\"java.lang.AssertionError\">java.lang.AssertionError: expected:&lt;%d&gt; but was:&lt;%d&gt;\n%s</failure>\n", c, c+1, c, c+1, trace)
				fmt.Fprintf(&b, "      <system-out><![CDATA[%s]]></system-out>\n    ", out)
			case c%20 == 7:
				b.WriteString("\n      <skipped message=\"disabled\"/>\n    ")
			case c%4 == 0:
				fmt.Fprintf(&b, "\n      <system-out>%s</system-out>\n    ", out)
			}
			b.WriteString("</testcase>\n")
		}
		fmt.Fprintf(&b, "    <system-out><![CDATA[%s]]></system-out>\n  </testsuite>\n", out)
	}
	b.WriteString("</testsuites>\n")
	return b.Bytes()
}

var (
	benchOnce  sync.Once
	benchSmall []byte
	benchLarge []byte
)

func benchData() ([]byte, []byte) {
	benchOnce.Do(func() {
		benchSmall = genReport(100 << 10)
		benchLarge = genReport(8<<20 - 64<<10)
	})
	return benchSmall, benchLarge
}

func BenchmarkParse(b *testing.B) {
	small, large := benchData()
	for _, tc := range []struct {
		name string
		data []byte
	}{{"100KB", small}, {"8MB", large}} {
		b.Run("junit/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				rep, err := Parse(bytes.NewReader(tc.data), "bench.xml")
				if err != nil || len(rep.Executions) == 0 {
					b.Fatal(err)
				}
			}
		})
		b.Run("encoding_xml/"+tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.data)))
			b.ReportAllocs()
			for b.Loop() {
				var v xmlbaseline.Suites
				if err := xml.NewDecoder(bytes.NewReader(tc.data)).Decode(&v); err != nil || len(v.Suites) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestParsePeakMemory measures the heap a parse of an 8 MiB report holds at
// its peak, sampled while it runs, and bounds it (the file is streamed, so
// the report never needs to be held whole).
func TestParsePeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement")
	}
	_, large := benchData()
	peak := testmem.PeakHeap(func() {
		rep, err := Parse(io.NopCloser(bytes.NewReader(large)), "bench.xml")
		if err != nil || len(rep.Executions) == 0 {
			t.Error(err)
		}
	})
	t.Logf("8 MiB report (%d bytes): peak heap growth %.2f MiB (%.2fx the file)", len(large), float64(peak)/(1<<20), float64(peak)/float64(len(large)))
	if peak > 3*int64(len(large)) {
		t.Fatalf("peak heap growth %d is over 3x the file size %d", peak, len(large))
	}
}
