// Package testmem measures, for tests, how much live heap a piece of work
// holds at its peak.
package testmem

import (
	"runtime"
	"runtime/metrics"
	"sync"
	"time"
)

// heapObjects is the runtime metric of the heap's objects: those live and
// those dead but not swept yet, runtime.MemStats.HeapAlloc's measure.
const heapObjects = "/memory/classes/heap/objects:bytes"

// sampleEvery is how often the heap is sampled while the work runs.
const sampleEvery = 50 * time.Microsecond

// PeakHeap runs f and returns the largest growth of the live heap over the
// heap before it, sampled every 50 µs while f runs. The samples are read
// with runtime/metrics, which does not stop the world as
// runtime.ReadMemStats does: sampling in a loop with ReadMemStats stopped
// f's goroutines thousands of times a second, and made the work measured
// tens of times slower on a machine where stopping them is dear.
func PeakHeap(f func()) int64 {
	runtime.GC()
	sample := []metrics.Sample{{Name: heapObjects}}
	read := func() int64 {
		metrics.Read(sample)
		return int64(sample[0].Value.Uint64())
	}
	base := read()
	done := make(chan struct{})
	var peak int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			peak = max(peak, read()-base)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return max(peak, read()-base)
}
