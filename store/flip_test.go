package store

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestSightingIsANewFlip: a flip on a tree is one sighting. Later runs on
// the same tree show the same pass and fail again and add nothing: the
// entry's sightings and last seen stay, so it expires 30 days after the
// flip. A flip on another tree is a new sighting. Both stores agree.
func TestSightingIsANewFlip(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		rec := func(id, tree string, o testrun.Outcome) Recorded {
			t.Helper()
			got, err := s.Record(ctx, "r", "e", run(id, tree, testrun.KindRerun, map[string]testrun.Outcome{"t": o, "steady": pass}))
			require.NoError(t, err)
			return got
		}
		assert.Empty(t, rec("p", "X", pass).Flaky)
		c.Advance(time.Minute)
		assert.Equal(t, map[string][]testrun.FlakyHow{"t": {testrun.FlakySameTree}}, rec("f", "X", fail).Flaky)
		flipAt := c.Now()

		// 40 daily runs on the same tree, passing and failing by turns.
		for i := range 40 {
			c.Advance(24 * time.Hour)
			o := pass
			if i%2 == 1 {
				o = fail
			}
			assert.Empty(t, rec(fmt.Sprintf("again-%d", i), "X", o).Flaky, "run %d shows no new flip", i)
		}
		got, err := s.Lookup(ctx, "r", "e", []string{"t"})
		require.NoError(t, err)
		e := got["t"]
		assert.Equal(t, int64(1), e.Sightings, "one flip, one sighting")
		assert.Equal(t, flipAt, e.LastSeen, "evidence shown again does not push the expiry forward")
		require.Len(t, e.Seen, 1)
		assert.Equal(t, []string{"p", "f"}, e.Seen[0].Runs)
		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		assert.Empty(t, list, "expired 30 days after the flip")

		// A real new flip, on another tree, is a sighting: the test is on
		// the list again, last seen now.
		c.Advance(time.Hour)
		assert.Empty(t, rec("p2", "Y", pass).Flaky)
		assert.Equal(t, map[string][]testrun.FlakyHow{"t": {testrun.FlakySameTree}}, rec("f2", "Y", fail).Flaky)
		got, err = s.Lookup(ctx, "r", "e", []string{"t"})
		require.NoError(t, err)
		assert.Equal(t, int64(1), got["t"].Sightings, "a fresh entry: the old one had expired")
		assert.Equal(t, c.Now(), got["t"].LastSeen)
		assert.Equal(t, c.Now(), got["t"].FirstSeen)
		list, err = s.List(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)

		// And a new flip on a third tree while it is live adds to it.
		c.Advance(time.Hour)
		rec("p3", "Z", fail)
		rec("f3", "Z", pass)
		got, err = s.Lookup(ctx, "r", "e", []string{"t"})
		require.NoError(t, err)
		assert.Equal(t, int64(2), got["t"].Sightings)
		assert.Equal(t, c.Now(), got["t"].LastSeen)
	})
}

// TestRecordConflict: a run recorded on the flaky list again adds
// nothing; another run under its id (another kind or tree) is refused,
// never silently taken for it.
func TestRecordConflict(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "r", "e", run("r1", "X", testrun.KindBase, map[string]testrun.Outcome{"t": pass}))
		require.NoError(t, err)
		again, err := s.Record(ctx, "r", "e", run("r1", "X", testrun.KindBase, map[string]testrun.Outcome{"t": pass}))
		require.NoError(t, err)
		assert.Empty(t, again.Flaky)
		assert.Zero(t, again.Observed, "recorded before: nothing added")

		for name, tc := range map[string]struct {
			r    *testrun.Run
			want string
		}{
			"kind": {run("r1", "X", testrun.KindRerun, map[string]testrun.Outcome{"t": fail}), `recorded as kind "base", not "rerun"`},
			"tree": {run("r1", "Y", testrun.KindBase, map[string]testrun.Outcome{"t": fail}), `recorded with tree "X", not "Y"`},
		} {
			t.Run(name, func(t *testing.T) {
				_, err := s.Record(ctx, "r", "e", tc.r)
				require.ErrorIs(t, err, ErrRunConflict)
				assert.ErrorContains(t, err, tc.want)
			})
		}
		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		assert.Empty(t, list, "the refused runs' failures flipped nothing")
	})
}

// TestStoresAgree records one sequence of runs (three trees, tests that
// pass, fail and are retried at random, hours to weeks apart) into a
// SQLite and a PostgreSQL store: both give the same flaky list, entry
// for entry, after every run.
func TestStoresAgree(t *testing.T) {
	c := newClock()
	lite := open(t, backends(t)[0].location(t), c)
	pg := open(t, backends(t)[1].location(t), c)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	sameTree := 0
	tests := []string{"a", "b", "c", "d"}
	outcomes := []testrun.Outcome{pass, pass, fail, testrun.OutcomeError, testrun.OutcomeSkipped}
	for i := range 120 {
		o := map[string]testrun.Outcome{}
		for _, id := range tests {
			o[id] = outcomes[rng.IntN(len(outcomes))]
		}
		var retried []string
		if rng.IntN(5) == 0 {
			retried = append(retried, "r"+tests[rng.IntN(len(tests))])
		}
		tree := fmt.Sprintf("T%d", rng.IntN(3))
		env := []string{"linux", "mac"}[rng.IntN(2)]
		for _, s := range []Store{lite, pg} {
			_, err := s.Record(ctx, "acme/api", env, run(fmt.Sprintf("run-%03d", i), tree, testrun.KindRerun, o, retried...))
			require.NoError(t, err)
		}
		want, err := lite.List(ctx, Filter{})
		require.NoError(t, err)
		got, err := pg.List(ctx, Filter{})
		require.NoError(t, err)
		require.Equal(t, want, got, "after run %d", i)
		for _, e := range want {
			if slices.Contains(e.How, testrun.FlakySameTree) {
				sameTree++
			}
		}
		if rng.IntN(10) == 0 {
			for _, s := range []Store{lite, pg} {
				_, err := s.Prune(ctx)
				require.NoError(t, err)
			}
		}
		c.Advance(time.Duration(1+rng.IntN(24*7)) * time.Hour)
	}
	assert.Positive(t, sameTree, "the sequence makes same-tree flips")
}
