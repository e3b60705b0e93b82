package testrun

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTrustAndCounted(t *testing.T) {
	tests := []struct {
		kind     Kind
		grade    string
		total    int64
		complete bool
		trusted  bool
		counted  bool
	}{
		{KindBase, "", 3, true, true, true},
		{KindAfterTurn, "", 3, true, true, true},
		{KindRerun, "", 3, true, true, true},
		{KindAttempt, "", 3, true, true, true},
		{KindSetup, "", 3, true, true, true},
		{KindAcceptance, "", 3, true, true, true},
		{KindGrader, GradeIsolated, 3, true, true, true},
		{KindGrader, "shared", 3, true, false, false},
		{KindGrader, "", 3, true, false, false},
		{KindGate, "", 3, true, false, false},
		{KindGate, GradeIsolated, 3, true, false, false},
		{"", "", 3, true, false, false},
		{"nightly", "", 3, true, false, false},
		{KindBase, "", 0, true, true, false},
		{KindBase, "", -1, true, true, false},
		{KindBase, "", 3, false, true, false},
	}
	for _, tt := range tests {
		t.Run(string(tt.kind)+"/"+tt.grade, func(t *testing.T) {
			assert.Equal(t, tt.trusted, IsTrusted(tt.kind, tt.grade))
			assert.Equal(t, tt.counted, IsCounted(tt.kind, tt.grade, tt.total, tt.complete))
		})
	}
	var nilRun *Run
	assert.False(t, nilRun.Trusted())
	assert.False(t, nilRun.Counted())
	assert.False(t, (&Run{Kind: KindBase, Complete: true}).Counted(), "no counts is never counted")
}

// TestCountsValidBounded: counts whose sum wraps past int64 once read as
// valid; every count is now bounded by MaxCount before anything is added.
func TestCountsValidBounded(t *testing.T) {
	const big = 1 << 62
	tests := []struct {
		name string
		c    Counts
		want bool
	}{
		{"consistent", Counts{Total: 3, Passed: 1, Failed: 1, Skipped: 1}, true},
		{"at the bound", Counts{Total: MaxCount, Passed: MaxCount, Flaky: MaxCount}, true},
		{"total over the bound", Counts{Total: MaxCount + 1, Passed: MaxCount + 1}, false},
		{"wraps to 1", Counts{Total: 1, Passed: big, Failed: big, Errors: big, Skipped: big + 1}, false},
		{"wraps to 3", Counts{Total: 3, Failed: big, Errors: big, Skipped: big}, false},
		{"negative", Counts{Total: 0, Passed: 1, Failed: -1}, false},
		{"flaky over total", Counts{Total: 1, Passed: 1, Flaky: 2}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.c.Valid())
		})
	}
}

func TestEventTrusted(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  *Run
		want bool
	}{
		{"trusted kind, valid counts", &Run{Kind: KindBase, Counts: &Counts{Total: 2, Passed: 2}}, true},
		{"trusted kind, no counts", &Run{Kind: KindBase}, false},
		{"trusted kind, counts that do not add up", &Run{Kind: KindBase, Counts: &Counts{Total: 5, Passed: 2}}, false},
		{"trusted kind, a count over the bound", &Run{Kind: KindAfterTurn, Counts: &Counts{Total: MaxCount + 1, Passed: MaxCount + 1}}, false},
		{"untrusted kind, valid counts", &Run{Kind: KindGate, Counts: &Counts{Total: 1, Passed: 1}}, false},
		{"no run", nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.run.EventTrusted())
		})
	}
}
