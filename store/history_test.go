package store

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func historyOf(t *testing.T, s Store) HistoryStore {
	t.Helper()
	h, err := HistoryOf(s)
	require.NoError(t, err)
	return h
}

// outcomesOf lists the outcomes of entries, in their order.
func outcomesOfHistory(entries []HistoryEntry) []string {
	out := make([]string, len(entries))
	for i, e := range entries {
		out[i] = e.RunID + ":" + string(e.Outcome)
	}
	return out
}

// TestHistoryRecordedWithRuns records counted runs and reads one test's
// history back: one entry per run, oldest first, with its time, tree,
// outcome, stated duration and runner retry, bounded by time and count.
func TestHistoryRecordedWithRuns(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		h := historyOf(t, s)
		ctx := context.Background()
		start := c.Now()
		var runs []*testrun.Run
		for i, o := range []testrun.Outcome{pass, fail, pass, testrun.OutcomeSkipped} {
			r := run(fmt.Sprintf("r%d", i), fmt.Sprintf("tree%d", i/2), testrun.KindAfterTurn, map[string]testrun.Outcome{"pkg::a": o, "pkg::b": pass}, "pkg::c")
			r.StartedAt = start.Add(time.Duration(i) * time.Hour)
			r.EndedAt = r.StartedAt.Add(time.Minute)
			_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
			require.NoError(t, err)
			runs = append(runs, r)
		}
		got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "pkg::a"})
		require.NoError(t, err)
		assert.Equal(t, []string{"r0:passed", "r1:failed", "r2:passed", "r3:skipped"}, outcomesOfHistory(got))
		assert.Equal(t, start.Add(time.Hour), got[1].At)
		assert.Equal(t, "tree0", got[1].Tree)
		assert.True(t, got[1].Timed)
		assert.Equal(t, 6*time.Millisecond, got[1].Duration, "the id's length in milliseconds, as the test runs state")
		assert.False(t, got[1].Retried)

		retried, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "pkg::c"})
		require.NoError(t, err)
		require.Len(t, retried, 4)
		assert.True(t, retried[0].Retried)
		f := testrun.ScoreFlakiness(Points(retried))
		assert.Equal(t, 4, f.Retries)
		assert.True(t, f.Flaky)

		ranged, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "pkg::a", Since: start.Add(time.Hour), Until: start.Add(3 * time.Hour)})
		require.NoError(t, err)
		assert.Equal(t, []string{"r1:failed", "r2:passed"}, outcomesOfHistory(ranged))
		latest, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "pkg::a", Limit: 2})
		require.NoError(t, err)
		assert.Equal(t, []string{"r2:passed", "r3:skipped"}, outcomesOfHistory(latest))

		other, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/web", TestID: "pkg::a"})
		require.NoError(t, err)
		assert.Empty(t, other, "another repository's history is its own")

		assert.Equal(t, "job", got[1].JobID)

		// Recording a run again, for another job too, adds nothing.
		for _, job := range []string{"job", "job-2"} {
			_, err = s.RecordRun(ctx, StoredRun{Run: runs[0], Repo: "acme/api", JobID: job})
			require.NoError(t, err)
		}
		again, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "pkg::a"})
		require.NoError(t, err)
		assert.Len(t, again, 4)
	})
}

// TestHistoryOnlyOfCountedRuns: a gate run (the agent's own checks) and
// an untrusted grader make no history, so a forgeable run never shapes
// the score people read.
func TestHistoryOnlyOfCountedRuns(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		h := historyOf(t, s)
		ctx := context.Background()
		gate := run("g", "t", testrun.KindGate, map[string]testrun.Outcome{"a": fail}, "b")
		grader := run("gr", "t", testrun.KindGrader, map[string]testrun.Outcome{"a": fail})
		grader.Grade = "shared"
		for _, r := range []*testrun.Run{gate, grader} {
			_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
			require.NoError(t, err)
		}
		got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		assert.Empty(t, got)
		trends, err := h.Trends(ctx, "acme/api", "", 0)
		require.NoError(t, err)
		assert.Empty(t, trends)
	})
}

