package store

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func TestRecordRunAndQueries(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		base := run("b1", "tree1", testrun.KindBase, map[string]testrun.Outcome{"a": pass, "b": fail})
		after := run("a1", "tree2", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail, "b": fail})
		turn := 3
		added, err := s.RecordRun(ctx, StoredRun{Run: base, Repo: "acme/api", JobID: "job-1"})
		require.NoError(t, err)
		assert.True(t, added)
		c.Advance(time.Minute)
		added, err = s.RecordRun(ctx, StoredRun{Run: after, Repo: "acme/api", JobID: "job-1", SessionRef: "sess-1", Turn: &turn})
		require.NoError(t, err)
		assert.True(t, added)

		// Recording again with the same tags is a no-op.
		added, err = s.RecordRun(ctx, StoredRun{Run: after, Repo: "acme/api", JobID: "job-1", SessionRef: "sess-1", Turn: &turn})
		require.NoError(t, err)
		assert.False(t, added)

		runs, err := s.JobRuns(ctx, "job-1")
		require.NoError(t, err)
		require.Len(t, runs, 2)
		assert.Equal(t, "b1", runs[0].Run.ID)
		assert.Equal(t, "a1", runs[1].Run.ID)
		assert.Nil(t, runs[0].Run.Cases, "JobRuns leaves the per-case map out")
		assert.True(t, runs[1].HasCases)
		assert.Equal(t, "acme/api", runs[1].Repo)
		assert.Equal(t, "sess-1", runs[1].SessionRef)
		require.NotNil(t, runs[1].Turn)
		assert.Equal(t, 3, *runs[1].Turn)
		assert.Nil(t, runs[0].Turn)
		assert.Equal(t, c.Now(), runs[1].RecordedAt)
		assert.Equal(t, after.Counts, runs[1].Run.Counts)
		assert.Equal(t, after.Failures, runs[1].Run.Failures)

		sess, err := s.SessionRuns(ctx, "sess-1")
		require.NoError(t, err)
		require.Len(t, sess, 1)
		assert.Equal(t, "a1", sess[0].Run.ID)

		none, err := s.JobRuns(ctx, "job-2")
		require.NoError(t, err)
		assert.Empty(t, none)

		one, err := s.Run(ctx, "a1")
		require.NoError(t, err)
		assert.Equal(t, after.Cases, one.Run.Cases)
		assert.Equal(t, map[string]time.Duration{"a": time.Millisecond, "b": time.Millisecond}, one.Run.Durations)
		assert.True(t, one.HasCases)
		assert.Nil(t, runs[1].Run.Durations, "JobRuns leaves the durations out with the cases")

		_, err = s.Run(ctx, "nope")
		assert.ErrorIs(t, err, ErrNotFound)
	})
}

func TestRecordRunRefuses(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ctx := context.Background()
		r := run("r1", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
		for name, sr := range map[string]StoredRun{
			"no run":          {},
			"long job id":     {Run: r, JobID: strings.Repeat("j", MaxTagLength+1)},
			"control in repo": {Run: r, Repo: "a\x1bb"},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := s.RecordRun(ctx, sr)
				assert.Error(t, err)
			})
		}
	})
}

// TestRecordRunRefusesPathSeparators records nothing whose run id, job id
// or session ref is not one path element (serve's addresses could never
// read it back), and a repository with slashes as before.
func TestRecordRunRefusesPathSeparators(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ctx := context.Background()
		r := func(id string) *testrun.Run {
			return run(id, "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
		}
		for name, sr := range map[string]StoredRun{
			"job id with a slash":      {Run: r("r1"), JobID: "ci/test"},
			"job id with a backslash":  {Run: r("r1"), JobID: `ci\test`},
			"job id dot dot":           {Run: r("r1"), JobID: ".."},
			"session ref with a slash": {Run: r("r1"), SessionRef: "a/b"},
			"session ref dot":          {Run: r("r1"), SessionRef: "."},
			"run id with a slash":      {Run: r("r/1"), JobID: "j"},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := s.RecordRun(ctx, sr)
				require.ErrorIs(t, err, ErrTagNotElement)
			})
		}
		runs, err := s.JobRuns(ctx, "ci/test")
		require.NoError(t, err)
		assert.Empty(t, runs)
		added, err := s.RecordRun(ctx, StoredRun{Run: r("r1"), Repo: "acme/api", JobID: "ci-test", SessionRef: "s.1"})
		require.NoError(t, err)
		assert.True(t, added)
	})
}

