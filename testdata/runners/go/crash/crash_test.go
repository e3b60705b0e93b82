package crash

import "testing"

func TestBeforePanic(t *testing.T) {}

func TestPanics(t *testing.T) {
	var m map[string]int
	m["boom"] = 1
}
