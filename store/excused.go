package store

import (
	"context"
	"time"
)

// Excused answers, for each test id, whether the flaky list of repo and
// env excused it for a job that started at jobStart
// (testrun.FlakyEntry.Excused: only entries on the list before the job
// started count). Every id is a key of the result.
func Excused(ctx context.Context, s Store, repo, env string, ids []string, jobStart time.Time) (map[string]bool, error) {
	entries, err := s.Lookup(ctx, repo, env, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		e, ok := entries[id]
		out[id] = ok && e.Excused(jobStart)
	}
	return out, nil
}