func TestPruneRuns(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		rec := func(id string, kind testrun.Kind) {
			_, err := s.RecordRun(ctx, StoredRun{Run: run(id, "t", kind, map[string]testrun.Outcome{"a": pass}), JobID: "j"})
			require.NoError(t, err)
		}
		rec("old", testrun.KindAfterTurn) // day 0
		rec("oldbase", testrun.KindBase)
		c.Advance(4 * 24 * time.Hour)
		rec("mid", testrun.KindAfterTurn) // day 4
		rec("midbase", testrun.KindBase)
		c.Advance(11 * 24 * time.Hour) // day 15

		p, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Runs: 2, Cases: 1}, p)

		runs, err := s.JobRuns(ctx, "j")
		require.NoError(t, err)
		require.Len(t, runs, 2)
		assert.Equal(t, "mid", runs[0].Run.ID)
		assert.False(t, runs[0].HasCases, "an 11-day-old run keeps no cases")
		assert.Equal(t, "midbase", runs[1].Run.ID)
		assert.True(t, runs[1].HasCases, "a base run keeps its cases 14 days")

		mid, err := s.Run(ctx, "mid")
		require.NoError(t, err)
		assert.Nil(t, mid.Run.Cases)
		assert.Nil(t, mid.Run.Durations, "durations go with the cases")
		midbase, err := s.Run(ctx, "midbase")
		require.NoError(t, err)
		assert.Equal(t, map[string]time.Duration{"a": time.Millisecond}, midbase.Run.Durations)
		assert.NotNil(t, mid.Run.Counts, "counts stay")

		p, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{}, p)
	})
}

