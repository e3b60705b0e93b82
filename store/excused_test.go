package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

// TestExcusedMatchesEntries: Excused, which decides most entries from
// their first and last sighting in one query, answers what
// testrun.FlakyEntry.Excused answers on the whole entry, for job starts on
// either side of every sighting, of every sighting's expiry, to the
// nanosecond and to the microsecond the columns keep: entries seen once,
// many times, again since the job started, more often than they keep,
// afresh after expiring, and the same test in another repository or
// environment.
func TestExcusedMatchesEntries(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		s := open(t, b.location(t), newClock())
		ss := s.(*sqlStore)
		ctx := context.Background()
		t0 := time.Date(2026, 10, 1, 9, 30, 0, 123456789, time.UTC)
		entry := func(repo, env, id string, at ...time.Time) testrun.FlakyEntry {
			e := testrun.FlakyEntry{Repository: repo, Environment: env, TestID: id}
			for _, a := range at {
				e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"r"}, At: a})
			}
			return e
		}
		var many []time.Time
		for i := range testrun.MaxFlakySeen + 3 {
			many = append(many, t0.Add(time.Duration(i)*3*24*time.Hour+time.Duration(i)*time.Nanosecond))
		}
		entries := []testrun.FlakyEntry{
			entry("r", "e", "once", t0),
			entry("r", "e", "whole-micro", t0.Truncate(time.Microsecond)),
			entry("r", "e", "several", t0, t0.Add(time.Hour+1), t0.Add(2*24*time.Hour-1)),
			entry("r", "e", "many", many...),
			entry("r", "e", "expired-then-again", t0, t0.Add(testrun.FlakyTTL+time.Hour+7)),
			entry("r", "other-env", "elsewhere", t0),
			entry("other-repo", "e", "elsewhere", t0),
		}
		require.NoError(t, ss.inTx(ctx, "fill", func(tx *sql.Tx) error { return ss.putEntries(ctx, tx, entries) }))
		ids := []string{"once", "whole-micro", "several", "many", "expired-then-again", "elsewhere", "absent"}

		var starts []time.Time
		for _, e := range entries {
			for _, seen := range e.Seen {
				for _, base := range []time.Time{seen.At, seen.At.Add(testrun.FlakyTTL)} {
					for _, d := range []time.Duration{-time.Microsecond, -1, 0, 1, 999, time.Microsecond, time.Microsecond + 1} {
						starts = append(starts, base.Add(d))
					}
				}
			}
			starts = append(starts, e.FirstSeen, e.FirstSeen.Add(1), e.LastSeen.Add(-1))
		}
		whole, err := s.Lookup(ctx, "r", "e", ids)
		require.NoError(t, err)
		excusedSome := false
		for _, start := range starts {
			got, err := Excused(ctx, s, "r", "e", ids, start)
			require.NoError(t, err)
			want := map[string]bool{}
			for _, id := range ids {
				e, ok := whole[id]
				want[id] = ok && e.Excused(start)
				excusedSome = excusedSome || want[id]
			}
			require.Equal(t, want, got, fmt.Sprintf("job start %s", start.Format(time.RFC3339Nano)))
		}
		require.True(t, excusedSome, "some job start is excused")
	})
}

// TestExcusedManyIDs: any number of ids is answered, each id a key, also
// more than one multi-row statement holds, repeated ids and none.
func TestExcusedManyIDs(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ss := s.(*sqlStore)
		ctx := context.Background()
		var entries []testrun.FlakyEntry
		var ids []string
		for i := range 3 * chunk {
			id := fmt.Sprintf("t%05d", i)
			ids = append(ids, id)
			if i%3 == 0 {
				e := testrun.FlakyEntry{Repository: "r", Environment: "e", TestID: id}
				e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"r"}, At: c.Now().Add(-time.Hour)})
				entries = append(entries, e)
			}
		}
		require.NoError(t, ss.inTx(ctx, "fill", func(tx *sql.Tx) error { return ss.putEntries(ctx, tx, entries) }))
		got, err := Excused(ctx, s, "r", "e", append(ids, ids[0], ids[1]), c.Now())
		require.NoError(t, err)
		require.Len(t, got, len(ids))
		for i, id := range ids {
			require.Equal(t, i%3 == 0, got[id], id)
		}
		none, err := Excused(ctx, s, "r", "e", nil, c.Now())
		require.NoError(t, err)
		require.Empty(t, none)
	})
}

