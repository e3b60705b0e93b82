package junit

import (
	"bytes"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// seedFuzz adds the hostile test files of package report and the small
// corpus reports, when present, as seeds.
func seedFuzz(f *testing.F, globs ...string) {
	for _, g := range globs {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err == nil && len(data) <= 32<<10 {
				f.Add(data)
			}
		}
	}
}

func FuzzJUnit(f *testing.F) {
	seedFuzz(f, filepath.Join("..", "testdata", "hostile", "*"), filepath.Join("..", "..", "testdata", "producers", "*", "*.xml"),
		filepath.Join("..", "..", "..", "shared", "corpus", "*", "*.xml"))
	f.Add([]byte(`<testsuites><testsuite name="s"><testcase classname="c" name="t"><failure message="m">b</failure><flakyError/></testcase></testsuite></testsuites>`))
	f.Add([]byte(`<testsuite name="s"><error message="x"/><testcase name="a" status="disabled"/><testcase name="a"><rerunFailure/></testcase></testsuite>`))
	lim := Limits{MaxBytes: 256 << 10, MaxElements: 2000, MaxDepth: 16, MaxCases: 50}
	const maxMsg = 100
	f.Fuzz(func(t *testing.T, data []byte) {
		rep, err := Parse(bytes.NewReader(data), "f.xml", WithLimits(lim), WithMaxMessage(maxMsg))
		if rep == nil {
			t.Fatal("nil report")
		}
		if int64(len(rep.Executions)) > lim.MaxCases {
			t.Fatalf("%d cases over the limit", len(rep.Executions))
		}
		if err != nil && len(rep.Executions) > 0 {
			t.Fatalf("a refused report holds %d cases", len(rep.Executions))
		}
		b := testrun.NewBuilder()
		info := testrun.ReportInfo{Path: "f.xml"}
		if err != nil {
			info.Error = err.Error()
		}
		for _, e := range rep.Executions {
			if !e.Outcome.Valid() {
				t.Fatalf("invalid outcome %q", e.Outcome)
			}
			if len(e.Message) > maxMsg || !utf8.ValidString(e.Message) {
				t.Fatalf("message %q over %d bytes or not UTF-8", e.Message, maxMsg)
			}
			for _, s := range []string{e.ID, e.Message} {
				for _, c := range s {
					if !xmlsafe.IsChar(c) {
						t.Fatalf("%q holds U+%04X, not an XML character", s, c)
					}
				}
			}
		}
		// Handed over in batches, as ReadRun has them, the executions
		// are the same, and so is the verdict.
		var batched []testrun.Execution
		brep, berr := Parse(bytes.NewReader(data), "f.xml", WithLimits(lim), WithMaxMessage(maxMsg),
			parseopt.WithBatches(func(execs iter.Seq[*testrun.Execution]) {
				for e := range execs {
					batched = append(batched, *e)
				}
			}))
		if (err == nil) != (berr == nil) {
			t.Fatalf("refused %v with batches, %v without", berr, err)
		}
		if err == nil {
			if !slices.Equal(rep.Executions, batched) || brep.Len() != len(batched) || brep.Executions != nil {
				t.Fatalf("batches hold %d executions (Len %d), the slice %d", len(batched), brep.Len(), len(rep.Executions))
			}
		}
		n := len(rep.Executions)
		info.Tests = &n
		b.AddReport(info, rep.Executions, nil)
		run := b.Build()
		if c := run.Counts; c != nil && c.Total != c.Passed+c.Failed+c.Errors+c.Skipped {
			t.Fatalf("counts do not add up: %+v", *c)
		}
		if err != nil && (run.Complete || run.Counts != nil) {
			t.Fatal("a refused report left the run complete or counted cases")
		}
	})
}
