package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// chunk bounds the rows of one multi-row statement (7 parameters a row
// stays far below both databases' parameter limits).
const chunk = 500

// dialect is what differs between the two databases.
type dialect struct {
	name string
	// rebind turns the ? placeholders of a query into the database's own.
	rebind func(string) string
	// lock serialises, inside tx, the writers of one repository and
	// environment (SQLite's immediate transactions already are); shared
	// true takes the lock of key shared, beside other shared holders and
	// excluding only its exclusive holder.
	lock func(ctx context.Context, tx *sql.Tx, key string, shared bool) error
	// tryLock takes the lock of key, exclusive, only when it is free at
	// once, and reports whether it did (SQLite: an immediate transaction
	// already holds the one writers' lock).
	tryLock func(ctx context.Context, tx *sql.Tx, key string) (bool, error)
	// tx are the options of a writing transaction: PostgreSQL's must read
	// committed, since the writers' lock is taken inside the transaction
	// and what it guards must be read after the lock is granted, not as
	// a snapshot taken before (a server whose default isolation is
	// repeatable read would hand a waiting writer stale rows).
	tx *sql.TxOptions
	// collate makes ORDER BY on text byte-wise, as Go compares strings.
	collate string
}

// sqlStore is the Store over database/sql, shared by both databases.
type sqlStore struct {
	db  *sql.DB
	d   dialect
	now func() time.Time
	// parsed keeps runs read back from run_json (see runCache).
	parsed *runCache
	// redact hides the credentials of the store's location in errors.
	redact redactor
	// prepared keeps the statements of the queries asked on every request
	// (preparing one costs as much as running it), by query text.
	preparedMu sync.Mutex
	prepared   map[string]*sql.Stmt
	// decoded counts the cases read out of stored per-case maps, scanned
	// the stored maps read through, versionReads the versions read from
	// the database (tests).
	decoded, scanned, versionReads atomic.Int64
	// watch, when the store listens for writes (WithWatch), keeps the
	// versions read; nil otherwise.
	watch *versionWatch
}

// keptVersion returns the version key names, read by read unless the
// store's watch keeps it (see WithWatch).
func (s *sqlStore) keptVersion(ctx context.Context, key string, read func() (string, error)) (string, error) {
	if v, ok := s.watch.version(ctx, key); ok {
		return v, nil
	}
	t := s.watch.begin()
	s.versionReads.Add(1)
	v, err := read()
	if err == nil {
		s.watch.keep(t, key, v)
	}
	return v, err
}

// prepare returns the prepared statement of query, prepared once.
func (s *sqlStore) prepare(ctx context.Context, query string) (*sql.Stmt, error) {
	s.preparedMu.Lock()
	defer s.preparedMu.Unlock()
	if st, ok := s.prepared[query]; ok {
		return st, nil
	}
	st, err := s.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if s.prepared == nil {
		s.prepared = map[string]*sql.Stmt{}
	}
	s.prepared[query] = st
	return st, nil
}

// fail is err as the store returns it: named by the database, with the
// credentials of the location hidden from its message.
func (s *sqlStore) fail(what string, err error) error {
	return s.redact.error(fmt.Errorf("store: %s: %s%w", s.d.name, what, err))
}

