package testrun

import "fmt"

// MassFailureNote says for people why r records no same-tree flip: how
// many of its tests failed, over MassFailureShare (MassFailure); "" when r
// is no mass failure.
func MassFailureNote(r *Run) string {
	if !MassFailure(r) {
		return ""
	}
	c := r.Counts
	return fmt.Sprintf("run %s: %d of %d tests failed (more than %.0f%%): the environment broke, not the tests; it records no flip",
		r.ID, c.Failed+c.Errors, c.Passed+c.Failed+c.Errors, MassFailureShare*100)
}
