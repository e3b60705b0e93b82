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

// TestScores records runs of a test that flips on its tree and of one that
// fails on every run, and scores them: the first is flaky with its
// evidence, the second never is, and a test without history has none.
func TestScores(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		for i, o := range []testrun.Outcome{pass, fail, pass, fail} {
			r := run(fmt.Sprintf("r%d", i), "tree1", testrun.KindBase, map[string]testrun.Outcome{"flips": o, "broken": fail, "ok": pass})
			r.StartedAt = c.Now().Add(time.Duration(i) * time.Minute)
			_, err := s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
			require.NoError(t, err)
		}
		got, err := Scores(ctx, s, "acme/api", "", []string{"flips", "broken", "none"})
		require.NoError(t, err)
		require.Len(t, got, 3)
		assert.True(t, got["flips"].Flaky)
		assert.Equal(t, 4, got["flips"].Evidence)
		assert.Equal(t, 3, got["flips"].Flips)
		assert.InDelta(t, 0.5, got["flips"].FailureRate, 1e-9)
		assert.False(t, got["broken"].Flaky, "failing on every run is broken, not flaky")
		assert.Equal(t, 0, got["broken"].Evidence)
		assert.Equal(t, 4, got["broken"].Runs)
		assert.Equal(t, 0, got["none"].Runs)
	})
}
