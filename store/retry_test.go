package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

func pgError(code string) error { return &pgconn.PgError{Code: code, Message: "test"} }

func TestRetryable(t *testing.T) {
	redacted := newRedactor("postgres://u:secret@h/db").error(fmt.Errorf("store: postgres: secret: %w", pgError("40P01")))
	for _, tt := range []struct {
		name        string
		err         error
		tx, connect bool
	}{
		{"serialization failure", pgError("40001"), true, false},
		{"deadlock", fmt.Errorf("store: postgres: commit: %w", pgError("40P01")), true, false},
		{"deadlock behind the redactor", redacted, true, false},
		{"too many connections", pgError("53300"), false, true},
		{"cannot connect now", fmt.Errorf("dial: %w", pgError("57P03")), false, true},
		{"unique violation", pgError("23505"), false, false},
		{"run conflict", ErrRunConflict, false, false},
		{"not a database error", errors.New("40001"), false, false},
		{"nil", nil, false, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.tx, retryableTx(tt.err))
			assert.Equal(t, tt.connect, retryableConnect(tt.err))
		})
	}
}

func TestRetryingBounded(t *testing.T) {
	noJitter := func() float64 { return 0 }
	ctx := context.Background()

	t.Run("gives up after MaxRetries", func(t *testing.T) {
		calls := 0
		err := retrying(ctx, retryableTx, MaxRetries, noJitter, func() error { calls++; return pgError("40001") })
		assert.True(t, retryableTx(err))
		assert.Equal(t, MaxRetries+1, calls)
	})
	t.Run("succeeds on a later attempt", func(t *testing.T) {
		calls := 0
		err := retrying(ctx, retryableTx, MaxRetries, noJitter, func() error {
			calls++
			if calls < 3 {
				return pgError("40P01")
			}
			return nil
		})
		assert.NoError(t, err)
		assert.Equal(t, 3, calls)
	})
	t.Run("other errors are not retried", func(t *testing.T) {
		calls := 0
		err := retrying(ctx, retryableTx, MaxRetries, noJitter, func() error { calls++; return ErrRunConflict })
		assert.ErrorIs(t, err, ErrRunConflict)
		assert.Equal(t, 1, calls)
	})
	t.Run("a cancelled context ends the pauses", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		calls := 0
		err := retrying(cctx, retryableTx, MaxRetries, noJitter, func() error { calls++; cancel(); return pgError("40001") })
		assert.ErrorIs(t, err, context.Canceled)
		assert.True(t, retryableTx(err))
		assert.Equal(t, 1, calls)
	})
}

// withUser returns location with its user replaced.
func withUser(t *testing.T, location, user string) string {
	t.Helper()
	u, err := url.Parse(location)
	require.NoError(t, err)
	u.User = url.User(user)
	return u.String()
}

// TestPostgresConnectWaitsForAConnection: when the server has no
// connection to give (here a role limited to one, already taken: the
// server answers 53300, as at max_connections), the store's connector
// tries again instead of failing, and connects once one is free.
func TestPostgresConnectWaitsForAConnection(t *testing.T) {
	location := teststore.PostgresLocation(t)
	ctx := context.Background()
	admin, err := sql.Open("pgx", location)
	require.NoError(t, err)
	defer admin.Close()
	role := fmt.Sprintf("limited_%d", time.Now().UnixNano())
	_, err = admin.ExecContext(ctx, `CREATE ROLE `+role+` LOGIN CONNECTION LIMIT 1`)
	require.NoError(t, err)
	t.Cleanup(func() { _, _ = admin.ExecContext(ctx, `DROP ROLE IF EXISTS `+role) })
	limited := withUser(t, location, role)

	holder, err := sql.Open("pgx", limited)
	require.NoError(t, err)
	holder.SetMaxOpenConns(1)
	held, err := holder.Conn(ctx)
	require.NoError(t, err)

	c, err := newPostgresConnector(limited)
	require.NoError(t, err)
	var attempts atomic.Int64
	c.attempt = func() { attempts.Add(1) }
	type result struct{ err error }
	done := make(chan result, 1)
	go func() {
		conn, err := c.Connect(ctx)
		if err == nil {
			conn.Close()
		}
		done <- result{err}
	}()
	require.Eventually(t, func() bool { return attempts.Load() >= 2 }, 10*time.Second, 5*time.Millisecond,
		"the first attempt was refused and another one made")
	require.NoError(t, held.Close())
	require.NoError(t, holder.Close())
	select {
	case r := <-done:
		require.NoError(t, r.err)
	case <-time.After(30 * time.Second):
		t.Fatal("the connector did not connect once a connection was free")
	}

	// Without a free connection it gives up, after its retries, with the
	// server's error.
	holder2, err := sql.Open("pgx", limited)
	require.NoError(t, err)
	defer holder2.Close()
	// The server frees the slot of the connection closed above on its own
	// time: wait (bounded) until this one gets it.
	var held2 *sql.Conn
	require.Eventually(t, func() bool {
		conn, err := holder2.Conn(ctx)
		held2 = conn
		return err == nil
	}, 30*time.Second, 10*time.Millisecond, "the connection slot is freed")
	defer held2.Close()
	assert.Equal(t, MaxConnectRetries, c.retries, "the store's own bound")
	c.jitter = func() float64 { return 0 }
	c.retries = 3
	attempts.Store(0)
	_, err = c.Connect(ctx)
	require.True(t, retryableConnect(err), "%v", err)
	assert.Equal(t, int64(c.retries+1), attempts.Load())
}

// TestPostgresPooledPreparesNothing: with default_query_exec_mode=exec in
// the URL (the setting for PgBouncer in transaction mode), the store keeps
// no prepared statement on the server, though it asks database/sql for
// prepared statements; with the default mode it does (the check can fail).
func TestPostgresPooledPreparesNothing(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		mode     string
		prepared bool
	}{
		{"", true},
		{"exec", false},
		{"simple_protocol", false},
	} {
		t.Run("mode "+tt.mode, func(t *testing.T) {
			location := teststore.PostgresLocation(t)
			if tt.mode != "" {
				u, err := url.Parse(location)
				require.NoError(t, err)
				q := u.Query()
				q.Set("default_query_exec_mode", tt.mode)
				u.RawQuery = q.Encode()
				location = u.String()
			}
			s, err := Open(ctx, location, WithMaxConns(1))
			require.NoError(t, err)
			defer s.Close()
			r := run("run-1", "tree-1", testrun.KindBase, map[string]testrun.Outcome{"pkg.TestA": testrun.OutcomePassed})
			_, err = s.Record(ctx, "repo", "ci", r)
			require.NoError(t, err)
			_, err = s.RecordRun(ctx, StoredRun{Run: r, Repo: "repo", JobID: "job-1"})
			require.NoError(t, err)
			for range 2 {
				_, err = s.JobRuns(ctx, "job-1")
				require.NoError(t, err)
				_, err = s.Lookup(ctx, "repo", "ci", []string{"pkg.TestA"})
				require.NoError(t, err)
				_, err = s.RunsVersion(ctx) // through sql.DB.PrepareContext
				require.NoError(t, err)
				_, err = s.JobVersion(ctx, "job-1") // likewise
				require.NoError(t, err)
			}
			var n int
			require.NoError(t, s.(*sqlStore).db.QueryRowContext(ctx, `SELECT count(*) FROM pg_prepared_statements`).Scan(&n))
			assert.Equal(t, tt.prepared, n > 0, "prepared statements on the server: %d", n)
		})
	}
}
