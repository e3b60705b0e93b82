package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// RecordRuns stores each of runs with the tags of where (its Run is
// ignored; its Environment "" is DefaultEnvironment), for the query API.
// The first run the store refuses (a conflict, ErrRunConflict; a bad tag)
// stops it with an error naming that run; the runs before it stay stored.
func RecordRuns(ctx context.Context, st RunStore, where StoredRun, runs ...*testrun.Run) error {
	where.Environment = EnvironmentOr(where.Environment)
	for _, r := range runs {
		sr := where
		sr.Run = r
		if _, err := st.RecordRun(ctx, sr); err != nil {
			return fmt.Errorf("record %s: %w", r.ID, err)
		}
	}
	return nil
}

// RecordFlaky records each of runs on the flaky list of repo and env
// (Store.Record) and says what it did with each, in order. A run the list
// refuses (testrun.CheckRecordable: a gate run, an untrusted grader) is
// answered as not recorded, with the reason, and the next is recorded;
// any other error stops it.
func RecordFlaky(ctx context.Context, st Store, repo, env string, runs ...*testrun.Run) ([]testrun.FlakyRecord, error) {
	out := make([]testrun.FlakyRecord, 0, len(runs))
	for _, r := range runs {
		got, err := st.Record(ctx, repo, env, r)
		switch {
		case errors.Is(err, testrun.ErrNotRecordable):
			out = append(out, testrun.FlakyRecord{Run: r.ID, Reason: err.Error(), Flaky: map[string][]testrun.FlakyHow{}})
			continue
		case err != nil:
			return nil, err
		}
		out = append(out, testrun.FlakyRecord{Run: r.ID, Recorded: true, Observed: got.Observed, Flaky: got.Flaky})
	}
	return out, nil
}

// ExcusedIDs returns, of ids and in their order, those the flaky list of
// repo and env excused for a job that started at jobStart (Excused: only
// entries on the list before then count): the flaky marks of a
// comparison, as run and packet make them.
func ExcusedIDs(ctx context.Context, st Store, repo, env string, ids []string, jobStart time.Time) ([]string, error) {
	on, err := Excused(ctx, st, repo, env, ids, jobStart)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, id := range ids {
		if on[id] {
			out = append(out, id)
		}
	}
	return out, nil
}

// ListScored returns the live entries f selects (Store.List) and each
// one's flakiness score from the history of its own repository and
// environment (testrun.ScoreEntries over Scores), nil for an entry not
// scored.
func ListScored(ctx context.Context, st Store, f Filter) ([]testrun.FlakyEntry, []*testrun.Flakiness, error) {
	entries, err := st.List(ctx, f)
	if err != nil {
		return nil, nil, err
	}
	scores, err := testrun.ScoreEntries(entries, func(repo, env string, ids []string) (map[string]testrun.Flakiness, error) {
		return Scores(ctx, st, repo, env, ids)
	})
	if err != nil {
		return nil, nil, err
	}
	return entries, scores, nil
}

// RunsWhere is where the store recorded runs, so that one history can
// score them: the one repository (testrun.CommonRepository's rule: "" when
// none is stored with one, or they name two) and the one environment (that
// of the stored runs; DefaultEnvironment when none is stored; "" when they
// name two). Runs not stored count for neither.
func RunsWhere(ctx context.Context, st RunStore, runs []*testrun.Run) (repo, env string, err error) {
	found := map[string]StoredRun{}
	for _, r := range runs {
		sr, _, err := st.RunPage(ctx, r.ID, 0, 1)
		switch {
		case errors.Is(err, ErrNotFound):
			continue
		case err != nil:
			return "", "", err
		}
		found[r.ID] = sr
	}
	repo, _ = testrun.CommonRepository(runs, func(id string) (string, error) { return found[id].Repo, nil })
	for _, sr := range found {
		switch e := EnvironmentOr(sr.Environment); {
		case env == "":
			env = e
		case env != e:
			return repo, "", nil
		}
	}
	return repo, EnvironmentOr(env), nil
}

// RunScores returns the flakiness scores (Scores) of ids, the tests of
// runs that are shown, from the history of repo and env. repo "" is the
// repository the store recorded the runs under, env "" their environment
// (RunsWhere). When no one history scores them (no repository, or two
// environments) it returns nil: the scores inform, and their absence is no
// error.
func RunScores(ctx context.Context, st Store, repo, env string, runs []*testrun.Run, ids []string) (map[string]testrun.Flakiness, error) {
	if repo == "" || env == "" {
		storedRepo, storedEnv, err := RunsWhere(ctx, st, runs)
		if err != nil {
			return nil, err
		}
		if repo == "" {
			repo = storedRepo
		}
		if env == "" {
			env = storedEnv
		}
	}
	if repo == "" || env == "" {
		return nil, nil
	}
	return Scores(ctx, st, repo, env, ids)
}

// RunOnList is what the flaky list of a repository and environment says
// of one run, for its review packet (see ListRun).
type RunOnList struct {
	// Marks are the run's flaky tests the list held when the job started
	// (ExcusedIDs: the marks run gives them).
	Marks []string
	// Listed is how many tests the list holds now.
	Listed int
	// Scores are the flakiness scores of the ids asked for, from the
	// history of the same repository and environment (RunScores); they
	// inform and excuse nothing.
	Scores map[string]testrun.Flakiness
}

// ListRun reads what the flaky list of repo and env says of run r for a
// job that started at jobStart, scoring ids (the tests the packet shows).
func ListRun(ctx context.Context, st Store, repo, env string, r *testrun.Run, ids []string, jobStart time.Time) (RunOnList, error) {
	var out RunOnList
	entries, err := st.List(ctx, Filter{Repository: repo, Environment: env})
	if err != nil {
		return out, err
	}
	out.Listed = len(entries)
	if out.Marks, err = ExcusedIDs(ctx, st, repo, env, r.Flaky, jobStart); err != nil {
		return out, err
	}
	out.Scores, err = RunScores(ctx, st, repo, env, []*testrun.Run{r}, ids)
	return out, err
}

// CheckFlaky answers which failures of after the flaky list of repo and
// env excuses for a job that started at jobStart (testrun.ExcuseByEntries:
// on a red base, only the new failures against base), with the entries it
// holds of those failures, for the answer's detail.
func CheckFlaky(ctx context.Context, st Store, repo, env string, after, base *testrun.Run, jobStart time.Time) (testrun.Excusal, map[string]testrun.FlakyEntry, error) {
	return testrun.ExcuseByEntries(after, base, jobStart, func(ids []string) (map[string]testrun.FlakyEntry, error) {
		return st.Lookup(ctx, repo, env, ids)
	})
}
