package store

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PostgresMaxConns bounds the connections one store opens to PostgreSQL
// (the server's default max_connections is 100, shared by every client).
const PostgresMaxConns = 16

// openPostgres opens the PostgreSQL store at url. Writers of one
// repository and environment are serialised by a transaction-scoped
// advisory lock, so a flip seen by two machines at once is not lost; the
// lock ends with its transaction, so it works behind a pooler in
// transaction mode too (see postgresConnector for the URL setting that
// goes with it).
func openPostgres(ctx context.Context, url string, cfg config) (Store, error) {
	connector, err := newPostgresConnector(url)
	if err != nil {
		return nil, fmt.Errorf("store: postgres: %s: %w", redactLocation(url), err)
	}
	db := sql.OpenDB(connector)
	// Bounded, so that many concurrent readers (testresults serve) wait
	// for a connection instead of exceeding the server's max_connections.
	n := cfg.maxConnsOr(PostgresMaxConns)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.PingContext(ctx); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: postgres: %s: %w", redactLocation(url), err)
	}
	s := &sqlStore{db: db, now: cfg.now, parsed: newRunCache(maxCachedRunBytes), redact: newRedactor(url), d: dialect{
		name:    "postgres",
		rebind:  dollarPlaceholders,
		lock:    advisoryLock,
		tryLock: tryAdvisoryLock,
		tx:      &sql.TxOptions{Isolation: sql.LevelReadCommitted},
		collate: ` COLLATE "C"`,
	}}
	if err := s.migrateTo(ctx, cfg.schema); err != nil {
		_ = db.Close()
		return nil, err
	}
	if cfg.watch && !connector.pooled {
		s.watch = &versionWatch{
			connect:    func(ctx context.Context) (*pgx.Conn, error) { return pgx.Connect(ctx, url) },
			notify:     selfNotify,
			probeEvery: WatchProbeEvery, probeTimeout: WatchProbeTimeout, minBackoff: time.Second,
		}
		s.watch.start()
	}
	return s, nil
}

// dollarPlaceholders numbers the ? placeholders of q: $1, $2, ... (the
// queries of this package hold no ? inside literals).
func dollarPlaceholders(q string) string {
	var b strings.Builder
	b.Grow(len(q) + 16)
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	return b.String()
}

// tryAdvisoryLock takes the transaction-scoped advisory lock of key only
// when it is free, and reports whether it did.
func tryAdvisoryLock(ctx context.Context, tx *sql.Tx, key string) (bool, error) {
	var ok bool
	err := tx.QueryRowContext(ctx, `SELECT pg_try_advisory_xact_lock(`+advisoryKeySQL+`)`, advisoryName(key)).Scan(&ok)
	return ok, err
}

// advisoryKeySQL is the 64-bit advisory lock key of the name $1 in the
// store's schema. Advisory locks are the database's, not a schema's: two
// stores in two schemas of one database must not wait for each other.
// The name is bytes: keys join their parts with NUL, which text cannot hold.
// SHA-256, not md5: a server in FIPS mode refuses md5.
const advisoryKeySQL = `('x' || substr(encode(sha256(convert_to(current_schema() || '/', 'UTF8') || $1::bytea), 'hex'), 1, 16))::bit(64)::bigint`

func advisoryName(key string) []byte { return []byte("hangar-testresults/" + key) }

// advisoryLock takes the transaction-scoped advisory lock of key,
// exclusive or shared.
func advisoryLock(ctx context.Context, tx *sql.Tx, key string, shared bool) error {
	q := `SELECT pg_advisory_xact_lock(` + advisoryKeySQL + `)`
	if shared {
		q = `SELECT pg_advisory_xact_lock_shared(` + advisoryKeySQL + `)`
	}
	_, err := tx.ExecContext(ctx, q, advisoryName(key))
	return err
}