// migrations are the schema's versions, applied in order, each in the
// transaction that records it in schema_migrations. Never edit one that
// has shipped: add the next.
var migrations = [][]string{
	1: {
		`CREATE TABLE flaky_entries (
			repository  TEXT   NOT NULL,
			environment TEXT   NOT NULL,
			test_id     TEXT   NOT NULL,
			first_seen  BIGINT NOT NULL,
			last_seen   BIGINT NOT NULL,
			how         TEXT   NOT NULL,
			sightings   BIGINT NOT NULL,
			seen        TEXT   NOT NULL,
			PRIMARY KEY (repository, environment, test_id))`,
		`CREATE INDEX flaky_entries_last_seen ON flaky_entries (last_seen)`,
		// What the recorded runs showed of each test on a tree: a run
		// where it passed and one where it failed ('' when none).
		`CREATE TABLE tree_outcomes (
			repository  TEXT   NOT NULL,
			environment TEXT   NOT NULL,
			tree        TEXT   NOT NULL,
			test_id     TEXT   NOT NULL,
			passed_run  TEXT   NOT NULL,
			failed_run  TEXT   NOT NULL,
			PRIMARY KEY (repository, environment, tree, test_id))`,
		// When a run was last recorded on each tree: its history expires
		// with it.
		`CREATE TABLE trees (
			repository  TEXT   NOT NULL,
			environment TEXT   NOT NULL,
			tree        TEXT   NOT NULL,
			last_seen   BIGINT NOT NULL,
			PRIMARY KEY (repository, environment, tree))`,
		`CREATE INDEX trees_last_seen ON trees (last_seen)`,
		// One row per recorded run: recording a run again adds nothing. A
		// later version stores whole runs beside it.
		`CREATE TABLE recorded_runs (
			repository  TEXT   NOT NULL,
			environment TEXT   NOT NULL,
			run_id      TEXT   NOT NULL,
			kind        TEXT   NOT NULL,
			tree        TEXT   NOT NULL,
			recorded_at BIGINT NOT NULL,
			PRIMARY KEY (repository, environment, run_id))`,
	},
	2: {
		// Whole runs, for the query API. The per-case map is a column of
		// its own so that retention can drop it and keep the rest.
		`CREATE TABLE runs (
			run_id      TEXT    NOT NULL PRIMARY KEY,
			kind        TEXT    NOT NULL,
			repository  TEXT    NOT NULL,
			job_id      TEXT    NOT NULL,
			session_ref TEXT    NOT NULL,
			turn        BIGINT,
			started_at  BIGINT,
			ended_at    BIGINT,
			recorded_at BIGINT  NOT NULL,
			seq         BIGINT  NOT NULL,
			counted     INTEGER NOT NULL,
			total       BIGINT,
			passed      BIGINT,
			failed      BIGINT,
			errors      BIGINT,
			skipped     BIGINT,
			flaky       BIGINT,
			run_json    TEXT    NOT NULL,
			cases_json  TEXT)`,
		`CREATE INDEX runs_job ON runs (job_id, seq)`,
		`CREATE INDEX runs_session ON runs (session_ref, seq)`,
		`CREATE INDEX runs_recorded_at ON runs (recorded_at)`,
	},
	3: {
		// Each case's stated duration (seconds, by test id), kept and
		// dropped with the per-case map.
		`ALTER TABLE runs ADD COLUMN durations_json TEXT`,
	},
	4: {
		// A run can belong to several jobs and sessions (the same reports
		// recorded for each): one row per tagging, in the order they were
		// recorded (seq). turn is -1 when unknown, so that it can be part
		// of the key. The tags runs held are carried over.
		`CREATE TABLE run_tags (
			run_id      TEXT   NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
			job_id      TEXT   NOT NULL,
			session_ref TEXT   NOT NULL,
			turn        BIGINT NOT NULL,
			recorded_at BIGINT NOT NULL,
			seq         BIGINT NOT NULL UNIQUE,
			PRIMARY KEY (run_id, job_id, session_ref, turn))`,
		`CREATE INDEX run_tags_job ON run_tags (job_id, seq)`,
		`CREATE INDEX run_tags_session ON run_tags (session_ref, seq)`,
		`INSERT INTO run_tags (run_id, job_id, session_ref, turn, recorded_at, seq)
			SELECT run_id, job_id, session_ref, COALESCE(turn, -1), recorded_at, seq FROM runs`,
		// Retention counts from the latest tagging: a run recorded for a
		// new job is kept as long as a run recorded then.
		`ALTER TABLE runs ADD COLUMN last_recorded_at BIGINT`,
		`UPDATE runs SET last_recorded_at = recorded_at`,
		`CREATE INDEX runs_last_recorded_at ON runs (last_recorded_at)`,
	},
	5: {
		// The version of each job's and session's runs (scope 'job' or
		// 'session'): every write that changes what they answer (a
		// tagging, retention) sets it to the next value of run_writes, so
		// that a version is never given twice. JobVersion reads one row.
		`CREATE TABLE run_writes (
			id INTEGER NOT NULL PRIMARY KEY,
			n  BIGINT  NOT NULL)`,
		`INSERT INTO run_writes (id, n) VALUES (1, 1)`,
		`CREATE TABLE run_versions (
			scope   TEXT   NOT NULL,
			key     TEXT   NOT NULL,
			version BIGINT NOT NULL,
			PRIMARY KEY (scope, key))`,
		`INSERT INTO run_versions (scope, key, version) SELECT 'job', job_id, 1 FROM run_tags GROUP BY job_id`,
		`INSERT INTO run_versions (scope, key, version) SELECT 'session', session_ref, 1 FROM run_tags GROUP BY session_ref`,
	},
	6: {
		// The failing cases of each run that keeps its cases (a JSON
		// object of test id to outcome), written with the run and dropped
		// with its cases: a summary reads these, not the whole map. Runs
		// stored before get theirs on first read.
		`CREATE TABLE run_failing (
			run_id TEXT NOT NULL PRIMARY KEY,
			cases  TEXT NOT NULL)`,
	},
	7: {
		// Excused reads first_seen and last_seen of each failing test: with
		// them in the index, a lookup never reads the entry's row (its
		// sightings) unless the entry was seen again since the job began.
		`CREATE INDEX flaky_entries_excused ON flaky_entries (repository, environment, test_id, first_seen, last_seen)`,
	},
	8: {
		// Per-test history of counted runs (see history.go): each run's
		// totals, kept with the run, and what it said of each test, kept
		// with its per-case map: a row goes when the run's failing-cases
		// row does, which retention drops with the map. The check waits
		// for the commit, as the failing-cases row is written after the
		// history when a run's cases are given back.
		`CREATE TABLE history_runs (
			run_id      TEXT   NOT NULL PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
			repository  TEXT   NOT NULL,
			at          BIGINT NOT NULL,
			total       BIGINT NOT NULL,
			passed      BIGINT NOT NULL,
			failed      BIGINT NOT NULL,
			errors      BIGINT NOT NULL,
			skipped     BIGINT NOT NULL,
			flaky       BIGINT NOT NULL,
			duration_us BIGINT,
			line_rate   DOUBLE PRECISION)`,
		`CREATE INDEX history_runs_repository ON history_runs (repository, at)`,
		`CREATE TABLE test_history (
			run_id      TEXT    NOT NULL REFERENCES run_failing (run_id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
			repository  TEXT    NOT NULL,
			test_id     TEXT    NOT NULL,
			at          BIGINT  NOT NULL,
			tree        TEXT    NOT NULL,
			outcome     TEXT    NOT NULL,
			duration_us BIGINT,
			retried     INTEGER NOT NULL,
			PRIMARY KEY (run_id, test_id))`,
		`CREATE INDEX test_history_test ON test_history (repository, test_id, at)`,
		`CREATE INDEX test_history_at ON test_history (repository, at)`,
	},
	9: {
		// Quarantine entries a person made (see quarantine.go): environment
		// '' applies to every environment of the repository. Times in
		// microseconds.
		`CREATE TABLE quarantine (
			repository  TEXT   NOT NULL,
			environment TEXT   NOT NULL,
			test_id     TEXT   NOT NULL,
			owner       TEXT   NOT NULL,
			reason      TEXT   NOT NULL,
			created     BIGINT NOT NULL,
			expires     BIGINT NOT NULL,
			PRIMARY KEY (repository, environment, test_id))`,
		`CREATE INDEX quarantine_test ON quarantine (repository, test_id)`,
	},
	10: {
		// A test's history is read from its index alone (its rows lie
		// scattered, a run's together), and each run's job and session
		// from its small totals row rather than from the run's.
		`DROP INDEX test_history_test`,
		`CREATE INDEX test_history_test ON test_history (repository, test_id, at, run_id, tree, outcome, duration_us, retried)`,
		`ALTER TABLE history_runs ADD COLUMN job_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE history_runs ADD COLUMN session_ref TEXT NOT NULL DEFAULT ''`,
		`UPDATE history_runs SET job_id = (SELECT job_id FROM runs WHERE runs.run_id = history_runs.run_id),
			session_ref = (SELECT session_ref FROM runs WHERE runs.run_id = history_runs.run_id)`,
	},
	11: {
		// Each run's job and session beside its tests too: a test's history
		// is then one read of its index, in its order, with no join.
		`ALTER TABLE test_history ADD COLUMN job_id TEXT NOT NULL DEFAULT ''`,
		`ALTER TABLE test_history ADD COLUMN session_ref TEXT NOT NULL DEFAULT ''`,
		`UPDATE test_history SET
			job_id = COALESCE((SELECT job_id FROM history_runs WHERE history_runs.run_id = test_history.run_id), ''),
			session_ref = COALESCE((SELECT session_ref FROM history_runs WHERE history_runs.run_id = test_history.run_id), '')`,
		`DROP INDEX test_history_test`,
		`CREATE INDEX test_history_test ON test_history (repository, test_id, at, run_id, tree, outcome, duration_us, retried, job_id, session_ref)`,
	},
	12: {
		// The environment each run ran in, as the flaky list names it, with
		// the run and beside its totals and its tests: a test flaky on one
		// environment and stable on another is read apart. Runs stored
		// before were recorded for the default environment (the
		// command line's, DefaultEnvironment). The indexes lead with
		// (repository, environment), so that a test's history stays one
		// read of its index.
		`ALTER TABLE runs ADD COLUMN environment TEXT NOT NULL DEFAULT 'default'`,
		`ALTER TABLE history_runs ADD COLUMN environment TEXT NOT NULL DEFAULT 'default'`,
		`ALTER TABLE test_history ADD COLUMN environment TEXT NOT NULL DEFAULT 'default'`,
		`DROP INDEX history_runs_repository`,
		`CREATE INDEX history_runs_repository ON history_runs (repository, environment, at)`,
		`DROP INDEX test_history_at`,
		`CREATE INDEX test_history_at ON test_history (repository, environment, at)`,
		`DROP INDEX test_history_test`,
		`CREATE INDEX test_history_test ON test_history (repository, environment, test_id, at, run_id, tree, outcome, duration_us, retried, job_id, session_ref)`,
	},
	13: {
		// On PostgreSQL the flaky list's and the quarantine's keys compare
		// byte-wise, as SQLite's and Go's strings do: a lookup of a run's
		// failures walks an index once per id, and a comparison under the
		// database's default collation (C.UTF-8, en_US.UTF-8, ...) costs
		// several times a memcmp. Their orders were byte-wise already
		// (dialect.collate), so no answer changes; the indexes are rebuilt.
		postgresOnly + `ALTER TABLE flaky_entries
			ALTER COLUMN repository TYPE TEXT COLLATE "C",
			ALTER COLUMN environment TYPE TEXT COLLATE "C",
			ALTER COLUMN test_id TYPE TEXT COLLATE "C"`,
		postgresOnly + `ALTER TABLE quarantine
			ALTER COLUMN repository TYPE TEXT COLLATE "C",
			ALTER COLUMN environment TYPE TEXT COLLATE "C",
			ALTER COLUMN test_id TYPE TEXT COLLATE "C"`,
	},
	14: {
		// On PostgreSQL every write of runs (touch updates run_writes and
		// run_versions in its transaction), and any other change to the
		// two tables, notifies the store's channel (watchChannel) at its
		// commit, so that a reader that listens (WithWatch) keeps the
		// versions it read until one is announced. The database says it,
		// not the writer, so that no writer can forget to.
		postgresOnly + `CREATE OR REPLACE FUNCTION testresults_runs_written() RETURNS trigger
			LANGUAGE plpgsql AS $$
			BEGIN
				PERFORM pg_notify('` + watchChannel + `' || md5(TG_TABLE_SCHEMA), '');
				RETURN NULL;
			END
			$$`,
		postgresOnly + `DROP TRIGGER IF EXISTS run_writes_notify ON run_writes`,
		postgresOnly + `CREATE TRIGGER run_writes_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON run_writes
			FOR EACH STATEMENT EXECUTE FUNCTION testresults_runs_written()`,
		postgresOnly + `DROP TRIGGER IF EXISTS run_versions_notify ON run_versions`,
		postgresOnly + `CREATE TRIGGER run_versions_notify AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON run_versions
			FOR EACH STATEMENT EXECUTE FUNCTION testresults_runs_written()`,
		// Fired by a logical replication subscriber's apply worker too
		// (session_replication_role = replica), so that a server reading
		// a subscriber hears what was written on the publisher.
		postgresOnly + `ALTER TABLE run_writes ENABLE ALWAYS TRIGGER run_writes_notify`,
		postgresOnly + `ALTER TABLE run_versions ENABLE ALWAYS TRIGGER run_versions_notify`,
	},
}

