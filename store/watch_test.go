package store

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

// eventually polls cond every 10 ms for at most 10 s: a bound for what a
// busy machine may take, never a timing the test asserts.
func eventually(t *testing.T, cond func() bool, msg string) {
	t.Helper()
	for range 1000 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal(msg)
}

func openWatching(t *testing.T, loc string, c *clock) *sqlStore {
	t.Helper()
	s, err := Open(context.Background(), loc, WithClock(c.Now), WithWatch())
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	ss := s.(*sqlStore)
	require.NotNil(t, ss.watch, "a PostgreSQL store opened WithWatch listens")
	eventually(t, ss.watch.isLive, "the watch never heard its own probe")
	return ss
}

func TestWatchKeepsVersionsUntilAWrite(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	s := openWatching(t, loc, c)
	writer := open(t, loc, c) // another process, as far as the store can tell
	ctx := context.Background()

	reads := func(f func() (string, error)) (string, int64) {
		t.Helper()
		before := s.versionReads.Load()
		v, err := f()
		require.NoError(t, err)
		return v, s.versionReads.Load() - before
	}
	job := func() (string, error) { return s.JobVersion(ctx, "j") }
	session := func() (string, error) { return s.SessionVersion(ctx, "sess") }

	for name, f := range map[string]func() (string, error){"job": job, "session": session, "runs": func() (string, error) { return s.RunsVersion(ctx) }} {
		v, n := reads(f)
		assert.Equal(t, int64(1), n, "%s: the first read asks the database", name)
		again, n := reads(f)
		assert.Equal(t, v, again, name)
		assert.Zero(t, n, "%s: asked again with no write between, the version is kept", name)
	}

	v0, _ := reads(job)
	_, err := writer.RecordRun(ctx, StoredRun{Run: run("a", "t1", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass}), JobID: "j", SessionRef: "sess"})
	require.NoError(t, err)
	want, err := writer.JobVersion(ctx, "j")
	require.NoError(t, err)
	require.NotEqual(t, v0, want)
	eventually(t, func() bool { v, _ := reads(job); return v == want }, "a write by another handle was never heard")
	v, n := reads(job)
	assert.Equal(t, want, v)
	assert.Zero(t, n, "kept again once read after the write")

	// Only the trigger on run_writes announces a write: a version changed
	// behind the store's back stays as kept, and Fresh reads it.
	_, err = writer.(*sqlStore).db.ExecContext(ctx, `UPDATE run_versions SET version = version + 1000 WHERE scope = 'job' AND key = 'j'`)
	require.NoError(t, err)
	kept, n := reads(job)
	assert.Equal(t, want, kept, "no write was announced")
	assert.Zero(t, n)
	fresh, n := reads(func() (string, error) { return s.JobVersion(Fresh(ctx), "j") })
	assert.Equal(t, int64(1), n, "Fresh asks the database")
	assert.NotEqual(t, want, fresh)
}

func TestWatchListensAgainAfterItsConnectionDies(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	s := openWatching(t, loc, c)
	ctx := context.Background()
	var channel string
	require.NoError(t, s.db.QueryRowContext(ctx, channelQuery).Scan(&channel))

	// The server ends the listening session (a restart, a network fault,
	// an administrator).
	res, err := s.db.ExecContext(ctx, `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1`, channel)
	require.NoError(t, err)
	n, err := res.RowsAffected()
	require.NoError(t, err)
	require.Equal(t, int64(1), n, "one session listens on the store's channel")
	eventually(t, func() bool { return !s.watch.isLive() }, "the watch did not notice its connection died")

	before := s.versionReads.Load()
	for range 3 {
		_, err := s.JobVersion(ctx, "j")
		require.NoError(t, err)
	}
	if !s.watch.isLive() {
		assert.Equal(t, int64(3), s.versionReads.Load()-before, "while not listening every version is read")
	}
	eventually(t, s.watch.isLive, "the watch never listened again")
	_, err = s.RecordRun(ctx, StoredRun{Run: run("a", "t1", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass}), JobID: "j"})
	require.NoError(t, err)
	want, err := s.JobVersion(Fresh(ctx), "j")
	require.NoError(t, err)
	eventually(t, func() bool { v, err := s.JobVersion(ctx, "j"); return err == nil && v == want }, "a write after listening again was never heard")
}

