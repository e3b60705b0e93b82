package store

import (
	"context"
	"database/sql/driver"
	"errors"
	"math/rand/v2"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// postgresConnector opens the store's PostgreSQL connections for
// database/sql. It tries a connection again (bounded, see retrying) when
// the server has none to give yet (max_connections reached, starting up):
// many short-lived processes recording at once then wait their turn
// instead of failing.
//
// Behind a pooler in transaction mode (PgBouncer's pool_mode =
// transaction), a server connection serves one transaction and then
// another client, so a statement prepared on it is gone, or belongs to
// someone else, by the next transaction. The URL says so with pgx's
// default_query_exec_mode=exec (or simple_protocol): pgx then prepares
// nothing itself, and this connector makes database/sql's prepared
// statements (sql.DB.PrepareContext) prepare nothing either: each
// execution sends its query text again, in one round trip.
type postgresConnector struct {
	base    driver.Connector
	pooled  bool
	retries int // MaxConnectRetries
	jitter  func() float64
	// attempt, when set, is called before each connection attempt (tests).
	attempt func()
}

func newPostgresConnector(url string) (*postgresConnector, error) {
	cc, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, err
	}
	return &postgresConnector{
		base:    stdlib.GetConnector(*cc),
		pooled:  unprepared(cc.DefaultQueryExecMode),
		retries: MaxConnectRetries,
		jitter:  rand.Float64,
	}, nil
}

// unprepared reports whether mode keeps no prepared statement on the
// server from one query to the next.
func unprepared(mode pgx.QueryExecMode) bool {
	return mode == pgx.QueryExecModeExec || mode == pgx.QueryExecModeSimpleProtocol
}

func (c *postgresConnector) Connect(ctx context.Context) (driver.Conn, error) {
	var conn driver.Conn
	err := retrying(ctx, retryableConnect, c.retries, c.jitter, func() error {
		if c.attempt != nil {
			c.attempt()
		}
		var err error
		conn, err = c.base.Connect(ctx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if !c.pooled {
		return conn, nil
	}
	sc, ok := conn.(*stdlib.Conn)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("store: postgres: the pgx driver gave an unexpected connection type")
	}
	return &unpreparedConn{Conn: sc}, nil
}

func (c *postgresConnector) Driver() driver.Driver { return c.base.Driver() }

// unpreparedConn is a pgx connection whose prepared statements are only
// their query text (see postgresConnector).
type unpreparedConn struct {
	*stdlib.Conn
}

func (c *unpreparedConn) Prepare(query string) (driver.Stmt, error) {
	return &unpreparedStmt{conn: c.Conn, query: query}, nil
}

func (c *unpreparedConn) PrepareContext(_ context.Context, query string) (driver.Stmt, error) {
	return &unpreparedStmt{conn: c.Conn, query: query}, nil
}

// unpreparedStmt runs its query on the connection each time, with the
// connection's query exec mode.
type unpreparedStmt struct {
	conn  *stdlib.Conn
	query string
}

func (s *unpreparedStmt) Close() error  { return nil }
func (s *unpreparedStmt) NumInput() int { return -1 }

func (s *unpreparedStmt) Exec([]driver.Value) (driver.Result, error) {
	return nil, errors.New("store: postgres: Exec without a context is not supported")
}

func (s *unpreparedStmt) Query([]driver.Value) (driver.Rows, error) {
	return nil, errors.New("store: postgres: Query without a context is not supported")
}

func (s *unpreparedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	return s.conn.ExecContext(ctx, s.query, args)
}

func (s *unpreparedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	return s.conn.QueryContext(ctx, s.query, args)
}

// pgxConn is the pgx connection under one of the store's database/sql
// connections (sql.Conn.Raw's driver connection), or nil. Its query exec
// mode is the URL's, so that a query asked on it prepares what the
// store's other queries would (see postgresConnector).
func pgxConn(dc any) *pgx.Conn {
	switch c := dc.(type) {
	case *stdlib.Conn:
		return c.Conn()
	case *unpreparedConn:
		return c.Conn.Conn()
	}
	return nil
}
