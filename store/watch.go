package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// watchChannel starts the name of the PostgreSQL notification channel a
// write of runs is announced on; the MD5 of the store's schema ends it,
// so that stores in several schemas of one database (and the tests') do
// not hear each other. The trigger of migration 14 notifies it, with an
// empty payload, in every transaction that gives runs a new version
// (touch updates run_writes), so that every writer is heard, whatever
// program it is.
const watchChannel = "testresults_runs_"

// channelQuery returns the channel of the store a connection's
// search_path finds.
const channelQuery = `SELECT '` + watchChannel + `' || md5(n.nspname) FROM pg_class c
	JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = 'run_writes'::regclass`

// probePrefix starts the payload of a probe: a notification the watch
// sends itself to learn that it still hears the channel. A probe is not a
// write; another server's probe is passed over.
const probePrefix = "probe:"

// Timing of a watch (see WithWatch).
const (
	// WatchProbeEvery is how long a watch waits, hearing nothing, before
	// it sends a probe.
	WatchProbeEvery = 5 * time.Second
	// WatchProbeTimeout is how long a probe may take to come back before
	// the watch stops trusting what it keeps and connects again.
	WatchProbeTimeout = 2 * time.Second
	// watchMaxBackoff bounds the wait between two attempts to listen.
	watchMaxBackoff = 30 * time.Second
	// watchMaxKept bounds the versions a watch keeps; past it the kept
	// ones are dropped, and asked of the database again.
	watchMaxKept = 10000
)

// WithWatch has a PostgreSQL store listen for the writes of runs, as a
// long-running reader (testresults serve, testresults mcp) opens it:
// JobVersion, SessionVersion and RunsVersion then answer a version they
// read before from memory for as long as no write of runs was announced
// since, instead of asking the database on every request. The store
// listens on a connection of its own (beside WithMaxConns' bound), checks
// that it hears its own notifications when it starts listening and at
// least every WatchProbeEvery (a probe that does not come back within
// WatchProbeTimeout drops what it keeps), and asks the database again
// whenever it is not listening. A write is heard once PostgreSQL delivers
// its notification, normally within a millisecond of its commit; a reader
// that must see a write it knows has committed asks with Fresh.
//
// It does nothing on SQLite (a version is one read of a local file), nor
// on a PostgreSQL URL that says a pooler in transaction mode is in front
// (default_query_exec_mode=exec or simple_protocol): such a pooler hands
// the listening session's server connection to other clients, and the
// notifications would not reach it. Behind a pooler the URL does not
// name, the probe never counts (it must come back from the session's own
// server process, and a pooler gives its clients a process id of its
// own), so nothing is kept either. A listening session that silently
// stops hearing is found by its next probe: a version kept meanwhile is
// at most WatchProbeEvery + WatchProbeTimeout old.
func WithWatch() Option {
	return optionFunc(func(c config) config {
		c.watch = true
		return c
	})
}

// WatchState is what a store's watch (WithWatch) is doing.
type WatchState string

const (
	// WatchOff is a store that does not watch (SQLite, a pooled URL, or
	// not opened WithWatch): every version is read from the database.
	WatchOff WatchState = "off"
	// WatchLive is a watch that listens and whose last probe came back:
	// versions are kept until a write is heard.
	WatchLive WatchState = "live"
	// WatchDown is a watch that is not listening (connecting, a probe
	// not heard, a session that failed, or behind a pooler): every
	// version is read from the database meanwhile.
	WatchDown WatchState = "down"
)

// WatchStateOf returns what st's watch is doing; WatchOff for a store
// this package did not open.
func WatchStateOf(st Store) WatchState {
	s, ok := st.(*sqlStore)
	switch {
	case !ok || s.watch == nil:
		return WatchOff
	case s.watch.isLive():
		return WatchLive
	default:
		return WatchDown
	}
}

type freshKey struct{}

// Fresh returns a context under which a watching store (WithWatch) asks
// the database for every version, whatever it keeps: for a reader that
// must see a write it knows has committed (an HTTP request sent with
// Cache-Control: no-cache).
func Fresh(ctx context.Context) context.Context { return context.WithValue(ctx, freshKey{}, true) }

func isFresh(ctx context.Context) bool { return ctx.Value(freshKey{}) != nil }

// versionWatch keeps the versions a store read while it listens for the
// writes that would change them. Every version is a function of what was
// written, so one announcement of any write drops every kept version: a
// new generation starts, and a version read before it began is never
// kept.
type versionWatch struct {
	mu   sync.RWMutex
	live bool // listening, and its last probe came back
	gen  uint64
	kept map[string]string

	// connect opens the listening connection; notify sends a probe on it
	// (selfNotify, but in tests).
	connect func(ctx context.Context) (*pgx.Conn, error)
	notify  func(ctx context.Context, conn *pgx.Conn, channel, payload string) error

	probeEvery, probeTimeout, minBackoff time.Duration

	cancel context.CancelFunc
	done   chan struct{}
}

// genToken is the generation a version was asked in; ok is false when
// the watch was not live, and what is read then is not kept.
type genToken struct {
	gen uint64
	ok  bool
}

