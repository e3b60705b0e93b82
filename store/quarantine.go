package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// Quarantine entries are what a person made (flaky quarantine add): a test
// id, its owner, why, and when it expires. The store keeps them as given
// and stamps their creation with its clock; nothing the store records adds
// one. Expired entries are kept until a person removes them, so that a run
// can warn that one stopped counting.

// MaxQuarantineEntries bounds the entries QuarantineList returns.
const MaxQuarantineEntries = 10000

// QuarantineStore keeps quarantine entries. The stores Open returns
// implement it.
type QuarantineStore interface {
	// AddQuarantine adds e, or replaces the entry of its repository,
	// environment and test, stamped created at the store's clock, after
	// testrun.CheckQuarantine (an error wrapping testrun.ErrQuarantine).
	// It returns the entry as stored and whether it replaced one.
	AddQuarantine(ctx context.Context, e testrun.QuarantineEntry) (stored testrun.QuarantineEntry, replaced bool, err error)
	// RemoveQuarantine removes the entry of repo, env and test, and says
	// whether there was one.
	RemoveQuarantine(ctx context.Context, repo, env, testID string) (bool, error)
	// QuarantineList returns the entries of repo ("": every repository),
	// expired ones included, sorted by repository, environment and test
	// id: at most MaxQuarantineEntries.
	QuarantineList(ctx context.Context, repo string) ([]testrun.QuarantineEntry, error)
	// QuarantineLookup returns the entries of repo for the given test ids
	// that apply in env (its own and those of every environment), expired
	// ones included: testrun.Quarantine judges them against a job's start.
	QuarantineLookup(ctx context.Context, repo, env string, testIDs []string) ([]testrun.QuarantineEntry, error)
}

// errNoQuarantine is returned by QuarantineOf for a store without
// quarantine.
var errNoQuarantine = errors.New("store: this store keeps no quarantine")

// QuarantineOf returns the quarantine of st, an error when it keeps none.
func QuarantineOf(st any) (QuarantineStore, error) {
	if q, ok := st.(QuarantineStore); ok {
		return q, nil
	}
	return nil, errNoQuarantine
}

const quarantineColumns = `repository, environment, test_id, owner, reason, created, expires`

func (s *sqlStore) AddQuarantine(ctx context.Context, e testrun.QuarantineEntry) (testrun.QuarantineEntry, bool, error) {
	now := s.now().UTC()
	// The columns keep microseconds: the entry returned is the one read
	// back.
	e.Created = time.UnixMicro(now.UnixMicro()).UTC()
	e.Expires = time.UnixMicro(e.Expires.UnixMicro()).UTC()
	if err := testrun.CheckQuarantine(e, now); err != nil {
		return testrun.QuarantineEntry{}, false, err
	}
	var replaced bool
	err := s.inTx(ctx, "quarantine\x00"+e.Repository, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM quarantine WHERE repository = ? AND environment = ? AND test_id = ?`),
			e.Repository, e.Environment, e.TestID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return err
		}
		replaced = n > 0
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO quarantine (`+quarantineColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`),
			e.Repository, e.Environment, e.TestID, e.Owner, e.Reason, e.Created.UnixMicro(), e.Expires.UnixMicro())
		return err
	})
	if err != nil {
		return testrun.QuarantineEntry{}, false, err
	}
	return e, replaced, nil
}

func (s *sqlStore) RemoveQuarantine(ctx context.Context, repo, env, testID string) (bool, error) {
	var removed bool
	err := s.inTx(ctx, "quarantine\x00"+repo, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM quarantine WHERE repository = ? AND environment = ? AND test_id = ?`), repo, env, testID)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		removed = n > 0
		return err
	})
	return removed, err
}

func (s *sqlStore) QuarantineList(ctx context.Context, repo string) ([]testrun.QuarantineEntry, error) {
	query := `SELECT ` + quarantineColumns + ` FROM quarantine`
	var args []any
	if repo != "" {
		query += ` WHERE repository = ?`
		args = append(args, repo)
	}
	c := s.d.collate
	query += ` ORDER BY repository` + c + `, environment` + c + `, test_id` + c + fmt.Sprintf(` LIMIT %d`, MaxQuarantineEntries)
	return s.scanQuarantine(ctx, query, args...)
}

func (s *sqlStore) QuarantineLookup(ctx context.Context, repo, env string, ids []string) ([]testrun.QuarantineEntry, error) {
	if len(ids) == 0 {
		return []testrun.QuarantineEntry{}, nil
	}
	in, list, err := s.idsParam(ids)
	if err != nil {
		return nil, s.fail("", err)
	}
	c := s.d.collate
	return s.scanQuarantine(ctx, `SELECT `+quarantineColumns+` FROM quarantine
		WHERE repository = ? AND (environment = ? OR environment = '') AND test_id `+in+`
		ORDER BY test_id`+c+`, environment`+c, repo, env, list)
}

func (s *sqlStore) scanQuarantine(ctx context.Context, query string, args ...any) ([]testrun.QuarantineEntry, error) {
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fail("", err)
	}
	defer func() { _ = rows.Close() }() // rows.Err reports what went wrong
	out := []testrun.QuarantineEntry{}
	for rows.Next() {
		var e testrun.QuarantineEntry
		var created, expires int64
		if err := rows.Scan(&e.Repository, &e.Environment, &e.TestID, &e.Owner, &e.Reason, &created, &expires); err != nil {
			return nil, s.fail("", err)
		}
		e.Created, e.Expires = time.UnixMicro(created).UTC(), time.UnixMicro(expires).UTC()
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	return out, nil
}
