package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hangar-dev/testresults/internal/testmem"
	"github.com/hangar-dev/testresults/report/internal/xmlbaseline"
	"github.com/hangar-dev/testresults/report/junit"
)

// benchSize is the most the generated report the read path is measured on
// may hold: a large CI run's JUnit file, just under the default per-report
// limit.
const benchSize = 8 << 20

// benchSuiteMax bounds the bytes one generated top-level suite takes.
const benchSuiteMax = 24 << 10

// genBenchReport writes a deterministic JUnit report of at most size bytes:
// nested suites with properties, cases with unicode names, one in twenty
// failing with a multi-line stack trace in CDATA, one in forty skipped,
// a third with captured output.
func genBenchReport(size int) []byte {
	var b bytes.Buffer
	b.Grow(size + 4096)
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<testsuites name=\"bench\" tests=\"0\">\n")
	var stack strings.Builder
	for i := range 14 {
		fmt.Fprintf(&stack, "\tat com.example.service.layer%d.Handler.process(Handler.java:%d)\n", i, 100+i*7)
	}
	trace := stack.String()
	logs := strings.Repeat("2026-01-01 12:00:00 INFO  cache warmed, 3 entries loaded\n", 6)
	names := []string{"grüße", "日本語テスト", "naïve_café", "emoji_✓", "plain"}
	n := 0
	for s := 0; b.Len()+benchSuiteMax < size; s++ {
		fmt.Fprintf(&b, "  <testsuite name=\"com.example.pkg%d\" tests=\"40\" failures=\"2\" errors=\"0\" skipped=\"1\" time=\"3.25\" timestamp=\"2026-01-01T12:00:00\" hostname=\"ci-runner\">\n", s)
		b.WriteString("    <properties>\n")
		for p := range 4 {
			fmt.Fprintf(&b, "      <property name=\"prop.%d\" value=\"value-%d-%d\"/>\n", p, s, p)
		}
		b.WriteString("    </properties>\n")
		for sub := range 2 {
			fmt.Fprintf(&b, "    <testsuite name=\"com.example.pkg%d.Sub%d\" tests=\"20\" time=\"1.5\">\n", s, sub)
			for c := range 20 {
				n++
				fmt.Fprintf(&b, "      <testcase classname=\"com.example.pkg%d.Sub%d\" name=\"test_%s_%d[case-%d]\" time=\"0.%03d\"",
					s, sub, names[n%len(names)], c, n%7, n%1000)
				switch {
				case n%20 == 3:
					fmt.Fprintf(&b, ">\n        <failure message=\"expected:&lt;%d&gt; but was:&lt;%d&gt;\" type=\"java.lang.AssertionError\"><![CDATA[java.lang.AssertionError: expected:<%d> but was:<%d>\n%s]]></failure>\n      </testcase>\n",
						n, n+1, n, n+1, trace)
				case n%40 == 9:
					b.WriteString(">\n        <skipped message=\"disabled on this platform\"/>\n      </testcase>\n")
				case n%3 == 1:
					fmt.Fprintf(&b, ">\n        <system-out>request %d handled &amp; logged in 12 ms\n%s</system-out>\n      </testcase>\n", n, logs)
				default:
					b.WriteString("/>\n")
				}
			}
			b.WriteString("    </testsuite>\n")
		}
		b.WriteString("  </testsuite>\n")
	}
	b.WriteString("</testsuites>\n")
	return b.Bytes()
}

var benchData = sync.OnceValue(func() []byte { return genBenchReport(benchSize) })

// benchFile writes the generated report to a temporary directory, for
// ReadRun, which reads files, and returns its path and size. The report is
// generated afresh and not held: like the command, the process then holds
// no copy of the file, and the collector paces itself on what ReadRun
// holds, not on a copy kept for the test.
func benchFile(tb testing.TB) (string, int) {
	tb.Helper()
	data := genBenchReport(benchSize)
	path := filepath.Join(tb.TempDir(), "TEST-bench.xml")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		tb.Fatal(err)
	}
	return path, len(data)
}