// TestRecordRunForTwoJobs: the same run (same reports, same id) recorded
// for a second job and session is stored for both: each lists it, with
// its own tags, and the first keeps its own.
func TestRecordRunForTwoJobs(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		r := run("same", "tree", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail})
		one, two := 1, 2
		added, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job-A", SessionRef: "sess-A", Turn: &one})
		require.NoError(t, err)
		assert.True(t, added)
		firstAt := c.Now()
		c.Advance(time.Minute)
		other := run("other", "tree", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
		_, err = s.RecordRun(ctx, StoredRun{Run: other, Repo: "acme/api", JobID: "job-B"})
		require.NoError(t, err)
		c.Advance(time.Minute)
		again := run("same", "tree", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail})
		added, err = s.RecordRun(ctx, StoredRun{Run: again, Repo: "acme/api", JobID: "job-B", SessionRef: "sess-B", Turn: &two})
		require.NoError(t, err)
		assert.True(t, added, "a new tagging is an addition")

		for _, tc := range []struct {
			query   func(context.Context, string) ([]StoredRun, error)
			key     string
			ids     []string
			job     string
			session string
			turn    int
			at      time.Time
		}{
			{s.JobRuns, "job-A", []string{"same"}, "job-A", "sess-A", 1, firstAt},
			{s.SessionRuns, "sess-A", []string{"same"}, "job-A", "sess-A", 1, firstAt},
			{s.JobRuns, "job-B", []string{"other", "same"}, "job-B", "sess-B", 2, c.Now()},
			{s.SessionRuns, "sess-B", []string{"same"}, "job-B", "sess-B", 2, c.Now()},
		} {
			runs, err := tc.query(ctx, tc.key)
			require.NoError(t, err)
			var ids []string
			for _, sr := range runs {
				ids = append(ids, sr.Run.ID)
			}
			require.Equal(t, tc.ids, ids, tc.key)
			got := runs[len(runs)-1]
			assert.Equal(t, tc.job, got.JobID, tc.key)
			assert.Equal(t, tc.session, got.SessionRef, tc.key)
			require.NotNil(t, got.Turn, tc.key)
			assert.Equal(t, tc.turn, *got.Turn, tc.key)
			assert.Equal(t, tc.at, got.RecordedAt, tc.key)
			assert.Equal(t, r.Counts, got.Run.Counts, tc.key)
			assert.True(t, got.HasCases, tc.key)
		}

		// A job that records it twice lists it once.
		added, err = s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job-A"})
		require.NoError(t, err)
		assert.True(t, added)
		runs, err := s.JobRuns(ctx, "job-A")
		require.NoError(t, err)
		require.Len(t, runs, 1)
		assert.Equal(t, "sess-A", runs[0].SessionRef, "its first tagging in the job")

		full, err := s.Run(ctx, "same")
		require.NoError(t, err)
		assert.Equal(t, "job-A", full.JobID, "Run gives the first tags")
		assert.Equal(t, r.Cases, full.Run.Cases)

		// A run stored without a per-case map, and without tags.
		bare := func() *testrun.Run {
			r := run("bare", "tree", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
			r.Cases, r.Durations = nil, nil
			return r
		}
		_, err = s.RecordRun(ctx, StoredRun{Run: bare()})
		require.NoError(t, err)
		added, err = s.RecordRun(ctx, StoredRun{Run: bare(), Repo: "acme/api", JobID: "job-C"})
		require.NoError(t, err)
		assert.True(t, added)
		runs, err = s.JobRuns(ctx, "job-C")
		require.NoError(t, err)
		require.Len(t, runs, 1)
		assert.False(t, runs[0].HasCases)
		assert.Equal(t, "acme/api", runs[0].Repo, "a repository unknown until now is filled in")
	})
}

// TestRecordRunConflict: a run id stored already, recorded with other
// content (another kind, counts, reports, ...), is refused with the
// reason, and the stored run stays as it was, for its job only.
func TestRecordRunConflict(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		mk := func() *testrun.Run {
			return run("r1", "tree", testrun.KindGate, map[string]testrun.Outcome{"a": pass, "b": fail})
		}
		_, err := s.RecordRun(ctx, StoredRun{Run: mk(), Repo: "acme/api", JobID: "job-A"})
		require.NoError(t, err)

		otherDigest := mk()
		otherDigest.Reports[0].SHA256 = "ff"
		otherDurations := mk()
		otherDurations.Durations["a"] = 5 * time.Millisecond
		for name, tc := range map[string]struct {
			sr   StoredRun
			want string
		}{
			"kind":       {StoredRun{Run: run("r1", "tree", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail}), Repo: "acme/api", JobID: "job-B"}, `stored as kind "gate", not "after_turn"`},
			"tree":       {StoredRun{Run: run("r1", "tree2", testrun.KindGate, map[string]testrun.Outcome{"a": pass, "b": fail}), Repo: "acme/api", JobID: "job-B"}, `stored with tree "tree", not "tree2"`},
			"counts":     {StoredRun{Run: run("r1", "tree", testrun.KindGate, map[string]testrun.Outcome{"a": pass, "b": pass}), Repo: "acme/api", JobID: "job-B"}, "its counts differ"},
			"digest":     {StoredRun{Run: otherDigest, Repo: "acme/api", JobID: "job-B"}, "its reports (paths, digests or sizes) differ"},
			"failures":   {StoredRun{Run: run("r1", "tree", testrun.KindGate, map[string]testrun.Outcome{"a": fail, "b": pass}), Repo: "acme/api", JobID: "job-B"}, "its failures differ"},
			"durations":  {StoredRun{Run: otherDurations, Repo: "acme/api", JobID: "job-B"}, "its case durations differ"},
			"repository": {StoredRun{Run: mk(), Repo: "acme/web", JobID: "job-B"}, `stored for repository "acme/api", not "acme/web"`},
		} {
			t.Run(name, func(t *testing.T) {
				added, err := s.RecordRun(ctx, tc.sr)
				require.ErrorIs(t, err, ErrRunConflict)
				assert.False(t, added)
				assert.ErrorContains(t, err, "run ID is already stored with different content")
				assert.ErrorContains(t, err, tc.want)
				assert.ErrorContains(t, err, `"r1"`)
			})
		}
		none, err := s.JobRuns(ctx, "job-B")
		require.NoError(t, err)
		assert.Empty(t, none, "a refused run is not tagged")
		kept, err := s.Run(ctx, "r1")
		require.NoError(t, err)
		assert.Equal(t, testrun.KindGate, kept.Run.Kind)
		assert.Equal(t, mk().Counts, kept.Run.Counts)
		assert.Equal(t, mk().Cases, kept.Run.Cases)
		assert.Equal(t, "acme/api", kept.Repo)
		runs, err := s.JobRuns(ctx, "job-A")
		require.NoError(t, err)
		require.Len(t, runs, 1)
	})
}

