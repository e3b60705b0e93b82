package packet_test

import (
	"os"

	"github.com/hangar-dev/testresults/packet"
	"github.com/hangar-dev/testresults/testrun"
)

func Example() {
	build := func(id string, kind testrun.Kind, outcome testrun.Outcome) *testrun.Run {
		n := 2
		b := testrun.NewBuilder()
		b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "junit", Tests: &n}, []testrun.Execution{
			{ID: "pkg.T::ok", Scope: "s", Outcome: testrun.OutcomePassed},
			{ID: "pkg.T::b", Scope: "s", Outcome: outcome, Message: "expected 1, got 2"},
		}, nil)
		r := b.Build()
		r.ID, r.Kind = id, kind
		return r
	}
	base := build("base", testrun.KindBase, testrun.OutcomePassed)
	after := build("after", testrun.KindAfterTurn, testrun.OutcomeFailed)
	in := packet.Input{After: after, Base: base, Comparison: testrun.Compare(base, after)}
	if err := packet.Markdown(os.Stdout, in); err != nil {
		panic(err)
	}
	// Output:
	// ## Test results: after
	//
	// **1 new failure against the base.**
	//
	// | run | total | passed | failed | errors | skipped | flaky |
	// |---|---:|---:|---:|---:|---:|---:|
	// | after | 2 | 1 | 1 | 0 | 0 | 0 |
	//
	// Run after: complete, counted.
	//
	// Base base: its own failures: 0.
	//
	// Line coverage: unknown, change against the base: unknown.
	//
	// ### New failures (1)
	//
	// **failed**: pkg\.T\:\:b
	//
	// ```
	// expected 1, got 2
	// ```
	//
	// Flaky tests: none.
	//
	// Flaky list not read (no store or repository given): flaky tests are not marked.
}
