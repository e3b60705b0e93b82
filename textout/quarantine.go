package textout

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// EnvLabel names the environment a quarantine entry applies to: the empty
// one is every environment.
func EnvLabel(env string) string {
	if env == "" {
		return "every environment"
	}
	return "environment " + term.EscapeLine(env)
}

// QuarantineAdded writes the entry `flaky quarantine add` stored; replaced:
// it renewed one already there.
func QuarantineAdded(w io.Writer, e testrun.QuarantineEntry, replaced bool) {
	verb := "quarantined"
	if replaced {
		verb = "renewed"
	}
	fmt.Fprintf(w, "%s %s in %s (%s) until %s, owner %s\n", verb, term.EscapeLine(e.TestID), term.EscapeLine(e.Repository), EnvLabel(e.Environment), e.Expires.Format(time.RFC3339), term.EscapeLine(e.Owner))
}

// QuarantineRemoved says whether `flaky quarantine remove` removed the entry
// of test in repo and env: the line for stdout, or the reason none was.
func QuarantineRemoved(repo, env, test string, removed bool) string {
	if !removed {
		return fmt.Sprintf("no entry for %s in %s (%s)", term.EscapeLine(test), term.EscapeLine(repo), EnvLabel(env))
	}
	return fmt.Sprintf("removed %s in %s (%s)\n", term.EscapeLine(test), term.EscapeLine(repo), EnvLabel(env))
}

// QuarantineList writes entries as a table for people, the ones expired at
// now marked; an entry for every environment shows "*".
func QuarantineList(w io.Writer, entries []testrun.QuarantineEntry, now time.Time) {
	if len(entries) == 0 {
		fmt.Fprintln(w, "no quarantined test")
		return
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "REPOSITORY\tENV\tTEST\tOWNER\tEXPIRES\tREASON")
	for _, e := range entries {
		env, exp := e.Environment, e.Expires.Format(time.RFC3339)
		if env == "" {
			env = "*"
		}
		if e.Expired(now) {
			exp += " (expired)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", term.EscapeLine(e.Repository), term.EscapeLine(env), term.EscapeLine(e.TestID), term.EscapeLine(e.Owner), exp, term.EscapeLine(e.Reason))
	}
	_ = tw.Flush() // a failed write to stdout has no one else to tell
}
