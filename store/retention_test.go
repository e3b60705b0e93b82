package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestPruneRunsFollowsRetain records a run of every kind at the ages
// around each limit of testrun's retention and checks that PruneRuns keeps
// of each what testrun.Retain says, as check.Prune does for report folders
// (TestPruneFollowsRetain there): the two agree through the one rule.
func TestPruneRunsFollowsRetain(t *testing.T) {
	var ages []time.Duration
	for _, k := range testrun.Kinds {
		for _, limit := range []time.Duration{testrun.CasesRetentionFor(k), testrun.RunRetention} {
			ages = append(ages, limit-time.Second, limit, limit+time.Second)
		}
	}
	slices.Sort(ages)
	ages = slices.Compact(ages)
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		now := c.Now()
		oldest := ages[len(ages)-1]
		c.Advance(-oldest)
		s := open(t, b.location(t), c)
		ctx := context.Background()
		want := map[string]testrun.Retained{}
		// Oldest first, so the clock only moves forward.
		for i := len(ages) - 1; i >= 0; i-- {
			age := ages[i]
			c.Advance(now.Add(-age).Sub(c.Now()))
			for _, k := range testrun.Kinds {
				id := fmt.Sprintf("%s-%d", k, i)
				_, err := s.RecordRun(ctx, StoredRun{Run: run(id, "tree-"+id, k, map[string]testrun.Outcome{"a": pass}), JobID: "job-" + id})
				require.NoError(t, err)
				want[id] = testrun.Retain(k, age)
			}
		}
		_, err := s.PruneRuns(ctx, now)
		require.NoError(t, err)
		got := map[string]testrun.Retained{}
		for id := range want {
			r, err := s.Run(ctx, id)
			switch {
			case err != nil:
				require.ErrorIs(t, err, ErrNotFound, id)
				got[id] = testrun.RetainNothing
			case r.HasCases:
				got[id] = testrun.RetainAll
			default:
				got[id] = testrun.RetainCounts
			}
		}
		assert.Equal(t, want, got)
	})
}

// TestPruneAt: the store at a location is opened, pruned as of now and
// closed: a run past every retention is gone when it is opened again; a
// location that cannot be opened is an error.
func TestPruneAt(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		loc := b.location(t)
		s := open(t, loc, c)
		ctx := context.Background()
		_, err := s.RecordRun(ctx, StoredRun{Run: run("old", "tree", testrun.KindBase, map[string]testrun.Outcome{"a": pass}), JobID: "j"})
		require.NoError(t, err)
		require.NoError(t, s.Close())
		got, err := PruneAt(ctx, loc, c.Now().Add(testrun.RunRetention+time.Hour), WithMaxConns(1))
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Runs: 1}, got)
		s = open(t, loc, c)
		_, err = s.Run(ctx, "old")
		assert.ErrorIs(t, err, ErrNotFound)
	})
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := PruneAt(context.Background(), filepath.Join(file, "s.db"), time.Now())
	assert.Error(t, err, "a store under a regular file cannot be opened")
}
