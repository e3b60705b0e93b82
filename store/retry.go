package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Bounds of the retries of a PostgreSQL operation that the server refused
// for a reason that goes away by itself.
const (
	// MaxRetries is how many times a transaction that PostgreSQL rolled
	// back (serialization failure, deadlock) is tried again after the
	// first attempt.
	MaxRetries = 8
	// MaxConnectRetries is how many times a connection the server had no
	// room for (max_connections) is tried again: waiting costs the server
	// nothing, so a process waits for up to about half a minute (the
	// pauses top out at retryMax) before it gives up.
	MaxConnectRetries = 30
	// retryBase is the first pause; each pause doubles, up to retryMax,
	// with jitter.
	retryBase = 10 * time.Millisecond
	retryMax  = 1 * time.Second
)

// SQLSTATE codes that say the transaction was rolled back and may simply be
// run again.
const (
	sqlStateSerializationFailure = "40001"
	sqlStateDeadlockDetected     = "40P01"
)

// SQLSTATE codes that say a connection could not be opened yet.
const (
	sqlStateTooManyConnections = "53300" // max_connections reached
	sqlStateCannotConnectNow   = "57P03" // starting up, or shutting down
)

// retryableTx reports whether err says that PostgreSQL rolled the
// transaction back (a serialization failure or a deadlock it broke), so
// that running the transaction again is correct.
func retryableTx(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == sqlStateSerializationFailure || pe.Code == sqlStateDeadlockDetected)
}

// retryableConnect reports whether err says that the server had no
// connection for us yet (max_connections reached, or not accepting
// connections now): nothing was done, so trying again is safe.
func retryableConnect(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && (pe.Code == sqlStateTooManyConnections || pe.Code == sqlStateCannotConnectNow)
}

// retrying runs fn, and again while it fails with an error that retryable
// accepts, at most retries more times, pausing with exponential backoff
// and jitter between attempts (jitter in [0, 1): a source of randomness,
// fixed in tests). It returns the last error; a cancelled ctx ends the
// pauses.
func retrying(ctx context.Context, retryable func(error) bool, retries int, jitter func() float64, fn func() error) error {
	pause := retryBase
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil || attempt >= retries || !retryable(err) {
			return err
		}
		d := pause/2 + time.Duration(float64(pause/2)*jitter())
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
		pause = min(2*pause, retryMax)
	}
}