// TestHistoryFollowsRetention: a run's per-test rows go when retention
// drops its per-case map (3 days, 14 for base runs), its totals when the
// run goes (14 days), and come back when its cases are given back.
func TestHistoryFollowsRetention(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		h := historyOf(t, s)
		ctx := context.Background()
		cases := map[string]testrun.Outcome{"a": pass}
		record := func(id string, k testrun.Kind, job string) {
			t.Helper()
			_, err := s.RecordRun(ctx, StoredRun{Run: run(id, "tree-"+id, k, cases), Repo: "acme/api", JobID: job})
			require.NoError(t, err)
		}
		record("old", testrun.KindAfterTurn, "job")
		record("base", testrun.KindBase, "job")
		c.Advance(testrun.CasesRetention + time.Hour)
		record("new", testrun.KindAfterTurn, "job")
		_, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)

		got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		ids := func(es []HistoryEntry) (out []string) {
			for _, e := range es {
				out = append(out, e.RunID)
			}
			return out
		}
		assert.ElementsMatch(t, []string{"base", "new"}, ids(got), "the old run's cases went, and its history with them")
		trends, err := h.Trends(ctx, "acme/api", "", 0)
		require.NoError(t, err)
		assert.Len(t, trends, 3, "every run kept keeps its totals")

		// The old run recorded again, for another job, gives its cases back.
		record("old", testrun.KindAfterTurn, "job-2")
		got, err = h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		assert.ElementsMatch(t, []string{"old", "base", "new"}, ids(got))

		c.Advance(testrun.RunRetention + time.Hour)
		_, err = s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		got, err = h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		assert.Empty(t, got)
		trends, err = h.Trends(ctx, "acme/api", "", 0)
		require.NoError(t, err)
		assert.Empty(t, trends)
	})
}

// TestHistoryRepositoryFilledIn: a run recorded without a repository, then
// tagged with one, has its history under that repository.
func TestHistoryRepositoryFilledIn(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		h := historyOf(t, s)
		ctx := context.Background()
		r := run("r", "t", testrun.KindBase, map[string]testrun.Outcome{"a": fail})
		_, err := s.RecordRun(ctx, StoredRun{Run: r, JobID: "job"})
		require.NoError(t, err)
		_, err = s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job-2"})
		require.NoError(t, err)
		got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		assert.Equal(t, []string{"r:failed"}, outcomesOfHistory(got))
		trends, err := h.Trends(ctx, "acme/api", "", 0)
		require.NoError(t, err)
		assert.Len(t, trends, 1)
	})
}

