package attest_test

import (
	"fmt"

	"github.com/hangar-dev/testresults/attest"
	"github.com/hangar-dev/testresults/testrun"
)

// A gate's run is never PASSED, whatever its tests did: it is not counted.
func ExampleDecide() {
	run := &testrun.Run{Kind: testrun.KindGate, Counts: &testrun.Counts{Total: 3, Passed: 3}, Complete: true}
	result, reasons := attest.Decide(attest.FactsOf(run))
	fmt.Println(result, reasons)

	run.Kind = testrun.KindAfterTurn
	result, reasons = attest.Decide(attest.FactsOf(run))
	fmt.Println(result, reasons)
	// Output:
	// FAILED [the run is not counted: not trusted (kind gate)]
	// PASSED []
}

func ExampleNewStatement() {
	run := &testrun.Run{
		Kind:     testrun.KindAfterTurn,
		Commit:   "3f9d2c1b0a8e7d6c5b4a39281706f5e4d3c2b1a0",
		Command:  "go test ./...",
		Counts:   &testrun.Counts{Total: 2, Passed: 1, Failed: 1},
		Cases:    map[string]testrun.Outcome{"pkg::TestA": testrun.OutcomePassed, "pkg::TestB": testrun.OutcomeFailed},
		Complete: true,
	}
	st, err := attest.NewStatement(run, attest.WithURL("https://github.com/acme/app/actions/runs/42"))
	if err != nil {
		fmt.Println(err)
		return
	}
	pred := st.GetPredicate().GetFields()
	fmt.Println(st.GetPredicateType())
	fmt.Println(st.GetSubject()[0].GetDigest()["gitCommit"])
	fmt.Println(pred["result"].GetStringValue(), pred["failedTests"].GetListValue().GetValues()[0].GetStringValue())
	// Output:
	// https://in-toto.io/attestation/test-result/v0.1
	// 3f9d2c1b0a8e7d6c5b4a39281706f5e4d3c2b1a0
	// FAILED pkg::TestB
}
