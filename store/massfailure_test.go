package store

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// outcomesFailing gives n tests, the first failing of them failing.
func outcomesFailing(n, failing int) map[string]testrun.Outcome {
	out := map[string]testrun.Outcome{}
	for i := range n {
		o := pass
		if i < failing {
			o = fail
		}
		out[fmt.Sprintf("t%02d", i)] = o
	}
	return out
}

// TestRecordMassFailureAddsNoFlips records a passing run, then on the same
// tree a run in which 9 of 10 tests failed: no flip is recorded and nothing
// is observed. A run in which 8 of 10 failed (not more than 80%) then
// flips its failures against the passing run.
func TestRecordMassFailureAddsNoFlips(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "acme/api", "linux", run("ok", "tree1", testrun.KindBase, outcomesFailing(10, 0)))
		require.NoError(t, err)

		broken := run("broken", "tree1", testrun.KindBase, outcomesFailing(10, 9), "retried")
		require.True(t, MassFailure(broken))
		got, err := s.Record(ctx, "acme/api", "linux", broken)
		require.NoError(t, err)
		assert.Equal(t, 0, got.Observed, "a mass failure adds nothing to the tree's history")
		assert.Equal(t, map[string][]testrun.FlakyHow{"retried": {testrun.FlakyRunnerRetry}}, got.Flaky,
			"only the run's own runner retry: no same-tree flip")

		eight := run("eight", "tree1", testrun.KindBase, outcomesFailing(10, 8))
		require.False(t, MassFailure(eight), "80% is not more than 80%")
		got, err = s.Record(ctx, "acme/api", "linux", eight)
		require.NoError(t, err)
		assert.Len(t, got.Flaky, 8)
		for id, how := range got.Flaky {
			assert.Equal(t, []testrun.FlakyHow{testrun.FlakySameTree}, how, id)
		}
	})
}

// TestRecordSmallRunFlips records a run of one test that passes and one
// where it fails on the same tree: 100% of one test is no broken
// environment, and the flip is recorded.
func TestRecordSmallRunFlips(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "acme/api", "linux", run("ok", "tree1", testrun.KindBase, outcomesFailing(testrun.MassFailureMinTests-1, 0)))
		require.NoError(t, err)
		small := run("bad", "tree1", testrun.KindBase, outcomesFailing(testrun.MassFailureMinTests-1, testrun.MassFailureMinTests-1))
		require.False(t, testrun.MassFailure(small))
		require.False(t, MassFailure(small))
		got, err := s.Record(ctx, "acme/api", "linux", small)
		require.NoError(t, err)
		assert.Len(t, got.Flaky, testrun.MassFailureMinTests-1)
	})
}