// TestTrendsAndRepoTests records a repository's runs with a flaky test, a
// slow one and one that broke, and reads the trends and the three lists.
func TestTrendsAndRepoTests(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		h := historyOf(t, s)
		ctx := context.Background()
		start := c.Now()
		const n = 10
		for i := range n {
			outcomes := map[string]testrun.Outcome{"stable": pass, "slow-test-with-a-long-id": pass, "flaky": pass, "broke": pass}
			if i%2 == 1 {
				outcomes["flaky"] = fail
			}
			if i >= 6 {
				outcomes["broke"] = fail
			}
			// Two runs on each tree: the flaky test flips on one tree.
			r := run(fmt.Sprintf("r%02d", i), fmt.Sprintf("tree%d", i/2), testrun.KindAfterTurn, outcomes)
			r.StartedAt = start.Add(time.Duration(i) * time.Hour)
			r.EndedAt = r.StartedAt.Add(time.Duration(i+1) * time.Second)
			r.Coverage = &testrun.Coverage{LineRate: ptrTo(0.5 + float64(i)/100)}
			_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
			require.NoError(t, err)
		}
		trends, err := h.Trends(ctx, "acme/api", "", 4)
		require.NoError(t, err)
		require.Len(t, trends, 4, "the last 4")
		last := trends[3]
		assert.Equal(t, "r09", last.RunID)
		assert.Equal(t, testrun.Counts{Total: 4, Passed: 2, Failed: 2}, last.Counts)
		rate, ok := last.PassRate()
		assert.True(t, ok)
		assert.InDelta(t, 0.5, rate, 1e-9)
		assert.True(t, last.Timed)
		assert.Equal(t, 10*time.Second, last.Duration)
		require.NotNil(t, last.LineRate)
		assert.InDelta(t, 0.59, *last.LineRate, 1e-9)
		assert.Equal(t, "r06", trends[0].RunID)

		rt, err := h.RepoTests(ctx, "acme/api", "", 0, 0)
		require.NoError(t, err)
		assert.Equal(t, n, rt.Runs)
		assert.Equal(t, 4, rt.Tests)
		require.NotEmpty(t, rt.Flakiest)
		top := rt.Flakiest[0]
		assert.Equal(t, "flaky", top.TestID)
		assert.Equal(t, 9, top.Score.Flips)
		assert.Equal(t, 5, top.Score.FlakyTrees, "it passed and failed on each tree")
		assert.True(t, top.Score.Flaky)
		for _, f := range rt.Flakiest {
			assert.NotEqual(t, "stable", f.TestID)
			assert.NotEqual(t, "broke", f.TestID, "one flip is a break, listed as broken, not a flake")
		}
		require.NotEmpty(t, rt.Slowest)
		assert.Equal(t, "slow-test-with-a-long-id", rt.Slowest[0].TestID)
		assert.Equal(t, 24*time.Millisecond, rt.Slowest[0].Mean)
		assert.Equal(t, n, rt.Slowest[0].Timed)
		var broken []string
		for _, bt := range rt.RecentlyBroken {
			broken = append(broken, bt.TestID)
		}
		assert.Equal(t, []string{"flaky", "broke"}, broken, "newest break first: flaky broke at r09, broke at r06")
		assert.Equal(t, "r06", rt.RecentlyBroken[1].Since.RunID)
		assert.Equal(t, "r05", rt.RecentlyBroken[1].LastPassed.RunID)
		assert.Equal(t, 4, rt.RecentlyBroken[1].Failures)

		small, err := h.RepoTests(ctx, "acme/api", "", 2, 1)
		require.NoError(t, err)
		assert.Equal(t, 2, small.Runs)
		assert.Len(t, small.Slowest, 1)

		none, err := h.RepoTests(ctx, "acme/none", "", 0, 0)
		require.NoError(t, err)
		assert.Zero(t, none.Runs)
		assert.Empty(t, none.Flakiest)
	})
}

func ptrTo[T any](v T) *T { return &v }

