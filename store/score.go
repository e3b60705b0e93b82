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
// ids in repo from its per-test history (its latest ScoreRuns runs), for
// people: a score informs and never excuses. A test without history
// scores with no evidence. The first MaxScoredTests ids are scored, the
// rest left out. It fails when st keeps no history.
func Scores(ctx context.Context, st any, repo string, ids []string) (map[string]testrun.Flakiness, error) {
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
		entries, err := h.TestHistory(ctx, HistoryQuery{Repo: repo, TestID: id, Limit: ScoreRuns})
		if err != nil {
			return nil, err
		}
		out[id] = testrun.ScoreFlakiness(Points(entries))
	}
	return out, nil
}