// postgresOnly starts a migration's statement that PostgreSQL alone runs
// (SQLite's text compares byte-wise already, and has no ALTER COLUMN).
const postgresOnly = "-- postgres only\n"

// SchemaVersion is the newest schema version this package writes.
var SchemaVersion = len(migrations) - 1

func (s *sqlStore) q(query string) string { return s.d.rebind(query) }

// migrateTo applies the migrations the database lacks up to version
// target (SchemaVersion but in tests, which build stores as older
// versions wrote them), in one transaction, with the writers' lock held
// so that two processes opening a new store at once do not both create
// it.
func (s *sqlStore) migrateTo(ctx context.Context, target int) error {
	return s.inTx(ctx, "schema", func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version    BIGINT NOT NULL PRIMARY KEY,
			applied_at BIGINT NOT NULL)`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&current); err != nil {
			return err
		}
		if current > SchemaVersion {
			return fmt.Errorf("the database is at schema version %d, newer than this program's %d", current, SchemaVersion)
		}
		for v := current + 1; v <= target; v++ {
			for _, stmt := range migrations[v] {
				if strings.HasPrefix(stmt, postgresOnly) && s.d.name != "postgres" {
					continue
				}
				if _, err := tx.ExecContext(ctx, stmt); err != nil {
					return fmt.Errorf("migration %d: %w", v, err)
				}
			}
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), v, s.now().UnixMicro()); err != nil {
				return err
			}
		}
		return nil
	})
}

// inTx runs fn in one transaction that holds the writers' lock of key,
// and runs it again, at most MaxRetries more times with backoff, when
// PostgreSQL rolled it back for a serialization failure or a deadlock it
// broke: nothing of the failed attempt was kept, so fn must start from
// nothing each time (set, never accumulate, what it reports).
func (s *sqlStore) inTx(ctx context.Context, key string, fn func(*sql.Tx) error) error {
	return s.inTxShared(ctx, "", key, fn)
}

// inTxShared is inTx that first takes the lock of shared, shared (none
// when ""): writers of one kind that may run side by side, each under its
// own key, and that one writer of all of them excludes by taking shared's
// lock alone (see flakyListLock).
func (s *sqlStore) inTxShared(ctx context.Context, shared, key string, fn func(*sql.Tx) error) error {
	return retrying(ctx, retryableTx, MaxRetries, rand.Float64, func() error {
		return s.inTxOnce(ctx, shared, key, fn)
	})
}

// tryInTx runs fn once, in a transaction that holds the writers' lock of
// key, when that lock is free at once; otherwise it does nothing. It is
// for writes a reader may skip (a cache filled on the way), so that a read
// never waits behind a writer.
func (s *sqlStore) tryInTx(ctx context.Context, key string, fn func(*sql.Tx) error) error {
	return s.lockedTx(ctx, func(tx *sql.Tx) (bool, error) { return s.d.tryLock(ctx, tx, key) }, fn)
}

func (s *sqlStore) inTxOnce(ctx context.Context, shared, key string, fn func(*sql.Tx) error) error {
	return s.lockedTx(ctx, func(tx *sql.Tx) (bool, error) {
		if shared != "" {
			if err := s.d.lock(ctx, tx, shared, true); err != nil {
				return false, err
			}
		}
		return true, s.d.lock(ctx, tx, key, false)
	}, fn)
}

// lockedTx runs fn in a writing transaction once lock, run first in it,
// took the writers' lock, and commits when fn returns nil; it does nothing
// when lock reports the lock was not taken (a try).
func (s *sqlStore) lockedTx(ctx context.Context, lock func(*sql.Tx) (bool, error), fn func(*sql.Tx) error) error {
	tx, err := s.db.BeginTx(ctx, s.d.tx)
	if err != nil {
		return s.fail("", err)
	}
	defer tx.Rollback() //nolint:errcheck // after Commit it is a no-op
	switch ok, err := lock(tx); {
	case err != nil:
		return s.fail("lock: ", err)
	case !ok:
		return nil // a writer holds it: the write is left for another time
	}
	if err := fn(tx); err != nil {
		if errors.Is(err, ErrRunConflict) {
			return err // it names the store's rule, not the database's fault
		}
		return s.fail("", err)
	}
	if err := tx.Commit(); err != nil {
		return s.fail("commit: ", err)
	}
	// What this handle wrote is not waited for as a notification.
	s.watch.wrote()
	return nil
}

func (s *sqlStore) Close() error {
	s.watch.stop()
	s.preparedMu.Lock()
	for _, st := range s.prepared {
		st.Close()
	}
	s.prepared = nil
	s.preparedMu.Unlock()
	return s.db.Close()
}

// placeholders returns "(?, ?, ...), (...)" for rows rows of n columns.
func placeholders(rows, n int) string {
	one := "(" + strings.TrimSuffix(strings.Repeat("?, ", n), ", ") + ")"
	return strings.TrimSuffix(strings.Repeat(one+", ", rows), ", ")
}

func (s *sqlStore) Record(ctx context.Context, repo, env string, r *testrun.Run) (Recorded, error) {
	if err := testrun.CheckRecordable(r); err != nil {
		return Recorded{}, err
	}
	if repo == "" {
		return Recorded{}, errors.New("store: a repository is required")
	}
	now := s.now().UTC()
	obs := treeObservations(r)
	var out Recorded
	err := s.inTxShared(ctx, flakyListLock, repo+"\x00"+env, func(tx *sql.Tx) error {
		out = Recorded{Flaky: map[string][]testrun.FlakyHow{}} // afresh on each attempt
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO recorded_runs (repository, environment, run_id, kind, tree, recorded_at)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (repository, environment, run_id) DO NOTHING`),
			repo, env, r.ID, string(r.Kind), r.Tree, now.UnixMicro())
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil {
			return err
		} else if n == 0 {
			// Recorded before: nothing to add, if it is the same run.
			var kind, tree string
			if err := tx.QueryRowContext(ctx, s.q(`SELECT kind, tree FROM recorded_runs
				WHERE repository = ? AND environment = ? AND run_id = ?`), repo, env, r.ID).Scan(&kind, &tree); err != nil {
				return err
			}
			switch {
			case kind != string(r.Kind):
				return fmt.Errorf("%w: run %q was recorded as kind %q, not %q", ErrRunConflict, r.ID, kind, r.Kind)
			case tree != r.Tree:
				return fmt.Errorf("%w: run %q was recorded with tree %q, not %q", ErrRunConflict, r.ID, tree, r.Tree)
			}
			return nil
		}
		flips, err := s.recordTree(ctx, tx, repo, env, r, obs, now)
		if err != nil {
			return err
		}
		out.Observed = len(obs)
		sightings := testrun.RunSightings(r, flips, now)
		if len(sightings) == 0 {
			return nil
		}
		ids := make([]string, 0, len(sightings))
		for id := range sightings {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		existing, err := s.lookup(ctx, tx, repo, env, ids)
		if err != nil {
			return err
		}
		entries := make([]testrun.FlakyEntry, 0, len(ids))
		for _, id := range ids {
			e, ok := existing[id]
			if !ok {
				e = testrun.FlakyEntry{Repository: repo, Environment: env, TestID: id}
			}
			for _, seen := range sightings[id] {
				e.Add(seen)
				out.Flaky[id] = append(out.Flaky[id], seen.How)
			}
			entries = append(entries, e)
		}
		return s.putEntries(ctx, tx, entries)
	})
	if err != nil {
		return Recorded{}, err
	}
	return out, nil
}

