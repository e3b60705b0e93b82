package testrun

import (
	"fmt"
	"testing"
)

// BenchmarkBuild merges 100,000 executions (1% failing, 1% retried) into a run.
func BenchmarkBuild(b *testing.B) {
	const n = 100000
	execs := make([]Execution, 0, n+n/100)
	for i := range n {
		id := fmt.Sprintf("pkg/module%03d::test_case_%06d", i%500, i)
		scope := fmt.Sprintf("report.xml#%d", i%500)
		switch {
		case i%100 == 0:
			execs = append(execs, Execution{ID: id, Scope: scope, Outcome: OutcomeFailed, Message: "assertion failed: expected 1, got 2"})
		case i%100 == 1:
			execs = append(execs, Execution{ID: id, Scope: scope, Outcome: OutcomeFailed, Message: "flaky"},
				Execution{ID: id, Scope: scope, Outcome: OutcomePassed})
		default:
			execs = append(execs, Execution{ID: id, Scope: scope, Outcome: OutcomePassed})
		}
	}
	red := NewRedactor(nil)
	tests := len(execs)
	b.ReportAllocs()
	for b.Loop() {
		bl := NewBuilder(WithRedactor(red))
		bl.AddReport(ReportInfo{Path: "report.xml", Tests: &tests}, execs, nil)
		r := bl.Build()
		if r.Counts.Total != n {
			b.Fatalf("total %d", r.Counts.Total)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "cases/s")
}
