// Package teststore gives tests fresh, empty store locations on each
// database the store supports: a SQLite file in the test's temporary
// folder, and a schema of its own in the PostgreSQL server that
// TESTRESULTS_POSTGRES_URL names (scripts/postgres.sh start sets it). Only
// tests import it.
package teststore

import (
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" database/sql driver
)

// PostgresURLEnv names the variable holding the URL of a PostgreSQL server
// the tests may create schemas in.
const PostgresURLEnv = "TESTRESULTS_POSTGRES_URL"

// SQLiteLocation returns a new SQLite file in the test's temporary folder.
func SQLiteLocation(tb testing.TB) string { return filepath.Join(tb.TempDir(), "store.db") }

// PostgresLocation creates a schema of its own in the server and returns a
// URL whose search_path selects it; the schema is dropped when the test
// ends. Without PostgresURLEnv the test is skipped, except under CI=true,
// where the server is always there and its absence fails the test.
func PostgresLocation(tb testing.TB) string {
	tb.Helper()
	base := os.Getenv(PostgresURLEnv)
	if base == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is unset under CI=true: start a server with scripts/postgres.sh", PostgresURLEnv)
		}
		tb.Skipf("%s is unset (scripts/postgres.sh start sets it)", PostgresURLEnv)
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "t_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", base)
	if err != nil {
		tb.Fatalf("teststore: %v", err)
	}
	// Closing the pool only ends its idle connections: nothing a test
	// could act on.
	defer func() { _ = admin.Close() }()
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		tb.Fatalf("teststore: create schema: %v", err)
	}
	tb.Cleanup(func() {
		admin, err := sql.Open("pgx", base)
		if err == nil {
			_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
			_ = admin.Close()
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		tb.Fatalf("teststore: %s: %v", PostgresURLEnv, err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
