package textout

import (
	"fmt"
	"io"

	"github.com/hangar-dev/testresults/testrun"
)

// PairRun is one run of a pair as its progress line tells it: its side
// ("parent", "patch", or "new" for a new-test run), its number N of Total
// on that side, and its run (with the check's exit code and report
// folder) or what went wrong in it. No side: a problem of the pair itself.
type PairRun struct {
	Side     string
	N, Total int
	Err      error
	Run      *testrun.Run
	ExitCode int
	Dir      string
}

// String is the progress line: "patch run 2/3: " and the run's RunLine,
// "patch run 2: " and the problem, or the pair's problem alone.
func (r PairRun) String() string {
	switch {
	case r.Side == "":
		return fmt.Sprint(r.Err)
	case r.Err != nil:
		return fmt.Sprintf("%s run %d: %v", r.Side, r.N, r.Err)
	}
	return fmt.Sprintf("%s run %d/%d: %s", r.Side, r.N, r.Total, RunLine(r.Run, r.ExitCode, r.Dir))
}

// PairedRevisions writes the commits a pair ran on, the patch's followed
// by the diff applied on it (diff "" for none), then the verdict (Paired).
func PairedRevisions(w io.Writer, parent, patch, diff string, p *testrun.Paired) {
	if diff != "" {
		patch += " + " + diff
	}
	fmt.Fprintf(w, "parent: %s\npatch:  %s\n", parent, patch)
	Paired(w, p)
}
