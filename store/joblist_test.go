package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestJobList: a job's view of one repository and environment: Record
// returns the ids it saw flaky, sorted; OnList and Excused answer for the
// list as it stood when the job started, and only for that environment;
// Quarantine reads that environment's entries and those for every one.
func TestJobList(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		l := JobListOf(s, "acme/api", "linux")
		got, err := l.Record(ctx, run("r1", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "y", "x"))
		require.NoError(t, err)
		assert.Equal(t, []string{"x", "y"}, got)
		_, err = JobListOf(s, "acme/api", "mac").Record(ctx, run("r2", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}, "z"))
		require.NoError(t, err)

		start := c.Now().Add(time.Minute)
		on, err := l.OnList(ctx, []string{"z", "y", "a", "x"}, start)
		require.NoError(t, err)
		assert.Equal(t, []string{"y", "x"}, on, "z is mac's, a was never flaky")
		excused, err := l.Excused(ctx, []string{"x", "z"}, start)
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{"x": true, "z": false}, excused)
		on, err = l.OnList(ctx, []string{"x"}, c.Now().Add(-time.Minute))
		require.NoError(t, err)
		assert.Empty(t, on, "listed only after the job started")

		_, err = l.Record(ctx, run("g", "t", testrun.KindGate, map[string]testrun.Outcome{"a": pass}, "w"))
		require.ErrorIs(t, err, testrun.ErrNotRecordable)

		lookup := l.Quarantine()
		require.NotNil(t, lookup, "the SQL stores keep a quarantine")
		q, err := QuarantineOf(s)
		require.NoError(t, err)
		for _, e := range []testrun.QuarantineEntry{
			{Repository: "acme/api", Environment: "linux", TestID: "a", Owner: "o", Reason: "r", Expires: c.Now().Add(time.Hour)},
			{Repository: "acme/api", TestID: "b", Owner: "o", Reason: "r", Expires: c.Now().Add(time.Hour)},
			{Repository: "acme/api", Environment: "mac", TestID: "c", Owner: "o", Reason: "r", Expires: c.Now().Add(time.Hour)},
		} {
			_, _, err := q.AddQuarantine(ctx, e)
			require.NoError(t, err)
		}
		entries, err := lookup(ctx, []string{"a", "b", "c"})
		require.NoError(t, err)
		var ids []string
		for _, e := range entries {
			ids = append(ids, e.TestID)
		}
		assert.ElementsMatch(t, []string{"a", "b"}, ids, "c is quarantined on mac only")
	})
}