// TestHistoryPerEnvironment: the same test recorded in two environments
// of one repository (flaky on one, stable on the other) keeps two
// histories: each environment's history, trends, ranked tests and scores
// read its own runs only, "" reads the default environment, and the
// repository lists both environments.
func TestHistoryPerEnvironment(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		h := historyOf(t, s)
		ctx := context.Background()
		start := c.Now()
		for i := range 6 {
			mac := map[string]testrun.Outcome{"pkg::t": pass, "pkg::mac-only": pass}
			if i%2 == 1 {
				mac["pkg::t"] = fail
			}
			for _, rec := range []struct {
				env      string
				outcomes map[string]testrun.Outcome
			}{{"macos", mac}, {"linux", map[string]testrun.Outcome{"pkg::t": pass}}, {"", map[string]testrun.Outcome{"pkg::t": pass}}} {
				r := run(fmt.Sprintf("%s-%d", EnvironmentOr(rec.env), i), fmt.Sprintf("tree%d", i/2), testrun.KindAfterTurn, rec.outcomes)
				r.StartedAt = start.Add(time.Duration(i) * time.Hour)
				_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", Environment: rec.env, JobID: "job"})
				require.NoError(t, err)
			}
		}
		read := func(env string) []HistoryEntry {
			t.Helper()
			got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", Environment: env, TestID: "pkg::t"})
			require.NoError(t, err)
			return got
		}
		assert.Equal(t, []string{"macos-0:passed", "macos-1:failed", "macos-2:passed", "macos-3:failed", "macos-4:passed", "macos-5:failed"}, outcomesOfHistory(read("macos")))
		assert.Equal(t, []string{"linux-0:passed", "linux-1:passed", "linux-2:passed", "linux-3:passed", "linux-4:passed", "linux-5:passed"}, outcomesOfHistory(read("linux")))
		assert.Equal(t, []string{"default-0:passed", "default-1:passed", "default-2:passed", "default-3:passed", "default-4:passed", "default-5:passed"}, outcomesOfHistory(read("")))
		assert.Equal(t, read(""), read(DefaultEnvironment), `"" is the default environment`)
		assert.Empty(t, read("windows"))

		for env, want := range map[string]int{"macos": 6, "linux": 6, "": 6, "windows": 0} {
			trends, err := h.Trends(ctx, "acme/api", env, 0)
			require.NoError(t, err)
			require.Len(t, trends, want, env)
			for _, p := range trends {
				assert.Contains(t, p.RunID, EnvironmentOr(env)+"-")
			}
		}
		mac, err := h.Trends(ctx, "acme/api", "macos", 0)
		require.NoError(t, err)
		assert.Equal(t, testrun.Counts{Total: 2, Passed: 1, Failed: 1}, mac[5].Counts)

		rt, err := h.RepoTests(ctx, "acme/api", "macos", 0, 0)
		require.NoError(t, err)
		assert.Equal(t, 6, rt.Runs)
		assert.Equal(t, 2, rt.Tests)
		require.Len(t, rt.Flakiest, 1)
		assert.Equal(t, "pkg::t", rt.Flakiest[0].TestID)
		assert.Equal(t, 5, rt.Flakiest[0].Score.Flips)
		lin, err := h.RepoTests(ctx, "acme/api", "linux", 0, 0)
		require.NoError(t, err)
		assert.Equal(t, 6, lin.Runs)
		assert.Equal(t, 1, lin.Tests, "macOS's own test is not linux's")
		assert.Empty(t, lin.Flakiest, "stable on linux")
		assert.Empty(t, lin.RecentlyBroken)

		scores := map[string]testrun.Flakiness{}
		for _, env := range []string{"macos", "linux", ""} {
			got, err := Scores(ctx, s, "acme/api", env, []string{"pkg::t"})
			require.NoError(t, err)
			scores[env] = got["pkg::t"]
		}
		assert.True(t, scores["macos"].Flaky)
		assert.Equal(t, 5, scores["macos"].Flips)
		assert.Equal(t, 6, scores["macos"].Runs)
		for _, env := range []string{"linux", ""} {
			assert.False(t, scores[env].Flaky, env)
			assert.Equal(t, 0, scores[env].Flips, env)
			assert.Equal(t, 6, scores[env].Runs, env)
		}

		envs, err := h.Environments(ctx, "acme/api")
		require.NoError(t, err)
		assert.Equal(t, []string{"default", "linux", "macos"}, envs)
		none, err := h.Environments(ctx, "acme/web")
		require.NoError(t, err)
		assert.Empty(t, none)

		// A run has one environment: read back with it, refused for another.
		got, err := s.Run(ctx, "macos-1")
		require.NoError(t, err)
		assert.Equal(t, "macos", got.Environment)
		runs, err := s.JobRuns(ctx, "job")
		require.NoError(t, err)
		byEnv := map[string]int{}
		for _, sr := range runs {
			byEnv[sr.Environment]++
		}
		assert.Equal(t, map[string]int{"default": 6, "linux": 6, "macos": 6}, byEnv)
		_, err = s.RecordRun(ctx, StoredRun{Run: got.Run, Repo: "acme/api", Environment: "linux", JobID: "job-2"})
		require.ErrorIs(t, err, ErrRunConflict)
		assert.ErrorContains(t, err, `stored for environment "macos", not "linux"`)
		assert.Len(t, read("linux"), 6, "the refused tagging added nothing")
		_, err = s.RecordRun(ctx, StoredRun{Run: got.Run, Repo: "acme/api", Environment: "macos", JobID: "job-2"})
		require.NoError(t, err)
		d, err := s.Run(ctx, "default-1")
		require.NoError(t, err)
		_, err = s.RecordRun(ctx, StoredRun{Run: d.Run, Repo: "acme/api", Environment: DefaultEnvironment, JobID: "job-2"})
		require.NoError(t, err, `a run recorded for "" is the default environment's`)
		_, err = s.RecordRun(ctx, StoredRun{Run: d.Run, Repo: "acme/api", Environment: "bad\nenv", JobID: "job-3"})
		assert.ErrorContains(t, err, "environment holds a control character")
	})
}

