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

		// Recording again is a no-op, whatever the tags.
		added, err = s.RecordRun(ctx, StoredRun{Run: after, Repo: "other", JobID: "job-2"})
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
