package gotestjson_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/testrun"
)

// FuzzGoTestJSON: whatever the stream, the parser does not panic, keeps
// within its limits, refuses a stream whole or reads it with outcomes a
// run can count, and keeps messages bounded and UTF-8. Seeded from the
// real streams (cut to the fuzzer's size) and the hostile files.
func FuzzGoTestJSON(f *testing.F) {
	for _, g := range []string{filepath.Join(reports, "*.json"), filepath.Join("testdata", "hostile", "*")} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil {
				f.Add(data[:min(len(data), 8<<10)])
			}
		}
	}
	f.Add([]byte(ev("run", "p", "T") + ev("pass", "p", "T") + ev("run", "p", "T") + ev("fail", "p", "T") + ev("fail", "p", "")))
	f.Add([]byte(`{"ImportPath":"p [p.test]","Action":"build-output","Output":"# p\n"}` + "\n" +
		`{"ImportPath":"p [p.test]","Action":"build-fail"}` + "\n" + `{"Action":"fail","Package":"p","FailedBuild":"p [p.test]"}`))
	lim := gotestjson.Limits{MaxBytes: 256 << 10, MaxCases: 50}
	const maxMsg = 100
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := gotestjson.Parse(bytes.NewReader(data), "f.json", gotestjson.WithLimits(lim), gotestjson.WithMaxMessage(maxMsg))
		if rep == nil {
			t.Fatal("nil report")
		}
		if int64(len(rep.Executions)) > lim.MaxCases || rep.Len() != len(rep.Executions) {
			t.Fatalf("%d executions (Len %d), limit %d", len(rep.Executions), rep.Len(), lim.MaxCases)
		}
		if err != nil {
			if len(rep.Executions) > 0 {
				t.Fatalf("a refused stream holds %d executions", len(rep.Executions))
			}
			var se *report.SyntaxError
			if !errors.As(err, &se) && !errors.Is(err, report.ErrLimit) && !errors.Is(err, report.ErrEmpty) {
				t.Fatalf("error of no known kind: %v", err)
			}
			return
		}
		for _, e := range rep.Executions {
			if !e.Outcome.Valid() || e.ID == "" || e.Scope == "" {
				t.Fatalf("execution %+v", e)
			}
			if len(e.Message) > maxMsg || !utf8.ValidString(e.Message) {
				t.Fatalf("message %q over %d bytes or not UTF-8", e.Message, maxMsg)
			}
			if e.Timed && (e.Duration < 0 || e.Duration > testrun.MaxCaseDuration) {
				t.Fatalf("duration %v", e.Duration)
			}
		}
		b := testrun.NewBuilder()
		n := rep.Len()
		b.AddReport(testrun.ReportInfo{Path: "f.json", Tests: &n}, rep.Executions, nil)
		run := b.Build()
		c := run.Counts
		if c == nil {
			t.Fatal("a stream read whole gives counts")
		}
		if c.Total != c.Passed+c.Failed+c.Errors+c.Skipped || c.Flaky > c.Total || c.Total > n {
			t.Fatalf("counts %+v for %d executions", *c, n)
		}
		if !run.Complete {
			t.Fatalf("incomplete: %q", run.IncompleteReasons)
		}
	})
}
