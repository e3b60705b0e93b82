package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// newTestsFile is the file, in pair's --out folder, that holds what the
// extra runs of the new tests showed (--new-test-runs).
const newTestsFile = "new-tests.json"

// pairNewTests runs the patch's new tests --new-test-runs more times
// (check.Pair.NewTestRuns), writes newTestsFile into the report folders'
// folder, and prints each new test's class: flaky on arrival, new passing,
// new failing or unjudged (stdout without --json). What it finds informs;
// the verdict and the exit code are the pair's.
func pairNewTests(ctx context.Context, p check.Pair, argv []string, res *check.PairResult, n int, human io.Writer, say func(string, ...any)) error {
	got, err := p.NewTestRuns(ctx, argv, res, n)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(got, "", "  ")
	if err == nil {
		err = os.WriteFile(filepath.Join(res.Out, newTestsFile), append(b, '\n'), 0o644)
	}
	if err != nil {
		say("new tests: %v", err)
	}
	if len(got.Tests) == 0 {
		say("new tests: none (every patch test is in a parent run)")
		return nil
	}
	how := "the whole check"
	if got.Selected {
		how = testrun.ShellQuote(got.Argv)
	}
	say("new tests: %d, run %d more times (%s)", len(got.Tests), len(got.Runs), how)
	if human == nil {
		return nil
	}
	w := term.NewWriter(human)
	fmt.Fprintln(w, "\nnew tests (absent from every parent run):")
	for _, t := range got.Tests {
		outs := make([]string, len(t.Outcomes))
		for i, o := range t.Outcomes {
			outs[i] = string(o)
			if o == "" {
				outs[i] = "-"
			}
		}
		fmt.Fprintf(w, "  %-17s %s  [%s]\n", t.Class, t.ID, strings.Join(outs, " "))
	}
	return nil
}