// TestRecordRunRefreshesRetention: a run recorded for a new job is kept
// as long as one recorded then, its per-case map included, and gets back
// a per-case map that retention had dropped.
func TestRecordRunRefreshesRetention(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		mk := func() *testrun.Run {
			return run("r1", "tree", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass})
		}
		_, err := s.RecordRun(ctx, StoredRun{Run: mk(), JobID: "job-A"})
		require.NoError(t, err)
		c.Advance(CasesTTL + time.Hour)
		p, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Cases: 1}, p)

		_, err = s.RecordRun(ctx, StoredRun{Run: mk(), JobID: "job-B"})
		require.NoError(t, err)
		got, err := s.Run(ctx, "r1")
		require.NoError(t, err)
		assert.Equal(t, mk().Cases, got.Run.Cases, "the same cases are kept again")
		assert.Equal(t, mk().Durations, got.Run.Durations)

		c.Advance(RunTTL - CasesTTL)
		p, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Cases: 1}, p, "RunTTL after the first recording, CasesTTL after the second")
		runs, err := s.JobRuns(ctx, "job-B")
		require.NoError(t, err)
		require.Len(t, runs, 1)

		c.Advance(CasesTTL + time.Hour)
		p, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Runs: 1}, p)
		for _, job := range []string{"job-A", "job-B"} {
			runs, err := s.JobRuns(ctx, job)
			require.NoError(t, err)
			assert.Empty(t, runs, job)
		}
	})
}

