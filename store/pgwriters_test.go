package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

// pgWriters is a fresh PostgreSQL schema for the writer tests: the store's
// location (with params added to it), an administrator's connection to the
// same server, the schema's name, and the application name the store's
// connections carry, by which its waits are told from other tests'.
type pgWriters struct {
	location, schema, app string
	admin                 *sql.DB
}

func newPGWriters(t *testing.T, params url.Values) pgWriters {
	t.Helper()
	loc := teststore.PostgresLocation(t)
	u, err := url.Parse(loc)
	require.NoError(t, err)
	q := u.Query()
	w := pgWriters{schema: q.Get("search_path")}
	w.app = "w" + w.schema
	q.Set("application_name", w.app)
	for k, v := range params {
		q[k] = v
	}
	u.RawQuery = strings.ReplaceAll(q.Encode(), "+", "%20")
	w.location = u.String()
	w.admin, err = sql.Open("pgx", os.Getenv(teststore.PostgresURLEnv))
	require.NoError(t, err)
	t.Cleanup(func() { _ = w.admin.Close() })
	return w
}

// waiting waits, for at most 30 s, until n of the store's connections wait
// for a lock.
func (w pgWriters) waiting(t *testing.T, n int) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		var k int
		require.NoError(t, w.admin.QueryRow(`SELECT count(*) FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND application_name = $1`, w.app).Scan(&k))
		if k >= n {
			return
		}
		require.True(t, time.Now().Before(deadline), "%d of the store's connections never waited for a lock", n)
		time.Sleep(10 * time.Millisecond)
	}
}

func (w pgWriters) count(t *testing.T, table string) int {
	t.Helper()
	var n int
	require.NoError(t, w.admin.QueryRow(`SELECT count(*) FROM `+w.schema+`.`+table).Scan(&n))
	return n
}

// A prune that comes while a record of the same tree is under way waits
// for it: it never deletes the tree's outcomes that the record read and
// found unchanged, so a later flip on that tree is still seen.
func TestPostgresPruneWaitsForRecord(t *testing.T) {
	w := newPGWriters(t, nil)
	ctx := context.Background()
	c := newClock()
	s := open(t, w.location, c)
	_, err := s.Record(ctx, "acme", "default", run("r1", "X", testrun.KindRerun, map[string]testrun.Outcome{"A": pass}))
	require.NoError(t, err)
	c.Advance(31 * 24 * time.Hour) // the tree has expired: a prune would delete it

	// The tree's row is held from outside, so that the record stops
	// after reading the tree's outcomes, before it refreshes the tree.
	hold, err := w.admin.Begin()
	require.NoError(t, err)
	defer hold.Rollback() //nolint:errcheck // committed below; a no-op then
	_, err = hold.Exec(`SELECT 1 FROM ` + w.schema + `.trees WHERE tree = 'X' FOR UPDATE`)
	require.NoError(t, err)
	var wg sync.WaitGroup
	var recErr, pruneErr error
	wg.Add(2)
	go func() {
		defer wg.Done()
		_, recErr = s.Record(ctx, "acme", "default", run("r2", "X", testrun.KindRerun, map[string]testrun.Outcome{"A": pass}))
	}()
	w.waiting(t, 1)
	go func() {
		defer wg.Done()
		_, pruneErr = s.Prune(ctx)
	}()
	w.waiting(t, 2)
	require.NoError(t, hold.Commit())
	wg.Wait()
	require.NoError(t, recErr)
	require.NoError(t, pruneErr)
	assert.Equal(t, 1, w.count(t, "trees"))
	assert.Equal(t, 1, w.count(t, "tree_outcomes"), "the pass the record found unchanged is kept")

	c.Advance(time.Hour)
	got, err := s.Record(ctx, "acme", "default", run("r3", "X", testrun.KindRerun, map[string]testrun.Outcome{"A": fail}))
	require.NoError(t, err)
	assert.Equal(t, map[string][]testrun.FlakyHow{"A": {testrun.FlakySameTree}}, got.Flaky, "the flip on tree X is seen")
}

