// Package skip holds a skipped test beside a passing one.
package skip

import "testing"

func TestSkipped(t *testing.T) {
	t.Skip("not supported on this platform")
}

func TestRuns(t *testing.T) {}
