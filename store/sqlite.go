package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// SQLiteBusyTimeout is how long, in milliseconds, a SQLite writer waits for
// another (thread or process) to finish before it fails.
const SQLiteBusyTimeout = 30000

// openSQLite opens the SQLite file at path: write-ahead log, a busy
// timeout, and immediate transactions, so that concurrent writers wait for
// each other instead of failing or losing a write.
func openSQLite(ctx context.Context, path string, cfg config) (Store, error) {
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", fmt.Sprint(SQLiteBusyTimeout))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Add("_pragma", "foreign_keys(1)")
	db, err := sql.Open("sqlite", "file:"+path+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	s := &sqlStore{db: db, now: cfg.now, parsed: newRunCache(maxCachedRunBytes), d: dialect{
		name:   "sqlite",
		rebind: func(q string) string { return q },
		lock:   func(context.Context, *sql.Tx, string) error { return nil },
	}}
	if err := s.migrateTo(ctx, cfg.schema); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}
