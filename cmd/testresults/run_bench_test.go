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
// ms-added is wall-clock time; cpu-ms-added is the CPU time (user and
// system) of the process and its children, which a busy machine inflates
// far less. The start case is `testresults --version`: process start and
// package init alone, what every command pays. The cases named
// without-prefault set TESTRESULTS_PREFAULT=0, to show what
// internal/prefault saves.
//
//	go test -run '^$' -bench RunOverhead -benchtime 100x ./cmd/testresults
func BenchmarkRunOverhead(b *testing.B) {
	bin := builtBinary(b)
	truePath, err := exec.LookPath("true")
	if err != nil {
		b.Skip("no true command")
	}
	for _, where := range []struct {
		name, dir  string
		start      bool // time `testresults --version`, not run
		noPrefault bool
	}{
		{"start", b.TempDir(), true, false},
		{"start-without-prefault", b.TempDir(), true, true},
		{"plain-folder", b.TempDir(), false, false},
		{"plain-folder-without-prefault", b.TempDir(), false, true},
		{"git-repository", testcorpus.Root(b), false, false},
	} {
		b.Run(where.name, func(b *testing.B) {
			outs := b.TempDir()
			env := append(os.Environ(), "HOME="+b.TempDir())
			if where.noPrefault {
				env = append(env, "TESTRESULTS_PREFAULT=0")
			}
			var bare, wrapped, bareCPU, wrappedCPU []time.Duration
			timed := func(name string, args ...string) (wall, cpu time.Duration) {
				cmd := exec.Command(name, args...)
				cmd.Dir = where.dir
				cmd.Env = env
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("%s %v: %v", name, args, err)
				}
				wall = time.Since(start)
				// The process's own time and that of the children it
				// waited for (git, the check).
				return wall, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			for i := 0; b.Loop(); i++ {
				w, c := timed(truePath)
				bare, bareCPU = append(bare, w), append(bareCPU, c)
				args := []string{"run", "-q", "--out", filepath.Join(outs, fmt.Sprint(i)), "--", truePath}
				if where.start {
					args = []string{"--version"}
				}
				w, c = timed(bin, args...)
				wrapped, wrappedCPU = append(wrapped, w), append(wrappedCPU, c)
			}
			mb, mw := median(bare), median(wrapped)
			b.ReportMetric(millis(mb), "ms-true")
			b.ReportMetric(millis(mw), "ms-testresults")
			b.ReportMetric(millis(mw-mb), "ms-added")
			b.ReportMetric(millis(median(wrappedCPU)-median(bareCPU)), "cpu-ms-added")
		})
	}
}

func millis(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func median(d []time.Duration) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
