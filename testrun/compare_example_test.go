package testrun_test

import (
	"fmt"

	"github.com/hangar-dev/testresults/testrun"
)

// complete builds a complete run from test id → outcome pairs.
func complete(id string, outcomes ...string) *testrun.Run {
	var execs []testrun.Execution
	for i := 0; i+1 < len(outcomes); i += 2 {
		execs = append(execs, testrun.Execution{ID: outcomes[i], Scope: "s", Outcome: testrun.Outcome(outcomes[i+1])})
	}
	n := len(execs)
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID = id
	r.Kind = testrun.KindAttempt
	return r
}

func ExampleCompare() {
	base := complete("base", "a", "failed", "b", "passed")
	after := complete("after", "a", "passed", "b", "failed")

	c := testrun.Compare(base, after)
	fmt.Println(c.Available, c.NewFailures[0].ID, c.Fixed)

	// An incomplete run cannot prove that nothing is new.
	after.Complete = false
	c = testrun.Compare(base, after)
	fmt.Println(c.Available, c.NewFailures == nil)
	fmt.Println(c.Unavailable)
	// Output:
	// true b [a]
	// false true
	// after: testrun: comparison unavailable: run "after" is incomplete
}

func ExamplePairedVerdict() {
	parent := []*testrun.Run{complete("p1", "a", "passed", "b", "failed"), complete("p2", "a", "passed", "b", "failed")}
	patch := []*testrun.Run{complete("q1", "a", "failed", "b", "passed"), complete("q2", "a", "failed", "b", "passed")}

	p, err := testrun.PairedVerdict(parent, patch)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Decision, p.Broken[0].ID, p.Repaired[0].ID)
	// Output:
	// reject a b
}
