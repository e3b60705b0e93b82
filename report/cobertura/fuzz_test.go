package cobertura

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
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
	lim := Limits{MaxBytes: 256 << 10, MaxElements: 5000, MaxDepth: 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		cov, err := Parse(bytes.NewReader(data), "c.xml", WithLimits(lim))
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
	})
}
