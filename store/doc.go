// Package store keeps the flaky list behind one interface, Store, in a real
// database: an embedded SQLite file (pure Go, modernc.org/sqlite; the
// default, ~/.hangar/store.db) or a PostgreSQL server shared by many CI
// machines (github.com/jackc/pgx/v5). Both run the same versioned
// migrations (table schema_migrations) and write each run in one
// transaction, so concurrent writers, threads or processes, lose nothing.
//
// The store decides nothing: what counts as flaky, when an entry expires
// and what it excuses are the rules of package testrun, which the store
// calls.
package store
