// Package testmem measures, for tests, how much live heap a piece of work
// holds at its peak.
package testmem

import (
	"runtime"
	"sync"
)

// PeakHeap runs f and returns the largest growth of the live heap over the
// heap before it, sampled continuously while f runs.
func PeakHeap(f func()) int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := int64(ms.HeapAlloc)
	done := make(chan struct{})
	var peak int64
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			peak = max(peak, int64(m.HeapAlloc)-base)
			select {
			case <-done:
				return
			default:
				runtime.Gosched()
			}
		}
	}()
	f()
	close(done)
	wg.Wait()
	return peak
}