// version returns the version kept under key, if the watch is live and
// ctx is not Fresh.
func (w *versionWatch) version(ctx context.Context, key string) (string, bool) {
	if w == nil || isFresh(ctx) {
		return "", false
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	if !w.live {
		return "", false
	}
	v, ok := w.kept[key]
	return v, ok
}

// begin is called before a version is read from the database, so that
// the version is kept only when no write was announced while it was read.
func (w *versionWatch) begin() genToken {
	if w == nil {
		return genToken{}
	}
	w.mu.RLock()
	defer w.mu.RUnlock()
	return genToken{gen: w.gen, ok: w.live}
}

// keep keeps version v of key, read in the generation of t.
func (w *versionWatch) keep(t genToken, key, v string) {
	if w == nil || !t.ok {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.live || w.gen != t.gen {
		return
	}
	if len(w.kept) >= watchMaxKept {
		clear(w.kept)
	}
	w.kept[key] = v
}

// newGeneration drops every kept version (the watch went live or stopped
// listening) and sets whether it is live.
func (w *versionWatch) newGeneration(live bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	w.live = live
	clear(w.kept)
}

// wrote drops every kept version, live or not: a write was announced, or
// the store's own write transaction has committed, so that the handle
// that wrote reads its write at once.
func (w *versionWatch) wrote() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.gen++
	clear(w.kept)
}

// isLive reports whether the watch answers versions from memory.
func (w *versionWatch) isLive() bool {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.live
}

// start runs the watch until stop.
func (w *versionWatch) start() {
	ctx, cancel := context.WithCancel(context.Background())
	w.cancel, w.done = cancel, make(chan struct{})
	w.kept = map[string]string{}
	go w.run(ctx)
}

// stop ends the watch and waits for its connection to close.
func (w *versionWatch) stop() {
	if w == nil || w.cancel == nil {
		return
	}
	w.cancel()
	<-w.done
}

// run listens, and listens again after a wait that doubles up to
// watchMaxBackoff while attempts fail, until ctx is done.
func (w *versionWatch) run(ctx context.Context) {
	defer close(w.done)
	backoff := w.minBackoff
	for {
		wentLive := w.listen(ctx)
		if ctx.Err() != nil {
			return
		}
		if wentLive {
			backoff = w.minBackoff
		}
		t := time.NewTimer(backoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		backoff = min(2*backoff, watchMaxBackoff)
	}
}

// listen is one listening session: it goes live once its first probe
// comes back, and returns when the connection fails, a probe does not
// come back, or ctx is done. It reports whether it went live.
func (w *versionWatch) listen(ctx context.Context) bool {
	conn, err := w.connect(ctx)
	if err != nil {
		return false
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_ = conn.Close(cctx) // the session ends here whatever Close says
	}()
	// Nothing is kept from the moment the session fails, before its
	// connection is closed.
	defer w.newGeneration(false)
	var channel string
	if err := conn.QueryRow(ctx, channelQuery).Scan(&channel); err != nil {
		return false
	}
	// The session is named after its channel, so that an administrator
	// (pg_stat_activity) can tell which store it listens for.
	if _, err := conn.Exec(ctx, `SELECT set_config('application_name', $1, false)`, channel); err != nil {
		return false
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{channel}.Sanitize()); err != nil {
		return false
	}
	if w.probe(ctx, conn, channel) != nil {
		return false
	}
	w.newGeneration(true)
	for {
		wctx, cancel := context.WithTimeout(ctx, w.probeEvery)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case ctx.Err() != nil:
			return true
		case err == nil:
			w.heard(n, "", 0)
		case errors.Is(err, context.DeadlineExceeded) && !conn.IsClosed():
			if w.probe(ctx, conn, channel) != nil {
				return true
			}
		default:
			return true
		}
	}
}

// heard takes a notification: a probe is not a write (and the one
// awaited, when it is, says the channel is heard); anything else is. It
// reports whether n is the probe awaited, sent by the listening session's
// own server process, ownPID: behind a pooler the session is not the
// server's (a pooler tells its clients a process id of its own), and
// what the server delivers to it may be anybody's, or nobody's.
func (w *versionWatch) heard(n *pgconn.Notification, awaited string, ownPID uint32) bool {
	if strings.HasPrefix(n.Payload, probePrefix) {
		return awaited != "" && n.Payload == awaited && n.PID == ownPID
	}
	w.wrote()
	return false
}

// selfNotify notifies channel with payload on conn itself: the server
// delivers it back to conn as it delivers a writer's, and the probe needs
// no connection of the store's pool, which a busy server may have none
// of to spare.
func selfNotify(ctx context.Context, conn *pgx.Conn, channel, payload string) error {
	_, err := conn.Exec(ctx, `SELECT pg_notify($1, $2)`, channel, payload)
	return err
}

// probe sends a notification and waits, within probeTimeout, to hear it
// on conn; writes heard meanwhile are taken.
func (w *versionWatch) probe(ctx context.Context, conn *pgx.Conn, channel string) error {
	var b [12]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	token := probePrefix + hex.EncodeToString(b[:])
	pctx, cancel := context.WithTimeout(ctx, w.probeTimeout)
	defer cancel()
	if err := w.notify(pctx, conn, channel, token); err != nil {
		return err
	}
	for {
		n, err := conn.WaitForNotification(pctx)
		if err != nil {
			return err
		}
		if w.heard(n, token, conn.PgConn().PID()) {
			return nil
		}
	}
}
