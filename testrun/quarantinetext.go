package testrun

import (
	"fmt"
	"io"
	"strings"
)

// WriteText writes what quarantine decided of a run that exited code, for
// people: the entries that did not count always, and unless quiet which
// failures were quarantined and whether the run now passes (exit 0) or
// still fails and why. w escapes what reaches a terminal.
func (q Quarantined) WriteText(w io.Writer, code int, quiet bool) {
	for _, warn := range q.Warnings {
		fmt.Fprintf(w, "  quarantine: %s\n", warn)
	}
	if quiet {
		return
	}
	if ids := q.Excused(); len(ids) > 0 {
		fmt.Fprintf(w, "  quarantined failures (still reported): %s\n", strings.Join(ids, ", "))
	}
	if !q.Passes {
		fmt.Fprintf(w, "  the check fails: %s\n", q.Reason())
		return
	}
	fmt.Fprintf(w, "  every failure is quarantined: exit 0 (the check exited %d)\n", code)
}