// TestHistoryMigratesToEnvironments: a store whose history was written at
// schema version 11, before environments were kept, reads back at the
// newest version as the default environment's: its history, trends,
// ranked tests and runs; "" and DefaultEnvironment read it, another
// environment does not, and its runs recorded again for another
// environment are refused.
func TestHistoryMigratesToEnvironments(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		loc := b.location(t)
		c := newClock()
		ctx := context.Background()
		old, err := Open(ctx, loc, WithClock(c.Now), withSchema(11))
		require.NoError(t, err)
		ss := old.(*sqlStore)
		// Rows as version 11 wrote them.
		var runs []*testrun.Run
		for i, o := range []testrun.Outcome{pass, fail, pass} {
			r := run(fmt.Sprintf("v11-%d", i), "tree", testrun.KindBase, map[string]testrun.Outcome{"a": o})
			r.StartedAt = c.Now().Add(time.Duration(i) * time.Minute)
			runs = append(runs, r)
			bare := *r
			bare.Cases, bare.Durations = nil, nil
			runJSON, err := json.Marshal(bare)
			require.NoError(t, err)
			cases, err := json.Marshal(r.Cases)
			require.NoError(t, err)
			failing := "{}"
			if o == fail {
				failing = `{"a":"failed"}`
			}
			at, cn := r.StartedAt.UnixMicro(), r.Counts
			for _, stmt := range []struct {
				q    string
				args []any
			}{
				{`INSERT INTO runs (run_id, kind, repository, job_id, session_ref, turn, started_at, ended_at, recorded_at, last_recorded_at, seq, counted,
					total, passed, failed, errors, skipped, flaky, run_json, cases_json)
					VALUES (?, ?, 'acme/api', 'job', '', NULL, ?, NULL, ?, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`,
					[]any{r.ID, string(r.Kind), at, at, at, i + 1, cn.Total, cn.Passed, cn.Failed, cn.Errors, cn.Skipped, cn.Flaky, string(runJSON), string(cases)}},
				{`INSERT INTO run_tags (run_id, job_id, session_ref, turn, recorded_at, seq) VALUES (?, 'job', '', -1, ?, ?)`, []any{r.ID, at, i + 1}},
				{`INSERT INTO run_failing (run_id, cases) VALUES (?, ?)`, []any{r.ID, failing}},
				{`INSERT INTO history_runs (run_id, repository, at, total, passed, failed, errors, skipped, flaky, job_id, session_ref)
					VALUES (?, 'acme/api', ?, ?, ?, ?, ?, ?, ?, 'job', '')`, []any{r.ID, at, cn.Total, cn.Passed, cn.Failed, cn.Errors, cn.Skipped, cn.Flaky}},
				{`INSERT INTO test_history (run_id, repository, test_id, at, tree, outcome, duration_us, retried, job_id, session_ref)
					VALUES (?, 'acme/api', 'a', ?, 'tree', ?, 1000, 0, 'job', '')`, []any{r.ID, at, string(o)}},
			} {
				_, err := ss.db.ExecContext(ctx, ss.q(stmt.q), stmt.args...)
				require.NoError(t, err)
			}
		}
		require.NoError(t, old.Close())

		s := open(t, loc, c)
		h := historyOf(t, s)
		for _, env := range []string{"", DefaultEnvironment} {
			got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", Environment: env, TestID: "a"})
			require.NoError(t, err)
			assert.Equal(t, []string{"v11-0:passed", "v11-1:failed", "v11-2:passed"}, outcomesOfHistory(got))
			trends, err := h.Trends(ctx, "acme/api", env, 0)
			require.NoError(t, err)
			assert.Len(t, trends, 3)
			rt, err := h.RepoTests(ctx, "acme/api", env, 0, 0)
			require.NoError(t, err)
			assert.Equal(t, 3, rt.Runs)
			assert.Equal(t, 1, rt.Tests)
		}
		other, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", Environment: "linux", TestID: "a"})
		require.NoError(t, err)
		assert.Empty(t, other)
		envs, err := h.Environments(ctx, "acme/api")
		require.NoError(t, err)
		assert.Equal(t, []string{DefaultEnvironment}, envs)
		sr, err := s.Run(ctx, "v11-1")
		require.NoError(t, err)
		assert.Equal(t, DefaultEnvironment, sr.Environment)

		_, err = s.RecordRun(ctx, StoredRun{Run: runs[1], Repo: "acme/api", Environment: "linux", JobID: "job-2"})
		require.ErrorIs(t, err, ErrRunConflict)
		added, err := s.RecordRun(ctx, StoredRun{Run: runs[1], Repo: "acme/api", JobID: "job-2"})
		require.NoError(t, err)
		assert.True(t, added)
		// A new run after the upgrade joins the same history.
		r := run("new", "tree", testrun.KindBase, map[string]testrun.Outcome{"a": fail})
		r.StartedAt = c.Now().Add(time.Hour)
		_, err = s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
		require.NoError(t, err)
		got, err := h.TestHistory(ctx, HistoryQuery{Repo: "acme/api", TestID: "a"})
		require.NoError(t, err)
		assert.Equal(t, []string{"v11-0:passed", "v11-1:failed", "v11-2:passed", "new:failed"}, outcomesOfHistory(got))
	})
}

// TestHistoryReadsItsIndexOnly: a test's history in one environment, with
// and without a time range, is read from the covering index led by
// repository, environment and test alone (SQLite's plan; PostgreSQL's
// planner picks by statistics, which BenchmarkTestHistory measures).
func TestHistoryReadsItsIndexOnly(t *testing.T) {
	s := open(t, backends(t)[0].location(t), newClock()).(*sqlStore)
	for _, q := range []HistoryQuery{
		{Repo: "r", Environment: "linux", TestID: "a"},
		{Repo: "r", TestID: "a", Since: time.Unix(1, 0), Until: time.Unix(2, 0), Limit: 5},
	} {
		query, args := s.testHistorySQL(q)
		rows, err := s.db.Query(`EXPLAIN QUERY PLAN `+query, args...)
		require.NoError(t, err)
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			require.NoError(t, rows.Scan(&id, &parent, &unused, &detail))
			plan = append(plan, detail)
		}
		require.NoError(t, rows.Close())
		require.Len(t, plan, 1, "no sort, no second table: %v", plan)
		assert.Regexp(t, `^SEARCH h USING COVERING INDEX test_history_test \(repository=\? AND environment=\? AND test_id=\?( AND at>\? AND at<\?)?\)$`, plan[0])
	}
}