// TestExcusedBadSightings: an entry whose kept sightings must be read and
// cannot be is an error naming the test, not a silent answer.
func TestExcusedBadSightings(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ss := s.(*sqlStore)
		ctx := context.Background()
		e := testrun.FlakyEntry{Repository: "r", Environment: "e", TestID: "broken"}
		e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"a"}, At: c.Now().Add(-time.Hour)})
		e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"b"}, At: c.Now().Add(time.Hour)})
		require.NoError(t, ss.inTx(ctx, "fill", func(tx *sql.Tx) error { return ss.putEntries(ctx, tx, []testrun.FlakyEntry{e}) }))
		_, err := ss.db.ExecContext(ctx, ss.q(`UPDATE flaky_entries SET seen = ? WHERE test_id = ?`), `[{"at": 7}]`, "broken")
		require.NoError(t, err)
		_, err = Excused(ctx, s, "r", "e", []string{"broken"}, c.Now())
		require.ErrorContains(t, err, `entry "broken": sightings`)
	})
}

// TestExcusedAwkwardIDs: ids that an array literal would misread unless
// quoted and escaped (quotes, backslashes, commas, braces, spaces, the
// word NULL, an empty id) are each answered for themselves, in every
// PostgreSQL query exec mode (the statement prepared and kept, or, behind
// a pooler, none kept on the server), and on SQLite.
func TestExcusedAwkwardIDs(t *testing.T) {
	ids := []string{`a"b`, `a\b`, `a\"b`, `a,b`, `{a}`, `a b`, ` `, `NULL`, ``, `é::ü`, `"`, `\`, `plain`}
	check := func(t *testing.T, location string, prepared func(*testing.T, int)) {
		c := newClock()
		s, err := Open(context.Background(), location, WithClock(c.Now), WithMaxConns(1))
		require.NoError(t, err)
		defer s.Close()
		ss := s.(*sqlStore)
		ctx := context.Background()
		var entries []testrun.FlakyEntry
		want := map[string]bool{}
		for i, id := range ids {
			// Every other id is on the list; the rest are absent, and one
			// look-alike of each absent id is (its quotes or escapes
			// dropped), so that misreading the literal changes the answer.
			want[id] = i%2 == 0
			listed := id + "~"
			if want[id] {
				listed = id
			}
			e := testrun.FlakyEntry{Repository: "r", Environment: "e", TestID: listed}
			e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"r"}, At: c.Now().Add(-time.Hour)})
			entries = append(entries, e)
		}
		for _, look := range []string{`ab`, `a`, `b`, `a\`} {
			e := testrun.FlakyEntry{Repository: "r", Environment: "e", TestID: look}
			e.Add(testrun.FlakySeen{How: testrun.FlakyRunnerRetry, Runs: []string{"r"}, At: c.Now().Add(-time.Hour)})
			entries = append(entries, e)
		}
		require.NoError(t, ss.inTx(ctx, "fill", func(tx *sql.Tx) error { return ss.putEntries(ctx, tx, entries) }))
		for range 2 { // the second time on a statement the connection kept
			got, err := Excused(ctx, s, "r", "e", ids, c.Now())
			require.NoError(t, err)
			require.Equal(t, want, got)
		}
		if prepared != nil {
			var n int
			require.NoError(t, ss.db.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements`).Scan(&n))
			prepared(t, n)
		}
	}
	t.Run("sqlite", func(t *testing.T) { check(t, teststore.SQLiteLocation(t), nil) })
	for _, mode := range []string{"", "exec", "simple_protocol"} {
		t.Run("postgres mode "+mode, func(t *testing.T) {
			location := teststore.PostgresLocation(t)
			if mode != "" {
				u, err := url.Parse(location)
				require.NoError(t, err)
				q := u.Query()
				q.Set("default_query_exec_mode", mode)
				u.RawQuery = q.Encode()
				location = u.String()
			}
			check(t, location, func(t *testing.T, n int) {
				if mode == "" {
					require.Positive(t, n, "the statement is kept on the connection")
				} else {
					require.Zero(t, n, "nothing is kept on the server behind a pooler")
				}
			})
		})
	}
}

