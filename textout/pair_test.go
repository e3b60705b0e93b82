package textout

import (
	"errors"
	"io"

	"github.com/hangar-dev/testresults/testrun"
)

// pairText writes a pair's progress lines (a run, a new-test run, a run's
// problem, the pair's own problem) and its revisions with the verdict,
// with a diff whose name holds an escape sequence and without a diff.
func pairText(w io.Writer) {
	for _, r := range []PairRun{
		{Side: "parent", N: 1, Total: 2, Run: failedRun(), ExitCode: 1, Dir: "/runs/parent-1"},
		{Side: "new", N: 3, Total: 5, Run: &testrun.Run{Status: testrun.StatusSuccess, StartedAt: t0, EndedAt: t0}, Dir: "/runs/new-3"},
		{Side: "patch", N: 2, Total: 2, Err: errors.New("the check timed out")},
		{Err: errors.New("removing the worktrees: locked")},
	} {
		_, _ = io.WriteString(w, r.String()+"\n")
	}
	p := &testrun.Paired{ParentRuns: []string{"p1", "p2"}, PatchRuns: []string{"q1", "q2"}, Decision: testrun.DecisionAllow, Unchanged: 3}
	PairedRevisions(w, "aaaa", "aaaa", "fixes/a\x1b[2J.diff", p)
	PairedRevisions(w, "aaaa", "bbbb", "", p)
}
