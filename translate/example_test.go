package translate_test

import (
	"fmt"
	"time"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

func ExampleRunEvents() {
	exit := 1
	run := &testrun.Run{
		ID: "run-1", Kind: testrun.KindAfterTurn, Command: "go test ./...", Status: testrun.StatusFailure,
		ExitCode: &exit, Complete: true,
		StartedAt: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC), EndedAt: time.Date(2025, 1, 2, 3, 5, 0, 0, time.UTC),
		Counts:   &testrun.Counts{Total: 3, Passed: 2, Failed: 1, Flaky: 1},
		Failures: []testrun.Failure{{ID: "pkg::TestA", Outcome: testrun.OutcomeFailed, Message: "want 1, got 2"}},
		Cases:    map[string]testrun.Outcome{"pkg::TestA": testrun.OutcomeFailed, "pkg::TestB": testrun.OutcomePassed, "pkg::TestC": testrun.OutcomePassed},
		Flaky:    []string{"pkg::TestC"},
	}
	events, err := translate.RunEvents(run)
	if err != nil {
		panic(err)
	}
	for _, ev := range events {
		fmt.Println(ev.Name, ev.Time.Format(time.RFC3339))
		for _, kv := range ev.Attrs {
			fmt.Printf("  %s=%s\n", kv.Key, kv.Value.String())
		}
	}
	// Output:
	// test.run 2025-01-02T03:05:00Z
	//   test.suite.name=go test ./...
	//   test.suite.run.status=failure
	//   hangar.test.total=3
	//   hangar.test.passed=2
	//   hangar.test.failed=1
	//   hangar.test.errors=0
	//   hangar.test.skipped=0
	//   hangar.test.flaky=1
	//   hangar.test.complete=true
	//   hangar.test.run.id=run-1
	//   hangar.test.run.kind=after_turn
	//   hangar.test.exit_code=1
	//   hangar.test.run.trusted=true
	//   hangar.test.run.counted=true
	// test.case 2025-01-02T03:05:00Z
	//   test.case.name=pkg::TestA
	//   test.case.result.status=fail
	//   hangar.test.outcome=failed
	//   hangar.test.flaky=false
	//   hangar.test.message=want 1, got 2
	// test.case 2025-01-02T03:05:00Z
	//   test.case.name=pkg::TestC
	//   test.case.result.status=pass
	//   hangar.test.flaky=true
}

func ExampleSessionSpans() {
	run := func(id string) *testrun.Run {
		return &testrun.Run{ID: id, EndedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	}
	spans, err := translate.SessionSpans(translate.Session{ID: "sess-1", Turns: []translate.Turn{
		{Number: 2, Runs: []*testrun.Run{run("b"), run("c")}},
		{Number: 1, Runs: []*testrun.Run{run("a")}},
	}})
	if err != nil {
		panic(err)
	}
	for _, s := range spans {
		fmt.Println(s.Name, s.TraceID, s.SpanID, s.ParentSpanID, len(s.Events))
	}
	// Output:
	// session 0df8fdf051c42e26d538359dabe68af5 f138132066403768 0000000000000000 0
	// session.turn 0df8fdf051c42e26d538359dabe68af5 160d13b0b63da4c9 f138132066403768 1
	// session.turn 0df8fdf051c42e26d538359dabe68af5 a87e2e8afd605c0d f138132066403768 2
}

func ExampleTraces() {
	run := &testrun.Run{ID: "run-1", Command: "go test ./...", EndedAt: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
	spans, err := translate.JobSpans(translate.Job{ID: "job-1"}, []*testrun.Run{run})
	if err != nil {
		panic(err)
	}
	td := translate.Traces(spans, nil)
	ss := td.ResourceSpans().At(0).ScopeSpans().At(0)
	fmt.Println(ss.Scope().Name())
	for _, s := range ss.Spans().All() {
		fmt.Println(s.Name(), s.TraceID(), s.Events().Len(), s.Events().At(0).Name())
	}
	// Output:
	// github.com/hangar-dev/testresults/translate
	// job.verify 96a2c772354808da2912427868519004 1 test.run
}

func ExampleLogs() {
	run := &testrun.Run{
		ID: "run-1", Command: "go test ./...", Status: testrun.StatusFailure, Complete: true,
		EndedAt:  time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC),
		Counts:   &testrun.Counts{Total: 2, Passed: 1, Failed: 1},
		Failures: []testrun.Failure{{ID: "pkg::TestA", Outcome: testrun.OutcomeFailed}},
	}
	spans, err := translate.JobSpans(translate.Job{ID: "job-1"}, []*testrun.Run{run},
		translate.WithEvents(translate.EventsLog))
	if err != nil {
		panic(err)
	}
	fmt.Println(spans[0].Name, spans[0].SpanID, len(spans[0].Events))
	ld := translate.Logs(spans, nil)
	for _, lr := range ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords().All() {
		fmt.Println(lr.EventName(), lr.Timestamp().AsTime().Format(time.RFC3339Nano), lr.TraceID(), lr.SpanID())
	}
	// Output:
	// job.verify 996936a2d1f261c0 0
	// test.run 2025-01-02T03:04:05Z 96a2c772354808da2912427868519004 996936a2d1f261c0
	// test.case 2025-01-02T03:04:05.000001Z 96a2c772354808da2912427868519004 996936a2d1f261c0
}
