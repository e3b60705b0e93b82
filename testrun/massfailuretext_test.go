package testrun

import (
	"fmt"
	"testing"
)

func TestMassFailureNote(t *testing.T) {
	broke := &Run{ID: "r1", Counts: &Counts{Failed: MassFailureMinTests}}
	want := fmt.Sprintf("run r1: %d of %d tests failed (more than %.0f%%): the environment broke, not the tests; it records no flip",
		MassFailureMinTests, MassFailureMinTests, MassFailureShare*100)
	if got := MassFailureNote(broke); got != want {
		t.Errorf("MassFailureNote = %q, want %q", got, want)
	}
	if got := MassFailureNote(&Run{ID: "r2", Counts: &Counts{Passed: 10, Failed: 1}}); got != "" {
		t.Errorf("no mass failure: %q, want empty", got)
	}
	if got := MassFailureNote(&Run{ID: "r3"}); got != "" {
		t.Errorf("no counts: %q, want empty", got)
	}
}