func TestWatchNotLiveWhenItsProbeIsNotHeard(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	st := open(t, loc, c).(*sqlStore)
	connected := make(chan struct{}, 16)
	w := &versionWatch{
		connect: func(ctx context.Context) (*pgx.Conn, error) {
			connected <- struct{}{}
			return pgx.Connect(ctx, loc)
		},
		// As behind a pooler that hands the listening session's server
		// connection to someone else: the probe is sent, never heard.
		notify:     func(context.Context, *pgx.Conn, string, string) error { return nil },
		probeEvery: time.Hour, probeTimeout: 50 * time.Millisecond, minBackoff: 20 * time.Millisecond,
	}
	st.watch = w
	w.start()
	for range 3 {
		<-connected // each attempt waits for its probe, gives up, tries again
	}
	assert.False(t, w.isLive(), "a watch that never heard its probe keeps nothing")
	before := st.versionReads.Load()
	for range 2 {
		_, err := st.JobVersion(context.Background(), "j")
		require.NoError(t, err)
	}
	assert.Equal(t, int64(2), st.versionReads.Load()-before)
	w.stop()
	st.watch = nil
}

func TestWatchOnlyWherePostgresCanNotify(t *testing.T) {
	c := newClock()
	s, err := Open(context.Background(), teststore.SQLiteLocation(t), WithClock(c.Now), WithWatch())
	require.NoError(t, err)
	defer s.Close()
	assert.Nil(t, s.(*sqlStore).watch, "SQLite reads a version from its file")

	loc := teststore.PostgresLocation(t)
	for _, mode := range []string{"exec", "simple_protocol"} {
		p, err := Open(context.Background(), loc+"&default_query_exec_mode="+mode, WithClock(c.Now), WithWatch())
		require.NoError(t, err)
		assert.Nil(t, p.(*sqlStore).watch, "%s: a pooler in transaction mode would not deliver notifications", mode)
		require.NoError(t, p.Close())
	}
}

func TestVersionWatchGenerations(t *testing.T) {
	w := &versionWatch{kept: map[string]string{}}
	ctx := context.Background()
	_, ok := w.version(ctx, "k")
	assert.False(t, ok)

	tok := w.begin()
	w.keep(tok, "k", "1")
	_, ok = w.version(ctx, "k")
	assert.False(t, ok, "not live: nothing is kept")

	w.newGeneration(true)
	tok = w.begin()
	w.keep(tok, "k", "1")
	v, ok := w.version(ctx, "k")
	assert.True(t, ok)
	assert.Equal(t, "1", v)
	_, ok = w.version(Fresh(ctx), "k")
	assert.False(t, ok, "Fresh always asks")

	stale := w.begin()
	assert.False(t, w.heard("probe:someone-else", ""), "a probe is not a write")
	_, ok = w.version(ctx, "k")
	assert.True(t, ok)
	w.heard("", "") // a write
	_, ok = w.version(ctx, "k")
	assert.False(t, ok, "a write drops what was kept")
	w.keep(stale, "k", "1")
	_, ok = w.version(ctx, "k")
	assert.False(t, ok, "a version read before the write is not kept")
	assert.True(t, w.isLive(), "a write does not stop the watch")

	w.newGeneration(false)
	assert.False(t, w.isLive())
	w.wrote()
	assert.False(t, w.isLive(), "a write never makes a watch live")

	w.newGeneration(true)
	tok = w.begin()
	for i := range watchMaxKept + 5 {
		w.keep(tok, strconv.Itoa(i), "1")
	}
	assert.LessOrEqual(t, len(w.kept), watchMaxKept, "bounded")
	assert.Positive(t, len(w.kept))
}
