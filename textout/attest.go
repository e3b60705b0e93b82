package textout

import (
	"fmt"
	"io"
)

// Verification writes what verifying an attestation found: "verified"
// with the commit, the predicate's result and how many reports were
// re-hashed, or, when there are problems, "rejected" and one line a broken
// rule. Only the verified line's write error is returned: a rejection
// ends the command with its exit code whatever was written.
func Verification(w io.Writer, commit, result string, reports int, problems []string) error {
	if len(problems) > 0 {
		fmt.Fprintf(w, "rejected (%s)\n", Quantity(len(problems), "reason"))
		for _, p := range problems {
			fmt.Fprintf(w, "  - %s\n", p)
		}
		return nil
	}
	_, err := fmt.Fprintf(w, "verified: commit %s, result %s, %s re-hashed\n", commit, result, Quantity(reports, "report"))
	return err
}
