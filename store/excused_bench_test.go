//go:build unix

package store

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

// cpuTime is the CPU time this process used so far, user and system.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkExcusedFailures asks Excused about the failures of one run in a
// store of 100,000 entries: one failure, and the 200 distinct failures a
// run lists at most, every one on the list before the job started. Beside
// ns/op it reports this process's CPU time per lookup (cpu-ns/op), which a
// busy machine disturbs less; for PostgreSQL that leaves out the server's.
func BenchmarkExcusedFailures(b *testing.B) {
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			c := newClock()
			s := storeOf100k(b, be, c)
			jobStart := c.Now()
			ctx := context.Background()
			for _, n := range []int{1, 200} {
				b.Run(fmt.Sprintf("failures=%d", n), func(b *testing.B) {
					batches := make([][]string, 64)
					for i := range batches {
						ids := make([]string, n)
						for j := range ids {
							// Entry k is in org/repo%02d of k%50: multiples of 50
							// are the 2,000 entries of org/repo00, n distinct ones.
							k := (i*n + j) * 50 % 100000
							ids[j] = fmt.Sprintf("pkg::test_%06d", k)
						}
						batches[i] = ids
					}
					b.ReportAllocs()
					b.ResetTimer()
					cpu := cpuTime(b)
					for i := range b.N {
						ids := batches[i%len(batches)]
						got, err := Excused(ctx, s, "org/repo00", "linux", ids, jobStart)
						if err != nil {
							b.Fatal(err)
						}
						for _, id := range ids {
							if !got[id] {
								b.Fatalf("%s not excused", id)
							}
						}
					}
					b.ReportMetric(float64(cpuTime(b)-cpu)/float64(b.N), "cpu-ns/op")
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
				})
			}
		})
	}
}
