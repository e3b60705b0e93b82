package store

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestRecordRuns: the runs are stored with the tags (the default
// environment for none), and the first one the store refuses stops the
// rest with an error naming it.
func TestRecordRuns(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ctx := context.Background()
		r1 := run("r1", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
		r2 := run("r2", "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail})
		require.NoError(t, RecordRuns(ctx, s, StoredRun{Repo: "acme/api", JobID: "job"}, r1, r2))
		got, err := s.JobRuns(ctx, "job")
		require.NoError(t, err)
		require.Len(t, got, 2)
		for i, sr := range got {
			assert.Equal(t, []string{"r1", "r2"}[i], sr.Run.ID)
			assert.Equal(t, "acme/api", sr.Repo)
			assert.Equal(t, DefaultEnvironment, sr.Environment)
		}

		r3 := run("r3", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass})
		err = RecordRuns(ctx, s, StoredRun{Repo: "acme/api", Environment: "mac", JobID: "job2"}, r3, r1, r2)
		require.ErrorIs(t, err, ErrRunConflict, "r1 is stored for the default environment")
		assert.Contains(t, err.Error(), "record r1:")
		got, err = s.JobRuns(ctx, "job2")
		require.NoError(t, err)
		require.Len(t, got, 1, "r3 stays stored, r2 was not reached")
		assert.Equal(t, "mac", got[0].Environment)
	})
}

// TestRecordFlaky: a recordable run adds its runner retries, a gate run is
// answered as not recorded with the reason and does not stop the next.
func TestRecordFlaky(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ctx := context.Background()
		gate := run("g", "t", testrun.KindGate, map[string]testrun.Outcome{"a": pass}, "x")
		ok := run("ok", "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass}, "x")
		got, err := RecordFlaky(ctx, s, "acme/api", "linux", gate, ok)
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.Equal(t, "g", got[0].Run)
		assert.False(t, got[0].Recorded)
		assert.Contains(t, got[0].Reason, "gate run")
		assert.NotNil(t, got[0].Flaky, "an empty map, so the JSON line says {}")
		assert.Equal(t, testrun.FlakyRecord{Run: "ok", Recorded: true, Observed: got[1].Observed,
			Flaky: map[string][]testrun.FlakyHow{"x": {testrun.FlakyRunnerRetry}}}, got[1])
		entries, err := s.List(ctx, Filter{Repository: "acme/api", Environment: "linux"})
		require.NoError(t, err)
		require.Len(t, entries, 1)
		assert.Equal(t, "x", entries[0].TestID)
	})
}

// TestExcusedIDs: of the ids, in their order, only those on the list of
// the repository and environment before the job started.
func TestExcusedIDs(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "acme/api", "linux", run("r1", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "y", "x"))
		require.NoError(t, err)
		_, err = s.Record(ctx, "acme/api", "mac", run("r2", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "z"))
		require.NoError(t, err)
		start := c.Now().Add(time.Minute)
		got, err := ExcusedIDs(ctx, s, "acme/api", "linux", []string{"z", "y", "a", "x"}, start)
		require.NoError(t, err)
		assert.Equal(t, []string{"y", "x"}, got, "z is mac's, a was never flaky")
		got, err = ExcusedIDs(ctx, s, "acme/api", "linux", []string{"x"}, c.Now().Add(-time.Minute))
		require.NoError(t, err)
		assert.Empty(t, got, "listed only after the job started")
	})
}

// TestListScored: a test that flipped on two environments is on both
// lists, and each entry is scored by its own environment's history.
func TestListScored(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		for env, outcomes := range map[string][]testrun.Outcome{"linux": {pass, fail, pass, fail}, "mac": {pass, fail, fail, fail}} {
			for i, o := range outcomes {
				r := run(fmt.Sprintf("%s%d", env, i), "t", testrun.KindBase, map[string]testrun.Outcome{"a": o})
				r.StartedAt = c.Now().Add(time.Duration(i) * time.Minute)
				require.NoError(t, RecordRuns(ctx, s, StoredRun{Repo: "acme/api", Environment: env}, r))
				_, err := s.Record(ctx, "acme/api", env, r)
				require.NoError(t, err)
			}
		}
		entries, scores, err := ListScored(ctx, s, Filter{Repository: "acme/api"})
		require.NoError(t, err)
		require.Len(t, entries, 2)
		require.Len(t, scores, 2)
		flips := map[string]int{}
		for i, e := range entries {
			require.NotNil(t, scores[i], e.Environment)
			flips[e.Environment] = scores[i].Flips
		}
		assert.Equal(t, map[string]int{"linux": 3, "mac": 1}, flips, "a on each environment: its own history's flips")
	})
}

