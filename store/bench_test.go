package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// bigRun is a complete run of n cases: one in 200 fails, one in 100 is
// runner-retried.
func bigRun(id, tree string, n int) *testrun.Run {
	execs := make([]testrun.Execution, 0, n)
	for i := range n {
		e := testrun.Execution{ID: fmt.Sprintf("pkg/mod%03d::test_%05d", i%500, i), Scope: "s", Outcome: testrun.OutcomePassed}
		switch {
		case i%200 == 0:
			e.Outcome, e.Message = testrun.OutcomeFailed, "assert 1 == 2"
		case i%100 == 0:
			e.RunnerFlaky = true
		}
		execs = append(execs, e)
	}
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID, r.Tree, r.Kind = id, tree, testrun.KindRerun
	return r
}

// BenchmarkRecord records a 20,000-case run: on a new tree (every outcome
// inserted) and on a tree seen before (every outcome an upsert).
func BenchmarkRecord(b *testing.B) {
	const cases = 20000
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			s := open(b, be.location(b), newClock())
			ctx := context.Background()
			for _, mode := range []string{"new-tree", "same-tree"} {
				b.Run(mode, func(b *testing.B) {
					runs := make([]*testrun.Run, b.N)
					for i := range runs {
						tree := "same"
						if mode == "new-tree" {
							tree = fmt.Sprintf("%s-%d-%d", b.Name(), b.N, i)
						}
						runs[i] = bigRun(fmt.Sprintf("%s-%d-%d", b.Name(), b.N, i), tree, cases)
					}
					b.ReportAllocs()
					b.ResetTimer()
					for i := range b.N {
						if _, err := s.Record(ctx, "bench/repo", "linux", runs[i]); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cases)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
				})
			}
		})
	}
}

var (
	bigStoresMu sync.Mutex
	bigStores   = map[string]Store{}
)

// storeOf100k returns a store holding 100,000 entries across 50
// repositories, filled once per backend.
func storeOf100k(b *testing.B, be backend, c *clock) Store {
	bigStoresMu.Lock()
	defer bigStoresMu.Unlock()
	if s, ok := bigStores[be.name]; ok {
		return s
	}
	s, err := Open(context.Background(), be.location(b), WithClock(c.Now))
	require.NoError(b, err)
	ss := s.(*sqlStore)
	at := c.Now().Add(-time.Hour)
	const total, batch = 100000, 5000
	for start := 0; start < total; start += batch {
		entries := make([]testrun.FlakyEntry, 0, batch)
		for i := start; i < start+batch; i++ {
			e := testrun.FlakyEntry{Repository: fmt.Sprintf("org/repo%02d", i%50), Environment: "linux", TestID: fmt.Sprintf("pkg::test_%06d", i)}
			e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"r"}, At: at})
			entries = append(entries, e)
		}
		require.NoError(b, ss.inTx(context.Background(), "fill", func(tx *sql.Tx) error { return ss.putEntries(context.Background(), tx, entries) }))
	}
	if ss.d.name == "postgres" {
		// As autovacuum would by the time the table is this big: without
		// statistics the planner scans a repository's rows, and without the
		// visibility map an index-only scan still reads the table's pages.
		_, err := ss.db.Exec(`VACUUM ANALYZE flaky_entries`)
		require.NoError(b, err)
	}
	bigStores[be.name] = s
	return s
}

// BenchmarkExcused looks failures up in a store of 100,000 entries and
// asks testrun whether each is excused: one failure, and the 200 a run
// lists at most.
func BenchmarkExcused(b *testing.B) {
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			c := newClock()
			s := storeOf100k(b, be, c)
			jobStart := c.Now()
			ctx := context.Background()
			for _, n := range []int{1, 200} {
				b.Run(fmt.Sprintf("failures=%d", n), func(b *testing.B) {
					b.ReportAllocs()
					for i := range b.N {
						ids := make([]string, n)
						for j := range ids {
							k := (i*n + j*2) % 100000
							ids[j] = fmt.Sprintf("pkg::test_%06d", k-k%50) // in org/repo00
						}
						got, err := s.Lookup(ctx, "org/repo00", "linux", ids)
						if err != nil {
							b.Fatal(err)
						}
						for _, id := range ids {
							if e, ok := got[id]; !ok || !e.Excused(jobStart) {
								b.Fatalf("%s not excused", id)
							}
						}
					}
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "lookups/s")
				})
			}
		})
	}
}
