package store

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
	assert.Equal(t, WatchLive, WatchStateOf(s))
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

	// Any change to the versions is announced, an administrator's too.
	db := writer.(*sqlStore).db
	_, err = db.ExecContext(ctx, `UPDATE run_versions SET version = version + 1000 WHERE scope = 'job' AND key = 'j'`)
	require.NoError(t, err)
	edited, err := writer.JobVersion(ctx, "j")
	require.NoError(t, err)
	eventually(t, func() bool { v, _ := reads(job); return v == edited }, "an edit of run_versions was never heard")

	// Only the triggers announce a change: with them off, a version
	// changed behind the store's back stays as kept, and Fresh reads it.
	for _, table := range []string{"run_writes", "run_versions"} {
		_, err = db.ExecContext(ctx, `ALTER TABLE `+table+` DISABLE TRIGGER `+table+`_notify`)
		require.NoError(t, err)
	}
	_, err = db.ExecContext(ctx, `UPDATE run_versions SET version = version + 1000 WHERE scope = 'job' AND key = 'j'`)
	require.NoError(t, err)
	kept, n := reads(job)
	assert.Equal(t, edited, kept, "no change was announced")
	assert.Zero(t, n)
	fresh, n := reads(func() (string, error) { return s.JobVersion(Fresh(ctx), "j") })
	assert.Equal(t, int64(1), n, "Fresh asks the database")
	assert.NotEqual(t, edited, fresh)
}

// gatedWatch replaces st's watch with one whose every connection after
// the first waits for a value on the returned channel, and whose probes
// go out every probeEvery.
func gatedWatch(t *testing.T, st *sqlStore, loc string, probeEvery time.Duration) chan struct{} {
	t.Helper()
	st.watch.stop()
	gate := make(chan struct{})
	first := true
	w := &versionWatch{
		connect: func(ctx context.Context) (*pgx.Conn, error) {
			if !first {
				select {
				case <-gate:
				case <-ctx.Done():
					return nil, ctx.Err()
				}
			}
			first = false
			return pgx.Connect(ctx, loc)
		},
		notify:     selfNotify,
		probeEvery: probeEvery, probeTimeout: time.Minute, minBackoff: 10 * time.Millisecond,
	}
	st.watch = w
	w.start()
	t.Cleanup(w.stop)
	eventually(t, w.isLive, "the watch never heard its own probe")
	return gate
}