// TestKeysCompareByteWise: a store written at schema version 12 reads the
// same at the newest, where PostgreSQL compares the flaky list's and the
// quarantine's keys byte-wise ("C"), as SQLite does: its entries, in byte
// order, excuse and quarantine as before, for ids of every kind of
// character.
func TestKeysCompareByteWise(t *testing.T) {
	ids := []string{"pkg::Ä", "pkg::B", "pkg::a", "pkg::é", "pkg::名前", "pkg::Z z", "pkg::a<b>&"}
	forEach(t, func(t *testing.T, b backend) {
		loc := b.location(t)
		c := newClock()
		ctx := context.Background()
		old, err := Open(ctx, loc, WithClock(c.Now), withSchema(12))
		require.NoError(t, err)
		_, err = old.Record(ctx, "acme/api", "linux", run("r1", "t", testrun.KindBase, map[string]testrun.Outcome{"ok": pass}, ids...))
		require.NoError(t, err)
		q, err := QuarantineOf(old)
		require.NoError(t, err)
		_, _, err = q.AddQuarantine(ctx, testrun.QuarantineEntry{Repository: "acme/api", Environment: "linux", TestID: "pkg::é", Owner: "o", Reason: "r", Expires: c.Now().Add(time.Hour)})
		require.NoError(t, err)
		require.NoError(t, old.Close())

		s := open(t, loc, c)
		ss := s.(*sqlStore)
		if ss.d.name == "postgres" {
			rows, err := ss.db.QueryContext(ctx, `SELECT table_name, column_name, COALESCE(collation_name, '') FROM information_schema.columns
				WHERE table_schema = current_schema() AND table_name IN ('flaky_entries', 'quarantine')
					AND column_name IN ('repository', 'environment', 'test_id')`)
			require.NoError(t, err)
			n := 0
			for rows.Next() {
				var table, column, collation string
				require.NoError(t, rows.Scan(&table, &column, &collation))
				assert.Equal(t, "C", collation, "%s.%s", table, column)
				n++
			}
			require.NoError(t, rows.Err())
			require.NoError(t, rows.Close())
			assert.Equal(t, 6, n)
		}
		want := slices.Clone(ids)
		slices.Sort(want)
		entries, err := s.List(ctx, Filter{Repository: "acme/api"})
		require.NoError(t, err)
		var got []string
		for _, e := range entries {
			got = append(got, e.TestID)
		}
		assert.Equal(t, want, got, "byte order, as Go sorts")
		excused, err := Excused(ctx, s, "acme/api", "linux", append(slices.Clone(ids), "pkg::A"), c.Now().Add(time.Minute))
		require.NoError(t, err)
		for _, id := range ids {
			assert.True(t, excused[id], id)
		}
		assert.False(t, excused["pkg::A"], "no entry compares equal to an id it is not")
		q, err = QuarantineOf(s)
		require.NoError(t, err)
		qe, err := q.QuarantineLookup(ctx, "acme/api", "linux", []string{"pkg::é", "pkg::e"})
		require.NoError(t, err)
		require.Len(t, qe, 1)
		assert.Equal(t, "pkg::é", qe[0].TestID)
	})
}
