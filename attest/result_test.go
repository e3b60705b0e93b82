package attest

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hangar-dev/testresults/testrun"
)

func TestDecide(t *testing.T) {
	one, zero := 1, 0
	pass := &testrun.Counts{Total: 3, Passed: 3}
	flaky := &testrun.Counts{Total: 3, Passed: 3, Flaky: 1}
	fail := &testrun.Counts{Total: 3, Passed: 2, Failed: 1}
	errored := &testrun.Counts{Total: 3, Passed: 2, Errors: 1}
	for _, tc := range []struct {
		name string
		f    Facts
		want Result
	}{
		{"counted, all passed", Facts{Counted: true, Counts: pass, Status: testrun.StatusSuccess, ExitCode: &zero}, ResultPassed},
		{"status unknown", Facts{Counted: true, Counts: pass}, ResultPassed},
		{"flaky", Facts{Counted: true, Counts: flaky, Status: testrun.StatusSuccess}, ResultWarned},
		{"a failure", Facts{Counted: true, Counts: fail, Status: testrun.StatusFailure, ExitCode: &one}, ResultFailed},
		{"an error", Facts{Counted: true, Counts: errored}, ResultFailed},
		{"not counted, all passed", Facts{Counted: false, Counts: pass, Status: testrun.StatusSuccess}, ResultFailed},
		{"not counted, flaky", Facts{Counted: false, Counts: flaky}, ResultFailed},
		{"counted without counts", Facts{Counted: true}, ResultFailed},
		{"exit code 1, no failing test", Facts{Counted: true, Counts: pass, Status: testrun.StatusFailure, ExitCode: &one}, ResultFailed},
		{"timed out", Facts{Counted: true, Counts: pass, Status: testrun.StatusTimedOut}, ResultFailed},
		{"aborted", Facts{Counted: true, Counts: pass, Status: testrun.StatusAborted}, ResultFailed},
		{"exit code 1 beside status success", Facts{Counted: true, Counts: pass, Status: testrun.StatusSuccess, ExitCode: &one}, ResultFailed},
		{"exit code 1, status unknown", Facts{Counted: true, Counts: pass, ExitCode: &one}, ResultFailed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reasons := Decide(tc.f)
			assert.Equal(t, tc.want, got)
			if got == ResultPassed {
				assert.Empty(t, reasons)
			} else {
				assert.NotEmpty(t, reasons, "a result other than PASSED says why")
			}
		})
	}
}

func TestFactsOfNotCounted(t *testing.T) {
	run := &testrun.Run{Kind: testrun.KindGate, Counts: &testrun.Counts{Total: 2, Passed: 2}, Complete: true}
	f := FactsOf(run)
	assert.False(t, f.Counted)
	assert.Equal(t, []string{"not trusted (kind gate)"}, f.NotCounted)
	r, reasons := Decide(f)
	assert.Equal(t, ResultFailed, r)
	assert.Equal(t, []string{"the run is not counted: not trusted (kind gate)"}, reasons)

	run = &testrun.Run{Kind: testrun.KindAfterTurn, IncompleteReasons: []string{"pytest.xml: truncated"}}
	assert.Equal(t, []string{"no counts: no report was read whole", "incomplete: pytest.xml: truncated"}, FactsOf(run).NotCounted)
}
