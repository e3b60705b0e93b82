package store

import (
	"context"

	"github.com/hangar-dev/testresults/testrun"
)

// ScoreRuns is how many of a test's latest stored runs Scores reads.
const ScoreRuns = 1000

// MaxScoredTests bounds the tests one Scores call scores.
const MaxScoredTests = 200

// Scores returns the flakiness score (testrun.ScoreFlakiness) of each of
// ids in repo and environment env from its per-test history there (its
// latest ScoreRuns runs), for people: a score informs and never excuses.
// env "" is DefaultEnvironment: a caller scoring a stored run passes the
// run's own (StoredRun.Environment), so that a test flaky on one
// environment is not scored by another's runs. A test without history
// scores with no evidence. The first MaxScoredTests ids are scored, the
// rest left out. It fails when st keeps no history.
func Scores(ctx context.Context, st any, repo, env string, ids []string) (map[string]testrun.Flakiness, error) {
	h, err := HistoryOf(st)
	if err != nil {
		return nil, err
	}
	if len(ids) > MaxScoredTests {
		ids = ids[:MaxScoredTests]
	}
	out := make(map[string]testrun.Flakiness, len(ids))
	for _, id := range ids {
		if _, ok := out[id]; ok {
			continue
		}
		entries, err := h.TestHistory(ctx, HistoryQuery{Repo: repo, Environment: env, TestID: id, Limit: ScoreRuns})
		if err != nil {
			return nil, err
		}
		out[id] = testrun.ScoreFlakiness(Points(entries))
	}
	return out, nil
}