// With a server whose default isolation is repeatable read, stores opened
// at once on a fresh schema all migrate it, and writers recording runs at
// once all store them: each writer reads what it guards after its lock is
// granted.
func TestPostgresWritersUnderRepeatableRead(t *testing.T) {
	w := newPGWriters(t, url.Values{"default_transaction_isolation": {"repeatable read"}})
	ctx := context.Background()
	const writers, each = 6, 10
	stores := make([]Store, writers)
	errs := make([]error, writers)
	var wg sync.WaitGroup
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			stores[i], errs[i] = Open(ctx, w.location, WithMaxConns(2))
		}()
	}
	wg.Wait()
	for i, err := range errs {
		require.NoError(t, err, "store %d could not open the fresh schema", i)
		t.Cleanup(func() { stores[i].Close() })
	}
	session, err := sql.Open("pgx", w.location)
	require.NoError(t, err)
	defer session.Close()
	var isolation string
	require.NoError(t, session.QueryRow(`SHOW default_transaction_isolation`).Scan(&isolation))
	require.Equal(t, "repeatable read", isolation, "the location sets the sessions' default")
	for i := range stores {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range each {
				id := fmt.Sprintf("w%d-%d", i, j)
				_, err := stores[i].RecordRun(ctx, StoredRun{Repo: "acme", JobID: fmt.Sprintf("job-%d", i),
					Run: run(id, "T", testrun.KindRerun, map[string]testrun.Outcome{"a": pass})})
				if err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "writer %d", i)
	}
	assert.Equal(t, writers*each, w.count(t, "runs"), "every run is stored")
}

// A run's failing cases left behind without their run (by a store that
// lost the run) never stop the run from being recorded again, and what is
// answered afterwards is the recorded run's.
func TestPostgresLeftFailingCasesReplaced(t *testing.T) {
	w := newPGWriters(t, nil)
	ctx := context.Background()
	s := open(t, w.location, newClock())
	_, err := w.admin.Exec(`INSERT INTO `+w.schema+`.run_failing (run_id, cases) VALUES ('r1', $1)`, `{"old":"failed"}`)
	require.NoError(t, err)
	_, err = s.RecordRun(ctx, StoredRun{Repo: "acme", JobID: "job-1",
		Run: run("r1", "T", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail})})
	require.NoError(t, err)
	got, err := s.RunOutcomes(ctx, "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]testrun.Outcome{"b": fail}, got)
}

// The same for a run recorded without cases: the left failing cases are
// removed, never answered as the run's.
func TestPostgresLeftFailingCasesOfARunWithoutCases(t *testing.T) {
	w := newPGWriters(t, nil)
	ctx := context.Background()
	s := open(t, w.location, newClock())
	_, err := w.admin.Exec(`INSERT INTO `+w.schema+`.run_failing (run_id, cases) VALUES ('r1', $1)`, `{"old":"failed"}`)
	require.NoError(t, err)
	r := run("r1", "T", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass})
	r.Cases, r.Durations = nil, nil
	_, err = s.RecordRun(ctx, StoredRun{Repo: "acme", JobID: "job-1", Run: r})
	require.NoError(t, err)
	got, err := s.RunOutcomes(ctx, "r1", nil)
	require.NoError(t, err)
	assert.Empty(t, got)
	assert.Equal(t, 0, w.count(t, "run_failing"))
}

// A read that would keep a run's failing cases on the way (a run stored
// before they had a table) never waits for a writer that holds the runs'
// lock: it answers, and leaves the keeping for a later read.
func TestPostgresReadNeverWaitsForTheRunsLock(t *testing.T) {
	w := newPGWriters(t, nil)
	ctx := context.Background()
	s := open(t, w.location, newClock())
	_, err := s.RecordRun(ctx, StoredRun{Repo: "acme", JobID: "job-1",
		Run: run("r1", "T", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail})})
	require.NoError(t, err)
	// As a run stored before its failing cases were kept apart.
	_, err = w.admin.Exec(`DELETE FROM ` + w.schema + `.run_failing`)
	require.NoError(t, err)

	hold, err := w.admin.Begin()
	require.NoError(t, err)
	defer hold.Rollback() //nolint:errcheck // rolled back below; a no-op then
	// The store's lock: its name in the store's schema.
	_, err = hold.Exec(`SET LOCAL search_path TO ` + w.schema)
	require.NoError(t, err)
	_, err = hold.Exec(`SELECT pg_advisory_xact_lock(`+advisoryKeySQL+`)`, advisoryName("runs"))
	require.NoError(t, err)
	rctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	got, err := s.RunOutcomes(rctx, "r1", nil)
	require.NoError(t, err, "the read answers while a writer holds the lock")
	assert.Equal(t, map[string]testrun.Outcome{"b": fail}, got)
	assert.Equal(t, 0, w.count(t, "run_failing"), "nothing kept while the lock was held")

	require.NoError(t, hold.Rollback())
	_, err = s.RunOutcomes(ctx, "r1", nil)
	require.NoError(t, err)
	assert.Equal(t, 1, w.count(t, "run_failing"), "kept by a read once the lock is free")
}
