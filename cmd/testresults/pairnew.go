package main

import (
	"context"
	"io"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/internal/term"
)

// pairNewTests runs the patch's new tests --new-test-runs more times
// (check.Pair.NewTestRuns), writes check.NewTestsFile into the report
// folders' folder, and prints each new test's class: flaky on arrival, new
// passing, new failing or unjudged (stdout without --json). What it finds
// informs; the verdict and the exit code are the pair's.
func pairNewTests(ctx context.Context, p check.Pair, argv []string, res *check.PairResult, n int, human io.Writer, say func(string, ...any)) error {
	got, err := p.NewTestRuns(ctx, argv, res, n)
	if err != nil {
		return err
	}
	if err := got.WriteFile(res.Out); err != nil {
		say("new tests: %v", err)
	}
	if len(got.Tests) == 0 {
		say("new tests: none (every patch test is in a parent run)")
		return nil
	}
	say("new tests: %d, run %d more times (%s)", len(got.Tests), len(got.Runs), got.How())
	if human != nil {
		got.WriteText(term.NewWriter(human))
	}
	return nil
}