// TestRunsWhere and RunScores: the runs' one repository and environment
// as stored, the default environment when none is stored, none when they
// name two; a named repository or environment is taken as it is.
func TestRunScores(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		mk := func(id string, o testrun.Outcome, i int) *testrun.Run {
			r := run(id, "t", testrun.KindBase, map[string]testrun.Outcome{"a": o})
			r.StartedAt = c.Now().Add(time.Duration(i) * time.Minute)
			return r
		}
		var linux []*testrun.Run
		for i, o := range []testrun.Outcome{pass, fail, pass, fail} {
			linux = append(linux, mk(fmt.Sprintf("l%d", i), o, i))
		}
		require.NoError(t, RecordRuns(ctx, s, StoredRun{Repo: "acme/api", Environment: "linux"}, linux...))
		mac := mk("m0", pass, 9)
		require.NoError(t, RecordRuns(ctx, s, StoredRun{Repo: "acme/api", Environment: "mac"}, mac))
		loose := mk("loose", fail, 10)

		for _, tc := range []struct {
			name            string
			runs            []*testrun.Run
			wantRepo, wantE string
		}{
			{"stored", linux[:2], "acme/api", "linux"},
			{"one not stored", []*testrun.Run{linux[0], loose}, "acme/api", "linux"},
			{"none stored", []*testrun.Run{loose}, "", DefaultEnvironment},
			{"two environments", []*testrun.Run{linux[0], mac}, "acme/api", ""},
		} {
			repo, env, err := RunsWhere(ctx, s, tc.runs)
			require.NoError(t, err)
			assert.Equal(t, tc.wantRepo, repo, tc.name)
			assert.Equal(t, tc.wantE, env, tc.name)
		}

		got, err := RunScores(ctx, s, "", "", linux[:1], []string{"a"})
		require.NoError(t, err)
		assert.Equal(t, 3, got["a"].Flips, "linux's history")
		got, err = RunScores(ctx, s, "", "", []*testrun.Run{loose}, []string{"a"})
		require.NoError(t, err)
		assert.Nil(t, got, "no repository: no score")
		got, err = RunScores(ctx, s, "acme/api", "", []*testrun.Run{linux[0], mac}, []string{"a"})
		require.NoError(t, err)
		assert.Nil(t, got, "two environments: no score")
		got, err = RunScores(ctx, s, "acme/api", "", []*testrun.Run{loose}, []string{"a"})
		require.NoError(t, err)
		require.Contains(t, got, "a")
		assert.Equal(t, 0, got["a"].Runs, "the default environment has no history of a")
		got, err = RunScores(ctx, s, "acme/api", "mac", nil, []string{"a"})
		require.NoError(t, err)
		assert.Equal(t, 1, got["a"].Runs, "a named environment is read as it is")
	})
}

// TestListRun: the run's flaky tests listed before the job started are
// marked, the list's size is counted now, and the asked ids are scored in
// the same repository and environment.
func TestListRun(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "acme/api", "linux", run("old", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "x", "y"))
		require.NoError(t, err)
		_, err = s.Record(ctx, "acme/api", "mac", run("mac", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "z"))
		require.NoError(t, err)
		for i, o := range []testrun.Outcome{pass, fail, pass} {
			r := run(fmt.Sprintf("h%d", i), "t", testrun.KindBase, map[string]testrun.Outcome{"a": o})
			r.StartedAt = c.Now().Add(time.Duration(i) * time.Minute)
			require.NoError(t, RecordRuns(ctx, s, StoredRun{Repo: "acme/api", Environment: "linux"}, r))
		}
		after := run("after", "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail}, "x", "z")
		got, err := ListRun(ctx, s, "acme/api", "linux", after, []string{"a"}, c.Now().Add(time.Minute))
		require.NoError(t, err)
		assert.Equal(t, []string{"x"}, got.Marks, "z is on mac's list, not linux's")
		assert.Equal(t, 2, got.Listed, "x and y; mac's z is not counted")
		assert.Equal(t, 2, got.Scores["a"].Flips)
		assert.Equal(t, 3, got.Scores["a"].Runs)
	})
}

// TestCheckFlaky: the list of the run's own environment excuses its
// failure; another environment's does not; on a red base the failure that
// was already there is not asked about.
func TestCheckFlaky(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "acme/api", "linux", run("old", "t", testrun.KindBase, map[string]testrun.Outcome{"ok": pass}, "a", "b"))
		require.NoError(t, err)
		after := run("after", "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail, "b": fail})
		start := c.Now().Add(time.Minute)
		e, entries, err := CheckFlaky(ctx, s, "acme/api", "linux", after, nil, start)
		require.NoError(t, err)
		assert.Equal(t, []string{"a", "b"}, e.Excused())
		assert.True(t, e.Transient)
		assert.Len(t, entries, 2)

		e, entries, err = CheckFlaky(ctx, s, "acme/api", "mac", after, nil, start)
		require.NoError(t, err)
		assert.Empty(t, e.Excused(), "linux's list excuses nothing on mac")
		assert.Empty(t, entries)

		base := run("base", "t", testrun.KindBase, map[string]testrun.Outcome{"a": fail, "b": pass})
		e, _, err = CheckFlaky(ctx, s, "acme/api", "linux", after, base, start)
		require.NoError(t, err)
		assert.True(t, e.NewOnly)
		assert.Equal(t, []string{"b"}, e.Excused(), "only b is new against the base")
	})
}
