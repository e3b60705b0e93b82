package cobertura

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hangar-dev/testresults/testrun"
)

func FuzzCobertura(f *testing.F) {
	for _, g := range []string{filepath.Join("..", "testdata", "hostile", "*"), filepath.Join("..", "..", "..", "shared", "corpus", "cobertura", "*.xml")} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) <= 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte(`<coverage line-rate="0.5" lines-covered="1" lines-valid="2"><packages/></coverage>`))
	f.Add([]byte(`<coverage line-rate="0.5"><sources><source>/w/pkg</source></sources><packages><package><classes>` +
		`<class filename="a.py"><methods><method><lines><line number="9" hits="1"/></lines></method></methods>` +
		`<lines><line number="1" hits="1"/><line number="2" hits="0"/></lines></class></classes></package></packages></coverage>`))
	lim := Limits{MaxBytes: 256 << 10, MaxElements: 5000, MaxDepth: 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		cov, err := Parse(bytes.NewReader(data), "c.xml", WithLimits(lim), WithWorkDir("/w"))
		if err != nil {
			if cov != nil {
				t.Fatal("coverage returned with an error")
			}
			return
		}
		if cov.LineRate != nil && (*cov.LineRate < 0 || *cov.LineRate > 1) {
			t.Fatalf("line rate %v", *cov.LineRate)
		}
		if cov.LinesCovered != nil && cov.LinesValid != nil && *cov.LinesCovered > *cov.LinesValid {
			t.Fatal("covered over valid")
		}
		if cov.LineRate == nil && cov.LinesCovered == nil && cov.LinesValid == nil {
			t.Fatal("a report stating nothing was accepted")
		}
		if cov.Files != nil && len(cov.Files) == 0 {
			t.Fatal("line data without a file")
		}
		lines := 0
		for name, fc := range cov.Files {
			if name == "" || fc == nil || fc.Lines == nil {
				t.Fatalf("file %q without line data", name)
			}
			for line := range fc.Lines {
				if line < 1 || line > testrun.MaxCoverageLineNumber {
					t.Fatalf("line %d of %q", line, name)
				}
			}
			lines += len(fc.Lines)
		}
		if int64(lines) > lim.MaxElements {
			t.Fatal("more lines than elements")
		}
	})
}
