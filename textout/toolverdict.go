package textout

import (
	"fmt"
	"io"

	"github.com/hangar-dev/testresults/testrun"
)

// ToolVerdictWord is the tool-result gate's verdict in a few words:
// "accepted", or "rejected (N reasons)".
func ToolVerdictWord(v testrun.ToolVerdict) string {
	if v.Accepted {
		return "accepted"
	}
	return "rejected (" + Quantity(len(v.Reasons), "reason") + ")"
}

// ToolVerdict writes the verdict's word, then each reason on its own line.
func ToolVerdict(w io.Writer, v testrun.ToolVerdict) {
	fmt.Fprintln(w, ToolVerdictWord(v))
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "  - %s\n", r)
	}
}
