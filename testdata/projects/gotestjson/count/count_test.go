// Package count holds a test that fails on its first execution in a test
// binary and passes after: run with -count=2 it fails, then passes.
package count

import "testing"

var runs int

func TestFailsFirst(t *testing.T) {
	runs++
	if runs == 1 {
		t.Fatalf("execution %d fails on purpose", runs)
	}
}

func TestStable(t *testing.T) {}