func TestWatchListensAgainAfterItsConnectionDies(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	s := openWatching(t, loc, c)
	writer := open(t, loc, c)
	gate := gatedWatch(t, s, loc, WatchProbeEvery)
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
	assert.Equal(t, WatchDown, WatchStateOf(s))

	// While it cannot listen (its next connection waits at the gate),
	// every version is read, and another handle's write is seen at once.
	before := s.versionReads.Load()
	for range 3 {
		_, err := s.JobVersion(ctx, "j")
		require.NoError(t, err)
	}
	assert.Equal(t, int64(3), s.versionReads.Load()-before, "while not listening every version is read")
	_, err = writer.RecordRun(ctx, StoredRun{Run: run("a", "t1", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass}), JobID: "j"})
	require.NoError(t, err)
	want, err := writer.JobVersion(ctx, "j")
	require.NoError(t, err)
	v, err := s.JobVersion(ctx, "j")
	require.NoError(t, err)
	assert.Equal(t, want, v)

	close(gate)
	eventually(t, s.watch.isLive, "the watch never listened again")
	kept, err := s.JobVersion(ctx, "j") // kept from now on
	require.NoError(t, err)
	require.Equal(t, want, kept)
	_, err = writer.RecordRun(ctx, StoredRun{Run: run("b", "t2", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": fail}), JobID: "j"})
	require.NoError(t, err)
	want, err = writer.JobVersion(ctx, "j")
	require.NoError(t, err)
	eventually(t, func() bool { v, err := s.JobVersion(ctx, "j"); return err == nil && v == want }, "another handle's write after listening again was never heard")
}

// TestWatchProbesWhileQuiet: a watch that hears nothing probes every
// probeEvery and stays live while its probes come back, and still hears
// writes between them.
func TestWatchProbesWhileQuiet(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	s := openWatching(t, loc, c)
	writer := open(t, loc, c)
	gatedWatch(t, s, loc, 20*time.Millisecond)
	ctx := context.Background()
	var channel string
	require.NoError(t, s.db.QueryRowContext(ctx, channelQuery).Scan(&channel))
	var pid int
	require.NoError(t, s.db.QueryRowContext(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, channel).Scan(&pid))

	for i := range 5 {
		_, err := s.JobVersion(ctx, "j") // kept from now on
		require.NoError(t, err)
		time.Sleep(100 * time.Millisecond) // five probes' worth of silence
		require.True(t, s.watch.isLive(), "probe round %d", i)
		_, err = writer.RecordRun(ctx, StoredRun{Run: run(fmt.Sprint("r", i), "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"x": pass}), JobID: "j"})
		require.NoError(t, err)
		want, err := writer.JobVersion(ctx, "j")
		require.NoError(t, err)
		eventually(t, func() bool { v, err := s.JobVersion(ctx, "j"); return err == nil && v == want }, "a write between probes was never heard")
	}
	var again int
	require.NoError(t, s.db.QueryRowContext(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, channel).Scan(&again))
	assert.Equal(t, pid, again, "one session throughout: every probe came back on it")
}

// TestWatchNotLiveBehindAPooler: a probe that comes back from another
// server process than the listening session's own (what a pooler that
// shares server connections delivers) is not taken: the watch never goes
// live.
func TestWatchNotLiveBehindAPooler(t *testing.T) {
	loc := teststore.PostgresLocation(t)
	c := newClock()
	st := open(t, loc, c).(*sqlStore)
	tries := make(chan struct{}, 16)
	w := &versionWatch{
		connect: func(ctx context.Context) (*pgx.Conn, error) {
			tries <- struct{}{}
			return pgx.Connect(ctx, loc)
		},
		// The probe is delivered, by another session.
		notify: func(ctx context.Context, _ *pgx.Conn, channel, payload string) error {
			_, err := st.db.ExecContext(ctx, `SELECT pg_notify($1, $2)`, channel, payload)
			return err
		},
		probeEvery: time.Hour, probeTimeout: 200 * time.Millisecond, minBackoff: 10 * time.Millisecond,
	}
	st.watch = w
	w.start()
	t.Cleanup(func() { w.stop(); st.watch = nil })
	for range 4 {
		awaitTry(t, tries, "the watch stopped trying: a probe from another process made it live")
		assert.False(t, w.isLive(), "a probe from another process never makes the watch live")
	}
}

// awaitTry waits, for at most a minute, for the next connection attempt
// of a watch that must keep failing.
func awaitTry(t *testing.T, tries <-chan struct{}, msg string) {
	t.Helper()
	select {
	case <-tries:
	case <-time.After(time.Minute):
		t.Fatal(msg)
	}
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
		// Each attempt waits for its probe, gives up, tries again.
		awaitTry(t, connected, "the watch stopped trying: an unheard probe made it live")
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
	assert.Equal(t, WatchOff, WatchStateOf(s))

	loc := teststore.PostgresLocation(t)
	for _, mode := range []string{"exec", "simple_protocol"} {
		p, err := Open(context.Background(), loc+"&default_query_exec_mode="+mode, WithClock(c.Now), WithWatch())
		require.NoError(t, err)
		assert.Nil(t, p.(*sqlStore).watch, "%s: a pooler in transaction mode would not deliver notifications", mode)
		assert.Equal(t, WatchOff, WatchStateOf(p))
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
	assert.False(t, w.heard(&pgconn.Notification{PID: 7, Payload: "probe:someone-else"}, "", 0), "a probe is not a write")
	_, ok = w.version(ctx, "k")
	assert.True(t, ok)
	assert.True(t, w.heard(&pgconn.Notification{PID: 7, Payload: "probe:mine"}, "probe:mine", 7), "the probe awaited, from the session's own process")
	assert.False(t, w.heard(&pgconn.Notification{PID: 8, Payload: "probe:mine"}, "probe:mine", 7), "the probe awaited, from another process")
	_, ok = w.version(ctx, "k")
	assert.True(t, ok, "probes drop nothing")
	w.heard(&pgconn.Notification{PID: 8}, "", 0) // a write
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