// recordTree adds r's observations to the history of its tree and
// returns the history of each test that r made flip: it had not both
// passed and failed on the tree before r, and has now. A test that had
// flipped already is left out, so that the same evidence shown again by
// a later run is no new sighting (it neither counts again nor pushes the
// entry's expiry forward). The tree's rows are read once and only the
// rows that change are written: a rerun on a tree seen before writes
// almost nothing.
func (s *sqlStore) recordTree(ctx context.Context, tx *sql.Tx, repo, env string, r *testrun.Run, obs []testrun.TreeObservation, now time.Time) (map[string]testrun.TreeHistory, error) {
	history := make(map[string]testrun.TreeHistory, len(obs))
	flips := map[string]testrun.TreeHistory{}
	if len(obs) == 0 {
		return flips, nil
	}
	existing := map[string]testrun.TreeHistory{}
	rows, err := tx.QueryContext(ctx, s.q(`SELECT test_id, passed_run, failed_run FROM tree_outcomes
		WHERE repository = ? AND environment = ? AND tree = ?`), repo, env, r.Tree)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id string
		var h testrun.TreeHistory
		if err := rows.Scan(&id, &h.PassedRun, &h.FailedRun); err != nil {
			rows.Close()
			return nil, err
		}
		existing[id] = h
	}
	if err := rows.Close(); err != nil {
		return nil, err
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var changed []string
	for _, o := range obs {
		h, had := existing[o.TestID]
		nh := h.With(o, r.ID)
		history[o.TestID] = nh
		if !had || nh != h {
			changed = append(changed, o.TestID)
		}
		if nh.Flipped() && !h.Flipped() {
			flips[o.TestID] = nh
		}
	}
	for start := 0; start < len(changed); start += chunk {
		part := changed[start:min(start+chunk, len(changed))]
		args := make([]any, 0, 6*len(part))
		for _, id := range part {
			h := history[id]
			args = append(args, repo, env, r.Tree, id, h.PassedRun, h.FailedRun)
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO tree_outcomes
			(repository, environment, tree, test_id, passed_run, failed_run)
			VALUES `+placeholders(len(part), 6)+`
			ON CONFLICT (repository, environment, tree, test_id) DO UPDATE SET
				passed_run = excluded.passed_run, failed_run = excluded.failed_run`), args...); err != nil {
			return nil, err
		}
	}
	if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO trees (repository, environment, tree, last_seen) VALUES (?, ?, ?, ?)
		ON CONFLICT (repository, environment, tree) DO UPDATE SET last_seen = excluded.last_seen`),
		repo, env, r.Tree, now.UnixMicro()); err != nil {
		return nil, err
	}
	return flips, nil
}

