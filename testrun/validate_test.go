package testrun

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

// validRun is a built run of n cases, every one timed, one in twenty
// failing and one in a hundred runner-retried (flaky).
func validRun(tb testing.TB, n int) *Run {
	tb.Helper()
	execs := make([]Execution, 0, n)
	for i := range n {
		e := Execution{ID: fmt.Sprintf("pkg%d.Suite::test_%06d", i/100, i), Scope: "s", Outcome: OutcomePassed, Duration: time.Duration(i%1000) * time.Millisecond, Timed: true}
		switch {
		case i%20 == 3:
			e.Outcome, e.Message = OutcomeFailed, "expected"
		case i%100 == 0:
			e.RunnerFlaky = true
		}
		execs = append(execs, e)
	}
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "r.xml", Tests: &n}, execs, nil)
	r := b.Build()
	if len(r.Cases) != n || len(r.Durations) != n {
		tb.Fatalf("%d cases and %d durations kept, want %d of each", len(r.Cases), len(r.Durations), n)
	}
	if err := r.Validate(); err != nil {
		tb.Fatal(err)
	}
	return r
}

// TestValidateOneWalk: Validate walks cases and durations at once and says
// what is wrong only when something is; each way a case or a duration can
// be wrong is still refused with its own message, also when durations
// and cases are as many, so that no count hides an id that is not a case.
func TestValidateOneWalk(t *testing.T) {
	const n = 300
	for _, tt := range []struct {
		name   string
		mutate func(r *Run)
		want   string
	}{
		{"unknown outcome", func(r *Run) { r.Cases["pkg0.Suite::test_000007"] = "bogus" }, `case "pkg0.Suite::test_000007" has unknown outcome "bogus"`},
		{"duration not of a case, as many as cases", func(r *Run) {
			delete(r.Durations, "pkg0.Suite::test_000007")
			r.Durations["elsewhere"] = time.Second
		}, `duration of "elsewhere", which is not in cases`},
		{"duration not of a case, more than cases", func(r *Run) { r.Durations["elsewhere"] = time.Second }, `duration of "elsewhere", which is not in cases`},
		{"negative duration", func(r *Run) { r.Durations["pkg0.Suite::test_000007"] = -1 }, `duration of "pkg0.Suite::test_000007" is -1ns`},
		{"too long a duration", func(r *Run) { r.Durations["pkg0.Suite::test_000007"] = MaxCaseDuration + 1 }, `duration of "pkg0.Suite::test_000007" is 168h0m0.000000001s`},
		{"durations without cases", func(r *Run) { r.Cases = nil }, `durations are given without cases`},
		{"more failing cases than counted", func(r *Run) { r.Cases["pkg0.Suite::test_000007"] = OutcomeError }, fmt.Sprintf("cases hold %d failing ids, more than failed + errors (%d)", n/20+1, n/20)},
		{"more distinct failures than counted", func(r *Run) {
			r.Failures = append(r.Failures, Failure{ID: "elsewhere", Outcome: OutcomeFailed})
		}, fmt.Sprintf("failures hold %d distinct ids, more than failed + errors (%d)", n/20+1, n/20)},
		{"more distinct flaky ids than counted", func(r *Run) { r.Flaky = append(r.Flaky, "pkg0.Suite::test_000007") }, fmt.Sprintf("flaky holds %d distinct ids, more than the flaky count (%d)", n/100+1, n/100)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := validRun(t, n)
			tt.mutate(r)
			err := r.Validate()
			if !errors.Is(err, ErrInvalidRun) {
				t.Fatalf("Validate = %v, want ErrInvalidRun", err)
			}
			if got := err.Error(); !strings.Contains(got, tt.want) {
				t.Fatalf("Validate = %q, want it to say %q", got, tt.want)
			}
		})
	}
}

// TestValidateRepeatedIDs: failures and flaky ids listed more often than
// counted but no more distinct ones than counted are valid.
func TestValidateRepeatedIDs(t *testing.T) {
	r := validRun(t, 300)
	r.Failures = append(r.Failures, r.Failures[0], r.Failures[1])
	r.Flaky = append(r.Flaky, r.Flaky...)
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkValidate validates a built run of 20,000 cases, each timed.
func BenchmarkValidate(b *testing.B) {
	r := validRun(b, 20000)
	b.ReportAllocs()
	for b.Loop() {
		if err := r.Validate(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*20000), "ns/case")
}