// TestBenchReportShape checks the generated report is what the benchmarks
// claim to measure, and that Unmarshal and Parse agree on its cases.
func TestBenchReportShape(t *testing.T) {
	data := benchData()
	var v xmlbaseline.Suites
	if err := xml.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	cases := xmlbaseline.CountCases(v.Suites)
	res, err := Parse(bytes.NewReader(data), "bench.xml")
	if err != nil {
		t.Fatal(err)
	}
	failing := 0
	for i := range res.Executions {
		if res.Executions[i].Outcome.Failing() {
			failing++
		}
	}
	t.Logf("%d bytes, %d cases, %d failing", len(data), cases, failing)
	if len(data) > benchSize || len(data) < benchSize-benchSuiteMax {
		t.Errorf("size %d, want about %d", len(data), benchSize)
	}
	if cases < 25000 || cases > 28000 || len(res.Executions) != cases {
		t.Errorf("cases: Unmarshal %d, Parse %d", cases, len(res.Executions))
	}
	if failing != cases/20 && failing != cases/20+1 {
		t.Errorf("%d failing of %d, want 5%%", failing, cases)
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v xmlbaseline.Suites
		if err := xml.Unmarshal(data, &v); err != nil || len(v.Suites) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkJUnitParse(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := junit.Parse(bytes.NewReader(data), "bench.xml")
		if err != nil || len(rep.Executions) == 0 {
			b.Fatal(err)
		}
	}
}

func BenchmarkParse(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		res, err := Parse(bytes.NewReader(data), "bench.xml")
		if err != nil || len(res.Executions) == 0 {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadRun measures what the CLI does with one report file: find,
// open, parse, hash and build the run. It reports the peak live heap of one
// read over the file's size as peak-heap-ratio.
func BenchmarkReadRun(b *testing.B) {
	path, size := benchFile(b)
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		run, err := ReadRun([]string{path})
		if err != nil || run.Counts == nil || run.Counts.Total == 0 {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	peak := testmem.PeakHeap(func() {
		if _, err := ReadRun([]string{path}); err != nil {
			b.Error(err)
		}
	})
	b.ReportMetric(float64(peak)/float64(size), "peak-heap-ratio")
}

// BenchmarkVsUnmarshal interleaves the five readers on the same report,
// one after the other in every iteration, and reports how many times
// faster than encoding/xml Unmarshal each is (x-unmarshal metrics), and
// how many times faster than the guarded-gosax model (see gosax_test.go)
// Parse and ReadRun are (x-gosax metrics). On a loaded machine these
// ratios hold far better than absolute times measured minutes apart.
func BenchmarkVsUnmarshal(b *testing.B) {
	path, _ := benchFile(b)
	data := benchData()
	var tUnmarshal, tGosax, tJUnit, tParse, tReadRun time.Duration
	timed := func(d *time.Duration, f func() error) {
		// Each reader starts on a collected heap, so that none pays for
		// the garbage of the one before it (Unmarshal leaves about six
		// times the file).
		b.StopTimer()
		runtime.GC()
		b.StartTimer()
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		*d += time.Since(start)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		timed(&tUnmarshal, func() error {
			var v xmlbaseline.Suites
			return xml.Unmarshal(data, &v)
		})
		timed(&tGosax, func() error {
			_, err := gosaxRead(data, "bench.xml")
			return err
		})
		timed(&tJUnit, func() error {
			_, err := junit.Parse(bytes.NewReader(data), "bench.xml")
			return err
		})
		timed(&tParse, func() error {
			_, err := Parse(bytes.NewReader(data), "bench.xml")
			return err
		})
		timed(&tReadRun, func() error {
			_, err := ReadRun([]string{path})
			return err
		})
	}
	b.ReportMetric(float64(tUnmarshal)/float64(tJUnit), "junit-x-unmarshal")
	b.ReportMetric(float64(tUnmarshal)/float64(tParse), "parse-x-unmarshal")
	b.ReportMetric(float64(tUnmarshal)/float64(tReadRun), "readrun-x-unmarshal")
	b.ReportMetric(float64(tUnmarshal)/float64(tGosax), "gosax-x-unmarshal")
	b.ReportMetric(float64(tGosax)/float64(tParse), "parse-x-gosax")
	b.ReportMetric(float64(tGosax)/float64(tReadRun), "readrun-x-gosax")
}

// TestReadRunPeakMemory bounds the live heap ReadRun holds at its peak on
// the 8 MiB report: at most 1.5 times the file (the file is streamed, never
// held whole). The heap is sampled while ReadRun runs, so a sample may
// count garbage the collector has not reclaimed yet; the smallest of three
// reads is the one bounded.
func TestReadRunPeakMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("memory measurement")
	}
	if raceEnabled {
		t.Skip("the race detector changes what is allocated (sync.Pool drops blocks at random, for one)")
	}
	path, size := benchFile(t)
	var peaks []int64
	for range 3 {
		peaks = append(peaks, testmem.PeakHeap(func() {
			run, err := ReadRun([]string{path})
			if err != nil || run.Counts == nil || run.Counts.Total == 0 {
				t.Error(err)
			}
		}))
	}
	peak := slices.Min(peaks)
	t.Logf("%d-byte report: peak heap growth %.2f MiB (%.2fx the file; samples %v)", size, float64(peak)/(1<<20), float64(peak)/float64(size), peaks)
	if limit := int64(size) * 3 / 2; peak > limit {
		t.Fatalf("peak heap growth %d is over 1.5x the file size %d", peak, size)
	}
}
