// Package initpanic panics in init, before any test runs.
package initpanic

import "testing"

func init() {
	panic("init: configuration file missing")
}

func TestNeverRuns(t *testing.T) {}
