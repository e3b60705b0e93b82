package testrun_test

import (
	"fmt"

	"github.com/hangar-dev/testresults/testrun"
)

// A test retried inside one suite that failed and then passed is flaky and
// passed; a test that ran in two configurations takes its worst outcome.
func ExampleBuilder() {
	b := testrun.NewBuilder(testrun.WithRedactor(testrun.NewRedactor(nil)))
	tests := 3
	b.AddReport(testrun.ReportInfo{Path: "junit.xml", Dialect: "junit", Tests: &tests}, []testrun.Execution{
		{ID: "api::test_login", Scope: "junit.xml#0", Outcome: testrun.OutcomeFailed, Message: "timeout"},
		{ID: "api::test_login", Scope: "junit.xml#0", Outcome: testrun.OutcomePassed},
		{ID: "ui::test_menu", Scope: "junit.xml#1", Outcome: testrun.OutcomePassed},
		{ID: "ui::test_menu", Scope: "junit.xml#2", Outcome: testrun.OutcomeFailed, Message: "password=hunter2 rejected"},
	}, nil)
	run := b.Build()
	run.Kind = testrun.KindAfterTurn

	c := run.Counts
	fmt.Printf("total=%d passed=%d failed=%d flaky=%d\n", c.Total, c.Passed, c.Failed, c.Flaky)
	fmt.Println("flaky:", run.Flaky)
	fmt.Println("failure:", run.Failures[0].ID, run.Failures[0].Message)
	fmt.Println("trusted:", run.Trusted(), "counted:", run.Counted())
	// Output:
	// total=2 passed=1 failed=1 flaky=1
	// flaky: [api::test_login]
	// failure: ui::test_menu password=[REDACTED] rejected
	// trusted: true counted: true
}