// TestJobVersion: a job's fingerprint stays while nothing a reader of its
// runs sees changes (a record with tags it has, a run of another job), and
// changes with each thing that does: a run tagged for the job, a listed
// run tagged for another job (which fills in its repository or gives its
// cases back), retention dropping cases or runs. Another handle on the same database sees the
// same fingerprints.
func TestJobVersion(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		loc := b.location(t)
		s := open(t, loc, c)
		other := open(t, loc, c)
		ctx := context.Background()
		version := func() string {
			t.Helper()
			v, err := s.JobVersion(ctx, "j")
			require.NoError(t, err)
			w, err := other.JobVersion(ctx, "j")
			require.NoError(t, err)
			require.Equal(t, v, w, "every handle sees the same fingerprint")
			return v
		}
		seen := map[string]string{}
		changed := func(what string) {
			t.Helper()
			v := version()
			prev, dup := seen[v]
			require.False(t, dup, "%s: the fingerprint of %s came back", what, prev)
			seen[v] = what
		}
		rec := func(sr StoredRun) {
			t.Helper()
			_, err := s.RecordRun(ctx, sr)
			require.NoError(t, err)
		}
		changed("no runs")
		a := run("a", "t1", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass, "y": fail})
		rec(StoredRun{Run: a, JobID: "j"})
		changed("run a")
		v := version()
		rec(StoredRun{Run: a, JobID: "j"})
		assert.Equal(t, v, version(), "recorded again with its tags: nothing changes")
		rec(StoredRun{Run: run("z", "t9", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass}), JobID: "k"})
		assert.Equal(t, v, version(), "another job's run")
		sv, err := s.SessionVersion(ctx, "sess")
		require.NoError(t, err)

		c.Advance(time.Hour)
		rec(StoredRun{Run: a, Repo: "acme/api", JobID: "k2", SessionRef: "sess"})
		changed("run a tagged for another job, with its repository")
		runs, err := s.JobRuns(ctx, "j")
		require.NoError(t, err)
		assert.Equal(t, "acme/api", runs[0].Repo, "the job lists the repository now")
		sv2, err := s.SessionVersion(ctx, "sess")
		require.NoError(t, err)
		assert.NotEqual(t, sv, sv2, "the session lists run a now")

		c.Advance(time.Hour)
		rec(StoredRun{Run: run("base", "t2", testrun.KindBase, map[string]testrun.Outcome{"x": pass}), JobID: "j"})
		changed("a base run")

		c.Advance(4 * 24 * time.Hour)
		p, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, PrunedRuns{Cases: 2}, p, "the cases of runs a and z go")
		changed("cases dropped")
		v = version()
		p, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, PrunedRuns{}, p)
		assert.Equal(t, v, version(), "retention that drops nothing changes nothing")
		c.Advance(time.Minute)
		rec(StoredRun{Run: a, Repo: "acme/api", JobID: "k3"})
		changed("run a's cases given back by a tagging for another job")
		runs, err = s.JobRuns(ctx, "j")
		require.NoError(t, err)
		require.True(t, runs[0].HasCases)

		c.Advance(10*24*time.Hour + time.Hour) // the base goes, run a stays
		p, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		require.Equal(t, int64(2), p.Runs, "the base and run z")
		changed("the base dropped")
		runs, err = s.JobRuns(ctx, "j")
		require.NoError(t, err)
		require.Len(t, runs, 1)
	})
}

// TestJobVersionAfterMigration: jobs and sessions recorded before versions
// were kept have one once migrated, and a new one with the next change.
func TestJobVersionAfterMigration(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		loc := b.location(t)
		c := newClock()
		ctx := context.Background()
		old, err := Open(ctx, loc, WithClock(c.Now))
		require.NoError(t, err)
		_, err = old.RecordRun(ctx, StoredRun{Run: run("a", "t1", testrun.KindBase, map[string]testrun.Outcome{"x": pass}), JobID: "j", SessionRef: "s"})
		require.NoError(t, err)
		// As version 4 left it.
		for _, stmt := range []string{`DROP TABLE run_versions`, `DROP TABLE run_writes`, `DELETE FROM schema_migrations WHERE version >= 5`, `DROP TABLE test_history`, `DROP TABLE history_runs`, `DROP TABLE quarantine`, `DROP TABLE run_failing`, `DROP INDEX flaky_entries_excused`, `ALTER TABLE runs DROP COLUMN environment`} {
			_, err := old.(*sqlStore).db.ExecContext(ctx, stmt)
			require.NoError(t, err)
		}
		require.NoError(t, old.Close())

		s := open(t, loc, c)
		v, err := s.JobVersion(ctx, "j")
		require.NoError(t, err)
		sv, err := s.SessionVersion(ctx, "s")
		require.NoError(t, err)
		none, err := s.JobVersion(ctx, "never")
		require.NoError(t, err)
		assert.NotEqual(t, none, v, "a recorded job has a version")
		assert.NotEqual(t, none, sv)
		_, err = s.RecordRun(ctx, StoredRun{Run: run("b", "t2", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": fail}), JobID: "j"})
		require.NoError(t, err)
		v2, err := s.JobVersion(ctx, "j")
		require.NoError(t, err)
		assert.NotEqual(t, v, v2)
	})
}
