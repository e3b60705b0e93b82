package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/hangar-dev/testresults/internal/testcorpus"
)

// BenchmarkRunOverhead measures what `testresults run -- true` adds to
// `true`, the two run in turns so that a busy machine weighs on both alike,
// and reports the medians: in an empty folder outside git, and in this
// repository (a git work tree, whose commit and tree digest are read).
//
//	go test -run '^$' -bench RunOverhead -benchtime 100x ./cmd/testresults
func BenchmarkRunOverhead(b *testing.B) {
	bin := builtBinary(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true command")
	}
	for _, where := range []struct{ name, dir string }{
		{"plain-folder", b.TempDir()},
		{"git-repository", testcorpus.Root(b)},
	} {
		b.Run(where.name, func(b *testing.B) {
			outs := b.TempDir()
			env := append(os.Environ(), "HOME="+b.TempDir())
			var bare, wrapped []time.Duration
			timed := func(name string, args ...string) time.Duration {
				cmd := exec.Command(name, args...)
				cmd.Dir = where.dir
				cmd.Env = env
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s %v: %v", name, args, err)
				}
				return time.Since(start)
			}
			for i := 0; b.Loop(); i++ {
				bare = append(bare, timed(truePath))
				wrapped = append(wrapped, timed(bin, "run", "-q", "--out", filepath.Join(outs, fmt.Sprint(i)), "--", truePath))
			}
			mb, mw := median(bare), median(wrapped)
			b.ReportMetric(float64(mb.Microseconds())/1000, "ms-true")
			b.ReportMetric(float64(mw.Microseconds())/1000, "ms-run-true")
			b.ReportMetric(float64((mw-mb).Microseconds())/1000, "ms-added")
		})
	}
}

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
