package textout

import (
	"fmt"
	"io"
	"strings"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// pairedShown is how many tests of each verdict the table lists.
const pairedShown = 20

// Paired writes the paired verdict as a table: the runs, the decision, then
// each verdict with its count and its first tests (their outcomes on each
// side and why), and how many are unchanged.
func Paired(w io.Writer, p *testrun.Paired) {
	fmt.Fprintf(w, "parent runs: %s\npatch runs:  %s\n", strings.Join(p.ParentRuns, ", "), strings.Join(p.PatchRuns, ", "))
	fmt.Fprintf(w, "decision: %s\n", p.Decision)
	if p.Invalid != "" {
		fmt.Fprintf(w, "invalid: %s\n", p.Invalid)
		return
	}
	for _, u := range p.Unusable {
		fmt.Fprintf(w, "unusable: %s\n", term.EscapeLine(u))
	}
	for _, g := range []struct {
		name  string
		tests []testrun.TestVerdict
	}{{"broken", p.Broken}, {"repaired", p.Repaired}, {"frozen", p.Frozen}, {"inconclusive", p.Inconclusive}} {
		fmt.Fprintf(w, "%-12s %d\n", g.name, len(g.tests))
		for i, tv := range g.tests {
			if i == pairedShown {
				fmt.Fprintf(w, "  … and %d more (--json lists all)\n", len(g.tests)-pairedShown)
				break
			}
			line := fmt.Sprintf("  %s  parent %s  patch %s", tv.ID, Outcomes(tv.Parent), Outcomes(tv.Patch))
			if tv.Reason != "" {
				line += "  (" + tv.Reason + ")"
			}
			fmt.Fprintln(w, line)
		}
	}
	fmt.Fprintf(w, "%-12s %d\n", "unchanged", p.Unchanged)
}

// Frozen lists the frozen tests, excluded from the vote, one line each for
// the log: "frozen (excluded): ID: parent OUTCOMES".
func Frozen(p *testrun.Paired) []string {
	lines := make([]string, len(p.Frozen))
	for i, tv := range p.Frozen {
		lines[i] = fmt.Sprintf("frozen (excluded): %s: parent %s", term.EscapeLine(tv.ID), Outcomes(tv.Parent))
	}
	return lines
}
