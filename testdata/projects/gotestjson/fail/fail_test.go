// Package fail holds a failing assertion beside a passing test.
package fail

import "testing"

func TestTotal(t *testing.T) {
	want, got := 5, 4
	if got != want {
		t.Errorf("total mismatch: want %d got %d", want, got)
	}
	t.Log("logged after the failure")
}

func TestPasses(t *testing.T) {}
