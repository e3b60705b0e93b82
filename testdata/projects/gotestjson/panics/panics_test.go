// Package panics holds a test that panics after one that passed; the test
// after it never runs.
package panics

import "testing"

func TestBeforePanic(t *testing.T) {}

func TestPanics(t *testing.T) {
	var m map[string]int
	m["boom"] = 1
}

func TestAfterPanic(t *testing.T) {}
