package store

import (
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver, registered as "sqlite"
)

// SQLiteBusyTimeout is how long, in milliseconds, a SQLite writer waits for
// another (thread or process) to finish before it fails.
const SQLiteBusyTimeout = 30000

// SQLiteMaxConns bounds the connections one store opens to its SQLite file,
// and all of them are kept open between uses: opening one (and preparing
// its statements again) costs more than the queries testresults serve
// asks on each request, and database/sql keeps only two by default.
const SQLiteMaxConns = 16

// openSQLite opens the SQLite file at path (taken as written, see Open):
// write-ahead log, a busy timeout, and immediate transactions, so that
// concurrent writers wait for each other instead of failing or losing a
// write.
func openSQLite(ctx context.Context, path string, cfg config) (Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	uri, err := sqliteURI(path)
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	q := url.Values{}
	q.Set("_txlock", "immediate")
	q.Set("_busy_timeout", fmt.Sprint(SQLiteBusyTimeout))
	q.Set("_journal_mode", "WAL")
	q.Set("_synchronous", "NORMAL")
	q.Add("_pragma", "foreign_keys(1)")
	db, err := sql.Open("sqlite", uri+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("store: sqlite: %w", err)
	}
	n := cfg.maxConnsOr(SQLiteMaxConns)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	s := &sqlStore{db: db, now: cfg.now, parsed: newRunCache(maxCachedRunBytes), d: dialect{
		name:    "sqlite",
		rebind:  func(q string) string { return q },
		lock:    func(context.Context, *sql.Tx, string, bool) error { return nil },
		tryLock: func(context.Context, *sql.Tx, string) (bool, error) { return true, nil },
	}}
	if err := s.migrateTo(ctx, cfg.schema); err != nil {
		_ = db.Close() // never handed out: the migration's error is the one to report
		return nil, err
	}
	return s, nil
}

// sqliteURI returns the SQLite URI of the file at path: "file:" and the
// absolute path, each of its elements percent-encoded, so that SQLite,
// which decodes a URI's path, opens exactly path ('%', '?' and '#' in a
// name stay themselves, and no relative path reads as a URI or as
// :memory:).
func sqliteURI(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	elems := strings.Split(filepath.ToSlash(abs), "/")
	for i, e := range elems {
		elems[i] = url.PathEscape(e)
	}
	uri := strings.Join(elems, "/")
	if !strings.HasPrefix(uri, "/") {
		uri = "/" + uri // a Windows drive: file:/C:/...
	}
	return "file:" + uri, nil
}