// putEntries writes entries whole, replacing the rows they update.
func (s *sqlStore) putEntries(ctx context.Context, tx *sql.Tx, entries []testrun.FlakyEntry) error {
	for start := 0; start < len(entries); start += chunk {
		part := entries[start:min(start+chunk, len(entries))]
		args := make([]any, 0, 8*len(part))
		for _, e := range part {
			seen, err := json.Marshal(e.Seen)
			if err != nil {
				return err
			}
			args = append(args, e.Repository, e.Environment, e.TestID, e.FirstSeen.UnixMicro(), e.LastSeen.UnixMicro(),
				joinHow(e.How), e.Sightings, string(seen))
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO flaky_entries
			(repository, environment, test_id, first_seen, last_seen, how, sightings, seen)
			VALUES `+placeholders(len(part), 8)+`
			ON CONFLICT (repository, environment, test_id) DO UPDATE SET
				first_seen = excluded.first_seen, last_seen = excluded.last_seen, how = excluded.how,
				sightings = excluded.sightings, seen = excluded.seen`), args...); err != nil {
			return err
		}
	}
	return nil
}

func joinHow(hs []testrun.FlakyHow) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = string(h)
	}
	return strings.Join(s, ",")
}

const entryColumns = `repository, environment, test_id, first_seen, last_seen, how, sightings, seen`

type scanner interface{ Scan(...any) error }

func scanEntry(sc scanner) (testrun.FlakyEntry, error) {
	var e testrun.FlakyEntry
	var first, last int64
	var how, seen string
	if err := sc.Scan(&e.Repository, &e.Environment, &e.TestID, &first, &last, &how, &e.Sightings, &seen); err != nil {
		return e, err
	}
	e.FirstSeen, e.LastSeen = time.UnixMicro(first).UTC(), time.UnixMicro(last).UTC()
	for _, h := range strings.Split(how, ",") {
		if h != "" {
			e.How = append(e.How, testrun.FlakyHow(h))
		}
	}
	if err := json.Unmarshal([]byte(seen), &e.Seen); err != nil {
		return e, fmt.Errorf("entry %q: sightings: %w", e.TestID, err)
	}
	return e, nil
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func (s *sqlStore) lookup(ctx context.Context, q querier, repo, env string, ids []string) (map[string]testrun.FlakyEntry, error) {
	out := make(map[string]testrun.FlakyEntry)
	for start := 0; start < len(ids); start += chunk {
		part := ids[start:min(start+chunk, len(ids))]
		args := []any{repo, env}
		for _, id := range part {
			args = append(args, id)
		}
		marks := strings.TrimSuffix(strings.Repeat("?, ", len(part)), ", ")
		rows, err := q.QueryContext(ctx, s.q(`SELECT `+entryColumns+` FROM flaky_entries
			WHERE repository = ? AND environment = ? AND test_id IN (`+marks+`)`), args...)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			e, err := scanEntry(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			out[e.TestID] = e
		}
		if err := rows.Close(); err != nil {
			return nil, err
		}
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (s *sqlStore) Lookup(ctx context.Context, repo, env string, ids []string) (map[string]testrun.FlakyEntry, error) {
	out, err := s.lookup(ctx, s.db, repo, env, ids)
	if err != nil {
		return nil, s.fail("", err)
	}
	return out, nil
}

// cutoff is the oldest last_seen of a live entry.
func (s *sqlStore) cutoff() int64 { return s.now().Add(-testrun.FlakyTTL).UnixMicro() }

func (s *sqlStore) List(ctx context.Context, f Filter) ([]testrun.FlakyEntry, error) {
	query := `SELECT ` + entryColumns + ` FROM flaky_entries WHERE last_seen >= ?`
	args := []any{s.cutoff()}
	if f.Repository != "" {
		query += ` AND repository = ?`
		args = append(args, f.Repository)
	}
	if f.Environment != "" {
		query += ` AND environment = ?`
		args = append(args, f.Environment)
	}
	c := s.d.collate
	query += ` ORDER BY repository` + c + `, environment` + c + `, test_id` + c
	rows, err := s.db.QueryContext(ctx, s.q(query), args...)
	if err != nil {
		return nil, s.fail("", err)
	}
	defer rows.Close()
	out := []testrun.FlakyEntry{}
	for rows.Next() {
		e, err := scanEntry(rows)
		if err != nil {
			return nil, s.fail("", err)
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	return out, nil
}

// flakyListLock is the lock of the flaky list as a whole: Record holds it
// shared (records of different repositories run side by side, each under
// its own repository's lock) and Prune alone, so that no record reads a
// tree's outcomes that a prune then deletes under it: the record would
// write back only what changed, and the outcomes it found unchanged would
// be lost while the tree stayed fresh.
const flakyListLock = "flaky-list"

func (s *sqlStore) Prune(ctx context.Context) (int64, error) {
	var n int64
	err := s.inTx(ctx, flakyListLock, func(tx *sql.Tx) error {
		cut := s.cutoff()
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM flaky_entries WHERE last_seen < ?`), cut)
		if err != nil {
			return err
		}
		if n, err = res.RowsAffected(); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM tree_outcomes WHERE (repository, environment, tree) IN
			(SELECT repository, environment, tree FROM trees WHERE last_seen < ?)`), cut); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, s.q(`DELETE FROM trees WHERE last_seen < ?`), cut)
		return err
	})
	return n, err
}

func (s *sqlStore) Summary(ctx context.Context, limit int) ([]testrun.FlakyRepoSummary, error) {
	if limit <= 0 {
		return []testrun.FlakyRepoSummary{}, nil
	}
	cut := s.cutoff()
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT repository, COUNT(*) FROM flaky_entries WHERE last_seen >= ?
		GROUP BY repository ORDER BY COUNT(*) DESC, repository`+s.d.collate+` LIMIT `+strconv.Itoa(limit)), cut)
	if err != nil {
		return nil, s.fail("", err)
	}
	out := []testrun.FlakyRepoSummary{}
	for rows.Next() {
		var r testrun.FlakyRepoSummary
		if err := rows.Scan(&r.Repository, &r.Tests); err != nil {
			rows.Close()
			return nil, s.fail("", err)
		}
		out = append(out, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	for i := range out {
		// The order of testrun.Worse.
		e, err := scanEntry(s.db.QueryRowContext(ctx, s.q(`SELECT `+entryColumns+` FROM flaky_entries
			WHERE repository = ? AND last_seen >= ?
			ORDER BY sightings DESC, last_seen DESC, environment`+s.d.collate+`, test_id`+s.d.collate+` LIMIT 1`), out[i].Repository, cut))
		if err != nil {
			return nil, s.fail("", err)
		}
		out[i].Worst = e
	}
	return out, nil
}
