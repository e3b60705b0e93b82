package lcov

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/hangar-dev/testresults/testrun"
)

func FuzzLcov(f *testing.F) {
	for _, g := range []string{filepath.Join("testdata", "*"), filepath.Join("..", "..", "..", "shared", "corpus", "lcov", "*")} {
		files, _ := filepath.Glob(g)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) <= 64<<10 {
				f.Add(data)
			}
		}
	}
	f.Add([]byte("SF:a.c\nDA:1,1\nDA:2,0\nLF:2\nLH:1\nend_of_record\nSF:b.c\nLF:3\nLH:1\nend_of_record\n"))
	lim := Limits{MaxBytes: 256 << 10, MaxRecords: 1000}
	f.Fuzz(func(t *testing.T, data []byte) {
		cov, err := Parse(bytes.NewReader(data), "f.info", WithLimits(lim), WithWorkDir("/w"))
		if err != nil {
			if cov != nil {
				t.Fatal("coverage returned with an error")
			}
			return
		}
		lines := 0
		for name, fc := range cov.Files {
			if name == "" || fc == nil {
				t.Fatalf("file %q", name)
			}
			if fc.Hit > fc.Found || fc.Hit < 0 {
				t.Fatalf("LH %d over LF %d", fc.Hit, fc.Found)
			}
			for line := range fc.Lines {
				if line < 1 || line > testrun.MaxCoverageLineNumber {
					t.Fatalf("line %d of %q", line, name)
				}
			}
			lines += len(fc.Lines)
		}
		if int64(lines) > lim.MaxRecords {
			t.Fatal("more lines than records")
		}
	})
}
