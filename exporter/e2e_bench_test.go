package exporter_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/resource"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// writeJUnit writes a JUnit report of n cases, one in twenty failing
// with a short stack trace, and returns its path.
func writeJUnit(b *testing.B, n int) string {
	b.Helper()
	var s strings.Builder
	s.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n<testsuites>\n")
	for i := range n {
		if i%100 == 0 {
			if i > 0 {
				s.WriteString("</testsuite>\n")
			}
			fmt.Fprintf(&s, "<testsuite name=\"pkg%d\" tests=\"100\">\n", i/100)
		}
		fmt.Fprintf(&s, "<testcase classname=\"com.example.pkg%d.Suite\" name=\"test_case_%06d\" time=\"0.%03d\"", i/100, i, i%1000)
		if i%20 == 3 {
			fmt.Fprintf(&s, "><failure message=\"expected %d\">at com.example.Suite.test(Suite.java:%d)\n</failure></testcase>\n", i, i%400)
		} else {
			s.WriteString("/>\n")
		}
	}
	s.WriteString("</testsuite>\n</testsuites>\n")
	p := filepath.Join(b.TempDir(), "TEST-e2e.xml")
	if err := os.WriteFile(p, []byte(s.String()), 0o600); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkEndToEnd measures parse → spans → protobuf for one report of
// 20,000 cases: report.ReadRun, translate.JobSpans and translate.Traces,
// then the OTLP protobuf encoding of the request. It reports ns/case; with
// case-spans=all every case is a span of its own, the heaviest form.
func BenchmarkEndToEnd(b *testing.B) {
	const n = 20000
	path := writeJUnit(b, n)
	res := resource.NewSchemaless(attributeServiceName())
	for _, cs := range []translate.CaseSpans{translate.CaseSpansNone, translate.CaseSpansAll} {
		b.Run("case-spans="+cs.String(), func(b *testing.B) {
			var m ptrace.ProtoMarshaler
			b.ReportAllocs()
			for b.Loop() {
				run, err := report.ReadRun([]string{path})
				if err != nil {
					b.Fatal(err)
				}
				run.ID = "e2e"
				spans, err := translate.JobSpans(translate.Job{ID: "bench"}, []*testrun.Run{run}, translate.WithCaseSpans(cs))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.MarshalTraces(translate.Traces(spans, res)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/case")
		})
	}
}

// BenchmarkSpansToProto measures the part of BenchmarkEndToEnd after the
// report is read: translate.JobSpans (which validates the run),
// translate.Traces and the OTLP protobuf encoding, for the same run of
// 20,000 cases read once. It reports ns/case.
func BenchmarkSpansToProto(b *testing.B) {
	const n = 20000
	run, err := report.ReadRun([]string{writeJUnit(b, n)})
	if err != nil {
		b.Fatal(err)
	}
	run.ID = "e2e"
	res := resource.NewSchemaless(attributeServiceName())
	for _, cs := range []translate.CaseSpans{translate.CaseSpansNone, translate.CaseSpansAll} {
		b.Run("case-spans="+cs.String(), func(b *testing.B) {
			var m ptrace.ProtoMarshaler
			b.ReportAllocs()
			for b.Loop() {
				spans, err := translate.JobSpans(translate.Job{ID: "bench"}, []*testrun.Run{run}, translate.WithCaseSpans(cs))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := m.MarshalTraces(translate.Traces(spans, res)); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/case")
		})
	}
}
