package store

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func quarantineOf(t *testing.T, s Store) QuarantineStore {
	t.Helper()
	q, err := QuarantineOf(s)
	require.NoError(t, err)
	return q
}

// TestQuarantineAddListRemove adds, replaces, lists, looks up and removes
// quarantine entries: created is the store's clock, expired entries are
// kept and listed, the lookup returns an environment's own entries and
// those of every environment.
func TestQuarantineAddListRemove(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		q := quarantineOf(t, s)
		ctx := context.Background()
		created := c.Now()
		entry := func(env, test string, expires time.Duration) testrun.QuarantineEntry {
			return testrun.QuarantineEntry{Repository: "acme/api", Environment: env, TestID: test, Owner: "ana", Reason: "times out on arm",
				Expires: c.Now().Add(expires)}
		}
		got, replaced, err := q.AddQuarantine(ctx, entry("", "pkg::TestA", 48*time.Hour))
		require.NoError(t, err)
		assert.False(t, replaced)
		assert.True(t, created.Equal(got.Created), "created at the store's clock")
		assert.True(t, created.Add(48*time.Hour).Equal(got.Expires))
		_, _, err = q.AddQuarantine(ctx, entry("linux", "pkg::TestA", time.Hour))
		require.NoError(t, err)
		_, _, err = q.AddQuarantine(ctx, entry("", "pkg::TestB", time.Hour))
		require.NoError(t, err)
		_, _, err = q.AddQuarantine(ctx, testrun.QuarantineEntry{Repository: "acme/web", TestID: "x", Owner: "bo", Reason: "r", Expires: c.Now().Add(time.Hour)})
		require.NoError(t, err)

		_, _, err = q.AddQuarantine(ctx, entry("", "pkg::TestC", testrun.MaxQuarantine+time.Hour))
		assert.ErrorIs(t, err, testrun.ErrQuarantine, "past the longest quarantine")
		noOwner := entry("", "pkg::TestC", time.Hour)
		noOwner.Owner = ""
		_, _, err = q.AddQuarantine(ctx, noOwner)
		assert.ErrorIs(t, err, testrun.ErrQuarantine, "an owner is required")

		c.Advance(2 * time.Hour) // TestB's and linux TestA's entries expire, and are kept
		all, err := q.QuarantineList(ctx, "acme/api")
		require.NoError(t, err)
		var keys []string
		for _, e := range all {
			keys = append(keys, e.Environment+"/"+e.TestID)
		}
		assert.Equal(t, []string{"/pkg::TestA", "/pkg::TestB", "linux/pkg::TestA"}, keys)
		every, err := q.QuarantineList(ctx, "")
		require.NoError(t, err)
		assert.Len(t, every, 4)

		found, err := q.QuarantineLookup(ctx, "acme/api", "linux", []string{"pkg::TestA", "pkg::TestZ"})
		require.NoError(t, err)
		require.Len(t, found, 2)
		assert.Equal(t, "", found[0].Environment)
		assert.Equal(t, "linux", found[1].Environment)
		other, err := q.QuarantineLookup(ctx, "acme/api", "windows", []string{"pkg::TestA"})
		require.NoError(t, err)
		require.Len(t, other, 1, "another environment sees only the entry of every environment")
		assert.Equal(t, "", other[0].Environment)

		// Adding again renews: a new creation time, the new expiry.
		renewed, replaced, err := q.AddQuarantine(ctx, entry("", "pkg::TestB", 24*time.Hour))
		require.NoError(t, err)
		assert.True(t, replaced)
		assert.True(t, c.Now().Equal(renewed.Created))

		removed, err := q.RemoveQuarantine(ctx, "acme/api", "linux", "pkg::TestA")
		require.NoError(t, err)
		assert.True(t, removed)
		removed, err = q.RemoveQuarantine(ctx, "acme/api", "linux", "pkg::TestA")
		require.NoError(t, err)
		assert.False(t, removed)
		left, err := q.QuarantineLookup(ctx, "acme/api", "linux", []string{"pkg::TestA"})
		require.NoError(t, err)
		require.Len(t, left, 1)
		assert.Equal(t, "", left[0].Environment)
	})
}

// TestQuarantineNeverFromRecords records failing runs, a test failing in
// every one and one flipping on its tree: the flaky list gains the flip,
// and quarantine stays empty.
func TestQuarantineNeverFromRecords(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		for i, o := range []testrun.Outcome{pass, fail, fail} {
			r := run("r"+string(rune('0'+i)), "tree1", testrun.KindBase, map[string]testrun.Outcome{"always": fail, "flips": o, "ok": pass})
			_, err := s.Record(ctx, "acme/api", "linux", r)
			require.NoError(t, err)
			_, err = s.RecordRun(ctx, StoredRun{Run: r, Repo: "acme/api", JobID: "job"})
			require.NoError(t, err)
		}
		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "flips", list[0].TestID)
		entries, err := quarantineOf(t, s).QuarantineList(ctx, "")
		require.NoError(t, err)
		assert.Empty(t, entries)
	})
}

// TestQuarantineDecidesWithTestrun stores entries and judges a run with
// them: the store's entries and testrun.Quarantine agree on a job that
// started between an entry's creation and expiry.
func TestQuarantineDecidesWithTestrun(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		q := quarantineOf(t, s)
		ctx := context.Background()
		_, _, err := q.AddQuarantine(ctx, testrun.QuarantineEntry{Repository: "acme/api", TestID: "a", Owner: "ana", Reason: "r", Expires: c.Now().Add(time.Hour)})
		require.NoError(t, err)
		c.Advance(time.Minute)
		jobStart := c.Now()
		c.Advance(time.Minute)
		_, _, err = q.AddQuarantine(ctx, testrun.QuarantineEntry{Repository: "acme/api", TestID: "b", Owner: "ana", Reason: "r", Expires: c.Now().Add(time.Hour)})
		require.NoError(t, err)
		r := run("r1", "tree1", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail, "b": fail})
		entries, err := q.QuarantineLookup(ctx, "acme/api", "linux", []string{"a", "b"})
		require.NoError(t, err)
		got := testrun.Quarantine(r, entries, "linux", jobStart)
		assert.Equal(t, []string{"a"}, got.Excused())
		assert.False(t, got.Passes, "b was quarantined after the job started")
		require.Len(t, got.Warnings, 1)
		assert.Contains(t, got.Warnings[0], "b: quarantined at")
	})
}
