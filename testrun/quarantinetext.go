package testrun

import (
	"fmt"
	"io"
	"strings"
)

// oneLine writes the characters that break a line as their escapes.
var oneLine = strings.NewReplacer("\n", `\n`, "\r", `\r`, "\t", `\t`)

// WriteText writes what quarantine decided of a run that exited code, for
// people: the entries that did not count always, and unless quiet which
// failures were quarantined and whether the run now passes (exit 0) or
// still fails and why. w escapes what reaches a terminal; a new line or a
// tab in a test id or an owner is written escaped here, so that report
// text cannot forge a line.
func (q Quarantined) WriteText(w io.Writer, code int, quiet bool) {
	for _, warn := range q.Warnings {
		fmt.Fprintf(w, "  quarantine: %s\n", oneLine.Replace(warn))
	}
	if quiet {
		return
	}
	if ids := q.Excused(); len(ids) > 0 {
		fmt.Fprintf(w, "  quarantined failures (still reported): %s\n", oneLine.Replace(strings.Join(ids, ", ")))
	}
	if !q.Passes {
		fmt.Fprintf(w, "  the check fails: %s\n", oneLine.Replace(q.Reason()))
		return
	}
	fmt.Fprintf(w, "  every failure is quarantined: exit 0 (the check exited %d)\n", code)
}
