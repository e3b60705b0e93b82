package store

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// JobList is the flaky list and the quarantine of one repository and
// environment in a store, asked as a job asks them while it runs (the
// functions of check.FlakyList): which failures the list excused, and the
// quarantine entries of the failing tests, as they stood when the job
// started; and the runs the job records on the list.
type JobList struct {
	st        Store
	q         QuarantineStore
	repo, env string
}

// JobListOf is the list of repo and env in st.
func JobListOf(st Store, repo, env string) *JobList {
	q, _ := QuarantineOf(st)
	return &JobList{st: st, q: q, repo: repo, env: env}
}

// OnList returns, of ids and in their order, those the list excused for a
// job that started at jobStart (ExcusedIDs).
func (l *JobList) OnList(ctx context.Context, ids []string, jobStart time.Time) ([]string, error) {
	return ExcusedIDs(ctx, l.st, l.repo, l.env, ids, jobStart)
}

// Excused answers, for each of ids, whether the list excused it for a job
// that started at jobStart (Excused).
func (l *JobList) Excused(ctx context.Context, ids []string, jobStart time.Time) (map[string]bool, error) {
	return Excused(ctx, l.st, l.repo, l.env, ids, jobStart)
}

// Record records run on the list (Store.Record) and returns the ids it
// saw flaky, sorted.
func (l *JobList) Record(ctx context.Context, run *testrun.Run) ([]string, error) {
	got, err := l.st.Record(ctx, l.repo, l.env, run)
	return slices.Sorted(maps.Keys(got.Flaky)), err
}

// Quarantine returns the function that reads the quarantine entries of ids
// (QuarantineStore.QuarantineLookup), nil when the store keeps no
// quarantine.
func (l *JobList) Quarantine() func(ctx context.Context, ids []string) ([]testrun.QuarantineEntry, error) {
	if l.q == nil {
		return nil
	}
	return func(ctx context.Context, ids []string) ([]testrun.QuarantineEntry, error) {
		return l.q.QuarantineLookup(ctx, l.repo, l.env, ids)
	}
}
