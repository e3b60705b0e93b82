package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// Retention of stored runs is testrun's (testrun.Retain), the report
// folders' too; these are its limits under the names this package has
// given them, counted from a run's last recording.
const (
	// RunTTL is how long a stored run is kept after it was last recorded
	// (testrun.RunRetention).
	RunTTL = testrun.RunRetention
	// CasesTTL is how long a run keeps its per-case map; afterwards it
	// keeps its counts and failures only (testrun.CasesRetention).
	CasesTTL = testrun.CasesRetention
	// BaseCasesTTL is CasesTTL for runs of kind base, which later runs are
	// compared with (testrun.BaseCasesRetention).
	BaseCasesTTL = testrun.BaseCasesRetention
	// MaxRunsPerQuery bounds the runs JobRuns and SessionRuns return (the
	// latest ones).
	MaxRunsPerQuery = 1000
	// MaxTagLength bounds the repository, job id and session ref of a
	// stored run.
	MaxTagLength = 256
)

// ErrNotFound is returned (wrapped) by Run for an unknown run id.
var ErrNotFound = errors.New("store: not found")

// RunStore keeps whole runs, tagged with where they ran.
type RunStore interface {
	// RecordRun stores r.Run with its tags. A run id stored already is
	// tagged with r's job, session and turn too, so that each job and
	// session it was recorded for lists it; recording it again with tags
	// it has changes nothing. A new tagging also fills in a repository the
	// run lacked, and restarts its retention (see PruneRuns). It reports
	// whether anything was added (the run or a tagging). A run id stored
	// with different content, or for another repository or environment,
	// is refused with an error wrapping ErrRunConflict, and the stored run
	// is kept as it was.
	RecordRun(ctx context.Context, r StoredRun) (bool, error)
	// JobRuns returns the runs of a job in the order they were recorded
	// for it (at most MaxRunsPerQuery, the latest), without their
	// per-case maps. Each carries the tags and time it was first recorded
	// with for that job.
	JobRuns(ctx context.Context, jobID string) ([]StoredRun, error)
	// SessionRuns is JobRuns for the runs of a session.
	SessionRuns(ctx context.Context, ref string) ([]StoredRun, error)
	// Run returns one run with its per-case map (nil after retention
	// dropped it) and the tags it was first recorded with; an unknown id
	// wraps ErrNotFound.
	Run(ctx context.Context, id string) (StoredRun, error)
	// RunPage returns run id as Run does, but with only the cases of its
	// per-case map from offset in test id order, at most limit, and their
	// durations: the store decodes no other case. next is the offset of
	// the case after the page, -1 when none follows or the run keeps no
	// cases.
	RunPage(ctx context.Context, id string, offset, limit int) (sr StoredRun, next int, err error)
	// RunOutcomes returns the failing cases of run id (failed or error),
	// and the outcomes of the ids in also that it holds: every case a
	// comparison of the run reads, and no other is decoded. Without also
	// it reads the failing cases kept apart when the run was recorded, not
	// the stored map. It is nil when retention dropped the run's cases; an
	// unknown id wraps ErrNotFound.
	RunOutcomes(ctx context.Context, id string, also []string) (map[string]testrun.Outcome, error)
	// JobVersion returns the version of everything JobRuns(jobID) and Run
	// (RunPage, RunOutcomes) of each run it lists answer: a new one, never
	// given before, once a run is tagged for the job, a run it lists is
	// tagged anywhere (which can fill in its repository or give its cases
	// back), or retention drops a run or its cases, in the transaction
	// that does it. Stored runs never change otherwise, so a reader may
	// keep what it rendered from them for as long as the version stays.
	// It reads one row.
	JobVersion(ctx context.Context, jobID string) (string, error)
	// SessionVersion is JobVersion for the runs of a session.
	SessionVersion(ctx context.Context, ref string) (string, error)
	// Jobs returns a page of the jobs runs were recorded for, newest
	// first by their latest tagging, each with the run of that tagging,
	// and the Before of the next page (0 when none follows).
	Jobs(ctx context.Context, q JobsQuery) (jobs []JobEntry, next int64, err error)
	// RunsVersion returns the version of everything Jobs answers: a new
	// one once any run is tagged or retention runs, in the transaction
	// that does it. It reads one row.
	RunsVersion(ctx context.Context) (string, error)
	// PruneRuns applies retention (testrun.Retain) at now, counted from a
	// run's last recording (for any job or session): runs last recorded
	// more than RunTTL before go, and per-case maps of runs last recorded
	// more than CasesTTL before (BaseCasesTTL for base runs) are dropped. It says how many runs and maps went.
	PruneRuns(ctx context.Context, now time.Time) (PrunedRuns, error)
}

// DefaultEnvironment is the environment of a run recorded without one:
// the command line's default (--env), under which runs stored before
// environments were kept are read too.
const DefaultEnvironment = "default"

// EnvironmentOr is env, or DefaultEnvironment when env is "".
func EnvironmentOr(env string) string {
	if env == "" {
		return DefaultEnvironment
	}
	return env
}

// StoredRun is a run and where it ran. Empty tags are unknown.
type StoredRun struct {
	Run  *testrun.Run
	Repo string
	// Environment is the environment the run ran in, as the flaky list
	// names it (the command line's --env): its history and scores are
	// that environment's. "" is DefaultEnvironment; runs read back carry
	// theirs (Run, RunPage, JobRuns, SessionRuns). A run has one: the same
	// id recorded for another environment is refused (ErrRunConflict).
	Environment string
	JobID       string
	SessionRef  string
	// Turn is the session's turn number, nil when unknown.
	Turn *int
	// RecordedAt is set by the store.
	RecordedAt time.Time
	// HasCases is false once retention dropped the per-case map (set by
	// the store).
	HasCases bool
}

// PrunedRuns says what PruneRuns removed.
type PrunedRuns struct {
	// Runs removed, and per-case maps dropped from runs that stay.
	Runs  int64 `json:"runs"`
	Cases int64 `json:"cases"`
}

// PruneAt applies the retention of stored runs as of now (PruneRuns) to
// the store at location, opened for that alone and closed after.
func PruneAt(ctx context.Context, location string, now time.Time, opts ...Option) (PrunedRuns, error) {
	st, err := Open(ctx, location, opts...)
	if err != nil {
		return PrunedRuns{}, err
	}
	defer st.Close()
	return st.PruneRuns(ctx, now)
}

func checkTag(name, v string) error {
	if len(v) > MaxTagLength {
		return fmt.Errorf("store: %s is longer than %d bytes", name, MaxTagLength)
	}
	if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return fmt.Errorf("store: %s holds a control character", name)
	}
	return nil
}

// ErrTagNotElement is returned by RecordRun for a run id, job id or
// session ref that is not one path element: each is one segment of
// serve's addresses (/api/jobs/{id}, ...), which refuse such ids, so the
// store refuses to record what could never be read back. A repository is
// given in the query and may hold slashes.
var ErrTagNotElement = errors.New("store: not one path element")

// checkPathElement refuses v when it holds a path separator (/ or \) or
// is . or .. (empty is allowed: no tag).
func checkPathElement(name, v string) error {
	switch {
	case strings.ContainsAny(v, `/\`):
		return fmt.Errorf("%w: %s %q holds a path separator", ErrTagNotElement, name, v)
	case v == "." || v == "..":
		return fmt.Errorf("%w: %s %q is a path element", ErrTagNotElement, name, v)
	}
	return nil
}

func microOrNil(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UnixMicro()
}

// runRow is a run encoded for its rows: its JSON form without its cases,
// which are kept apart (nil when the run has none), the failing ones
// among them ("" when none are known), and the columns the queries read.
type runRow struct {
	runJSON       string
	env           string
	bare          testrun.Run
	casesJSON     any
	durationsJSON any
	failingJSON   string
	counts        [6]any
	turn          int64 // -1 when unknown
	turnColumn    any
	counted       int
}

// encodeRun checks sr's tags and run and encodes them for RecordRun.
func encodeRun(sr StoredRun) (*runRow, error) {
	r := sr.Run
	if r == nil || r.ID == "" {
		return nil, errors.New("store: a run with an id is required")
	}
	for _, tag := range []struct {
		name, v string
		element bool
	}{{"run id", r.ID, true}, {"repository", sr.Repo, false}, {"environment", sr.Environment, false}, {"job id", sr.JobID, true}, {"session ref", sr.SessionRef, true}} {
		if err := checkTag(tag.name, tag.v); err != nil {
			return nil, err
		}
		if tag.element {
			if err := checkPathElement(tag.name, tag.v); err != nil {
				return nil, err
			}
		}
	}
	if err := r.Validate(); err != nil {
		return nil, fmt.Errorf("store: run %q: %w", r.ID, err)
	}
	row := &runRow{bare: *r, turn: -1, env: EnvironmentOr(sr.Environment)}
	row.bare.Cases, row.bare.Durations = nil, nil
	b, err := json.Marshal(row.bare)
	if err != nil {
		return nil, fmt.Errorf("store: run %q: %w", r.ID, err)
	}
	row.runJSON = string(b)
	if r.Cases != nil {
		failing := map[string]testrun.Outcome{}
		for id, o := range r.Cases {
			if o.Failing() {
				failing[id] = o
			}
		}
		cb, err := json.Marshal(r.Cases)
		if err != nil {
			return nil, fmt.Errorf("store: run %q: %w", r.ID, err)
		}
		fb, err := json.Marshal(failing)
		if err != nil {
			return nil, fmt.Errorf("store: run %q: %w", r.ID, err)
		}
		row.casesJSON, row.failingJSON = string(cb), string(fb)
	}
	if len(r.Durations) > 0 {
		db, err := testrun.MarshalDurations(r.Durations)
		if err != nil {
			return nil, fmt.Errorf("store: run %q: %w", r.ID, err)
		}
		row.durationsJSON = string(db)
	}
	if c := r.Counts; c != nil {
		row.counts = [6]any{c.Total, c.Passed, c.Failed, c.Errors, c.Skipped, c.Flaky}
	}
	if sr.Turn != nil {
		if *sr.Turn < 0 {
			return nil, fmt.Errorf("store: run %q: turn %d: want 0 or more", r.ID, *sr.Turn)
		}
		row.turn = int64(*sr.Turn)
		row.turnColumn = row.turn
	}
	if r.Counted() {
		row.counted = 1
	}
	return row, nil
}

// storedRun is what RecordRun finds of a run stored before.
type storedRun struct {
	found                bool
	repo, env            string
	runJSON              string
	casesJSON, durations sql.NullString
}

// sameRun refuses a run recorded again that is not the one stored under
// its id (ErrRunConflict): another repository, another form, other cases
// or durations.
func (s *sqlStore) sameRun(stored *storedRun, sr StoredRun, row *runRow) error {
	id := sr.Run.ID
	if stored.repo != "" && sr.Repo != "" && stored.repo != sr.Repo {
		return fmt.Errorf("%w: run %q is stored for repository %q, not %q", ErrRunConflict, id, stored.repo, sr.Repo)
	}
	if stored.env != row.env {
		return fmt.Errorf("%w: run %q is stored for environment %q, not %q", ErrRunConflict, id, stored.env, row.env)
	}
	if why, err := s.runDiffers(stored.runJSON, row.runJSON, &row.bare); err != nil {
		return err
	} else if why != "" {
		return fmt.Errorf("%w: run %q: %s", ErrRunConflict, id, why)
	}
	if c, ok := row.casesJSON.(string); ok && stored.casesJSON.Valid && c != stored.casesJSON.String {
		return fmt.Errorf("%w: run %q: its per-case outcomes differ", ErrRunConflict, id)
	}
	if d, ok := row.durationsJSON.(string); ok && stored.durations.Valid && d != stored.durations.String {
		return fmt.Errorf("%w: run %q: its case durations differ", ErrRunConflict, id)
	}
	return nil
}

func (s *sqlStore) RecordRun(ctx context.Context, sr StoredRun) (bool, error) {
	row, err := encodeRun(sr)
	if err != nil {
		return false, err
	}
	r := sr.Run
	runJSON, casesJSON, durationsJSON, failingJSON := row.runJSON, row.casesJSON, row.durationsJSON, row.failingJSON
	counts, turn, turnColumn, counted := row.counts, row.turn, row.turnColumn, row.counted
	added := false
	err = s.inTx(ctx, "runs", func(tx *sql.Tx) error {
		added = false // afresh on each attempt
		now := s.now().UnixMicro()
		var seq int64
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM run_tags`).Scan(&seq); err != nil {
			return err
		}
		var stored storedRun
		err := tx.QueryRowContext(ctx, s.q(`SELECT repository, environment, run_json, cases_json, durations_json FROM runs WHERE run_id = ?`), r.ID).
			Scan(&stored.repo, &stored.env, &stored.runJSON, &stored.casesJSON, &stored.durations)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO runs (run_id, kind, repository, environment, job_id, session_ref, turn,
				started_at, ended_at, recorded_at, last_recorded_at, seq, counted, total, passed, failed, errors, skipped, flaky,
				run_json, cases_json, durations_json)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
				r.ID, string(r.Kind), sr.Repo, row.env, sr.JobID, sr.SessionRef, turnColumn,
				microOrNil(r.StartedAt), microOrNil(r.EndedAt), now, now, seq, counted,
				counts[0], counts[1], counts[2], counts[3], counts[4], counts[5], runJSON, casesJSON, durationsJSON); err != nil {
				return err
			}
			// A row left by a store that lost its run is replaced, or
			// removed when the run being recorded keeps no cases: it is
			// the one the row describes now.
			if failingJSON != "" {
				if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_failing (run_id, cases) VALUES (?, ?)
					ON CONFLICT (run_id) DO UPDATE SET cases = excluded.cases`), r.ID, failingJSON); err != nil {
					return err
				}
			} else if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM run_failing WHERE run_id = ?`), r.ID); err != nil {
				return err
			}
		case err != nil:
			return err
		default:
			// Stored before: the same run, or a refusal.
			stored.found = true
			if err := s.sameRun(&stored, sr, row); err != nil {
				return err
			}
		}
		res, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_tags (run_id, job_id, session_ref, turn, recorded_at, seq)
			VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (run_id, job_id, session_ref, turn) DO NOTHING`),
			r.ID, sr.JobID, sr.SessionRef, turn, now, seq)
		if err != nil {
			return err
		}
		n, err := res.RowsAffected()
		if err != nil || n == 0 {
			return err // stored with these tags already: nothing changes
		}
		added = true
		if err := s.touch(ctx, tx, "?", r.ID); err != nil {
			return err
		}
		if err := s.recordHistory(ctx, tx, sr); err != nil {
			return err
		}
		if !stored.found {
			return nil // a new run
		}
		// A new tagging of a stored run: retention counts from now, a
		// repository unknown until now is filled in, and a per-case map
		// that retention had dropped (the same, by the counts) is kept
		// again.
		_, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET last_recorded_at = ?,
			repository = CASE WHEN repository = '' THEN ? ELSE repository END,
			cases_json = COALESCE(cases_json, ?),
			durations_json = CASE WHEN cases_json IS NULL THEN ? ELSE durations_json END
			WHERE run_id = ?`), now, sr.Repo, casesJSON, durationsJSON, r.ID)
		if err != nil || stored.casesJSON.Valid || failingJSON == "" {
			return err
		}
		// Its cases given back: their failing ones too.
		_, err = tx.ExecContext(ctx, s.q(`INSERT INTO run_failing (run_id, cases) VALUES (?, ?)
			ON CONFLICT (run_id) DO UPDATE SET cases = excluded.cases`), r.ID, failingJSON)
		return err
	})
	return added, err
}

// runDiffers compares the stored form of a run with the form of the run
// being recorded under the same id (bare, without cases), and says how
// they differ ("" when they are the same run). A stored form written by
// an older version is compared by what it reads back as.
func (s *sqlStore) runDiffers(stored, form string, bare *testrun.Run) (string, error) {
	if stored == form {
		return "", nil
	}
	old, err := s.parsed.read(stored)
	if err != nil {
		return "", fmt.Errorf("run %q: %w", bare.ID, err)
	}
	again, err := json.Marshal(old)
	if err != nil {
		return "", fmt.Errorf("run %q: %w", bare.ID, err)
	}
	if string(again) == form {
		return "", nil
	}
	return runDifference(old, bare), nil
}

// runDifference names the first field in which run b differs from the
// stored run a.
func runDifference(a, b *testrun.Run) string {
	switch {
	case a.Kind != b.Kind:
		return fmt.Sprintf("stored as kind %q, not %q", a.Kind, b.Kind)
	case a.Tree != b.Tree:
		return fmt.Sprintf("stored with tree %q, not %q", a.Tree, b.Tree)
	case a.Commit != b.Commit:
		return fmt.Sprintf("stored with commit %q, not %q", a.Commit, b.Commit)
	case a.Grade != b.Grade:
		return fmt.Sprintf("stored with grade %q, not %q", a.Grade, b.Grade)
	case !reflect.DeepEqual(a.Counts, b.Counts):
		return "its counts differ"
	case !reflect.DeepEqual(a.Reports, b.Reports):
		return "its reports (paths, digests or sizes) differ"
	case a.Status != b.Status || !reflect.DeepEqual(a.ExitCode, b.ExitCode):
		return "its status or exit code differ"
	case !a.StartedAt.Equal(b.StartedAt) || !a.EndedAt.Equal(b.EndedAt):
		return "its start or end time differ"
	case !reflect.DeepEqual(a.Failures, b.Failures):
		return "its failures differ"
	}
	return "its recorded form differs"
}

const runColumns = `repository, environment, job_id, session_ref, turn, recorded_at, run_json`

// scanRun scans a run without decoding its cases; with cases and
// durations, also the columns cases_json, durations_json as stored.
func (s *sqlStore) scanRun(sc scanner, cases, durations *sql.NullString) (StoredRun, error) {
	var extra []any
	if cases != nil {
		extra = []any{cases, durations}
	}
	sr, err := s.scanRunWith(sc, extra...)
	sr.HasCases = err == nil && cases != nil && cases.Valid
	return sr, err
}

// withCases decodes the stored per-case map and durations into sr.Run,
// whole, and validates the run with them.
func (s *sqlStore) withCases(sr *StoredRun, cases, durations sql.NullString) error {
	r := sr.Run
	if !cases.Valid {
		return nil
	}
	if err := json.Unmarshal([]byte(cases.String), &r.Cases); err != nil {
		return fmt.Errorf("run %q: cases: %w", r.ID, err)
	}
	s.decoded.Add(int64(len(r.Cases)))
	if durations.Valid {
		var err error
		if r.Durations, err = testrun.UnmarshalDurations([]byte(durations.String)); err != nil {
			return fmt.Errorf("run %q: durations: %w", r.ID, err)
		}
	}
	if err := r.Validate(); err != nil {
		return fmt.Errorf("run %q: %w", r.ID, err)
	}
	return nil
}

// runsWhere returns the runs tagged with value in column (of run_tags),
// each once, with its first tagging there, in the order of those.
func (s *sqlStore) runsWhere(ctx context.Context, column, value string) ([]StoredRun, error) {
	rows, err := s.db.QueryContext(ctx, s.q(`SELECT r.repository, r.environment, t.job_id, t.session_ref, t.turn, t.recorded_at, r.run_json,
		r.cases_json IS NOT NULL
		FROM run_tags t JOIN runs r ON r.run_id = t.run_id
		WHERE t.seq IN (SELECT MIN(seq) FROM run_tags WHERE `+column+` = ? GROUP BY run_id)
		ORDER BY t.seq DESC LIMIT `+fmt.Sprint(MaxRunsPerQuery)), value)
	if err != nil {
		return nil, s.fail("", err)
	}
	defer rows.Close()
	out := []StoredRun{}
	for rows.Next() {
		var has bool
		sr, err := s.scanRunWith(rows, &has)
		if err != nil {
			return nil, s.fail("", err)
		}
		sr.HasCases = has
		out = append(out, sr)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

// scanRunWith scans a run (the columns runColumns names) without its
// cases, then the columns after them into extra.
func (s *sqlStore) scanRunWith(sc scanner, extra ...any) (StoredRun, error) {
	var sr StoredRun
	var turn sql.NullInt64
	var recorded int64
	var runJSON string
	dest := append([]any{&sr.Repo, &sr.Environment, &sr.JobID, &sr.SessionRef, &turn, &recorded, &runJSON}, extra...)
	if err := sc.Scan(dest...); err != nil {
		return sr, err
	}
	if turn.Valid && turn.Int64 >= 0 {
		n := int(turn.Int64)
		sr.Turn = &n
	}
	sr.RecordedAt = time.UnixMicro(recorded).UTC()
	r, err := s.parsed.read(runJSON)
	if err != nil {
		return sr, err
	}
	sr.Run = r
	return sr, nil
}

// versionOf is the version of the runs of a job or session (scope "job"
// or "session"), "0" before any was recorded.
func (s *sqlStore) versionOf(ctx context.Context, scope, key string) (string, error) {
	return s.keptVersion(ctx, scope+"\x00"+key, func() (string, error) { return s.readVersion(ctx, scope, key) })
}

func (s *sqlStore) readVersion(ctx context.Context, scope, key string) (string, error) {
	st, err := s.prepare(ctx, s.q(`SELECT version FROM run_versions WHERE scope = ? AND key = ?`))
	if err != nil {
		return "", s.fail("", err)
	}
	var v int64
	switch err := st.QueryRowContext(ctx, scope, key).Scan(&v); {
	case errors.Is(err, sql.ErrNoRows):
		return "0", nil
	case err != nil:
		return "", s.fail("", err)
	}
	return strconv.FormatInt(v, 10), nil
}

// touch gives, in tx, every job and session that lists one of the runs
// selected by runIDs (a subquery, with args) a new version. Every change
// to what JobRuns, SessionRuns, Run or RunPage answer goes through it: a
// tagging can fill in a run's repository or give its cases back for every
// job listing it, and retention drops runs or cases.
func (s *sqlStore) touch(ctx context.Context, tx *sql.Tx, runIDs string, args ...any) error {
	var n int64
	if err := tx.QueryRowContext(ctx, `UPDATE run_writes SET n = n + 1 WHERE id = 1 RETURNING n`).Scan(&n); err != nil {
		return err
	}
	for _, sc := range []struct{ scope, column string }{{"job", "job_id"}, {"session", "session_ref"}} {
		// Constants and a number read from the database, written in: a
		// parameter in a SELECT list has no type PostgreSQL can tell.
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_versions (scope, key, version)
			SELECT '`+sc.scope+`', `+sc.column+`, `+strconv.FormatInt(n, 10)+` FROM run_tags
			WHERE run_id IN (`+runIDs+`) GROUP BY `+sc.column+`
			ON CONFLICT (scope, key) DO UPDATE SET version = excluded.version`), args...); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqlStore) JobVersion(ctx context.Context, jobID string) (string, error) {
	return s.versionOf(ctx, "job", jobID)
}

func (s *sqlStore) SessionVersion(ctx context.Context, ref string) (string, error) {
	return s.versionOf(ctx, "session", ref)
}

func (s *sqlStore) JobRuns(ctx context.Context, jobID string) ([]StoredRun, error) {
	return s.runsWhere(ctx, "job_id", jobID)
}

func (s *sqlStore) SessionRuns(ctx context.Context, ref string) ([]StoredRun, error) {
	return s.runsWhere(ctx, "session_ref", ref)
}

// storedRun reads run id with its per-case map and durations as stored.
func (s *sqlStore) storedRun(ctx context.Context, id string) (StoredRun, sql.NullString, sql.NullString, error) {
	var cases, durations sql.NullString
	sr, err := s.scanRun(s.db.QueryRowContext(ctx, s.q(`SELECT `+runColumns+`, cases_json, durations_json FROM runs WHERE run_id = ?`), id), &cases, &durations)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return StoredRun{}, cases, durations, fmt.Errorf("%w: run %q", ErrNotFound, id)
	case err != nil:
		return StoredRun{}, cases, durations, s.fail("", err)
	}
	return sr, cases, durations, nil
}

func (s *sqlStore) Run(ctx context.Context, id string) (StoredRun, error) {
	sr, cases, durations, err := s.storedRun(ctx, id)
	if err != nil {
		return StoredRun{}, err
	}
	if err := s.withCases(&sr, cases, durations); err != nil {
		return StoredRun{}, s.fail("", err)
	}
	return sr, nil
}

func (s *sqlStore) RunPage(ctx context.Context, id string, offset, limit int) (StoredRun, int, error) {
	sr, cases, durations, err := s.storedRun(ctx, id)
	if err != nil || !cases.Valid {
		return sr, -1, err
	}
	offset, limit = max(offset, 0), max(limit, 0)
	p, err := pageOf(cases.String, offset, limit)
	if errors.Is(err, errNotSorted) {
		// Not as this package writes it: decoded whole, paged here.
		if err := s.withCases(&sr, cases, durations); err != nil {
			return StoredRun{}, -1, s.fail("", err)
		}
		ids := slices.Sorted(maps.Keys(sr.Run.Cases))
		page := map[string]testrun.Outcome{}
		var ds map[string]time.Duration
		if sr.Run.Durations != nil {
			ds = map[string]time.Duration{}
		}
		for _, id := range ids[min(offset, len(ids)):min(offset+limit, len(ids))] {
			page[id] = sr.Run.Cases[id]
			if d, ok := sr.Run.Durations[id]; ok {
				ds[id] = d
			}
		}
		next := -1
		if offset+limit < len(ids) {
			next = offset + limit
		}
		sr.Run.Cases, sr.Run.Durations = page, ds
		return sr, next, nil
	} else if err != nil {
		return StoredRun{}, -1, s.fail("", fmt.Errorf("run %q: cases: %w", id, err))
	}
	s.decoded.Add(int64(len(p.cases)))
	sr.Run.Cases, sr.Run.Durations = p.cases, nil
	if durations.Valid {
		obj, err := durationsOf(durations.String, p.cases)
		if err == nil {
			sr.Run.Durations, err = testrun.UnmarshalDurations([]byte(obj))
		}
		if err != nil {
			return StoredRun{}, -1, s.fail("", fmt.Errorf("run %q: durations: %w", id, err))
		}
	}
	return sr, p.next, nil
}

func (s *sqlStore) RunOutcomes(ctx context.Context, id string, also []string) (map[string]testrun.Outcome, error) {
	if len(also) == 0 {
		// The failing cases, as recorded with the run.
		var failing string
		err := s.db.QueryRowContext(ctx, s.q(`SELECT cases FROM run_failing WHERE run_id = ?`), id).Scan(&failing)
		switch {
		case err == nil:
			var out map[string]testrun.Outcome
			if err := json.Unmarshal([]byte(failing), &out); err != nil {
				return nil, s.fail("", fmt.Errorf("run %q: failing cases: %w", id, err))
			}
			s.decoded.Add(int64(len(out)))
			return out, nil
		case !errors.Is(err, sql.ErrNoRows):
			return nil, s.fail("", err)
		}
	}
	var cases sql.NullString
	err := s.db.QueryRowContext(ctx, s.q(`SELECT cases_json FROM runs WHERE run_id = ?`), id).Scan(&cases)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return nil, fmt.Errorf("%w: run %q", ErrNotFound, id)
	case err != nil:
		return nil, s.fail("", err)
	case !cases.Valid:
		return nil, nil
	}
	set := make(map[string]bool, len(also))
	for _, id := range also {
		set[id] = true
	}
	s.scanned.Add(1)
	out, err := outcomesOf(cases.String, set)
	if err != nil {
		return nil, s.fail("", fmt.Errorf("run %q: cases: %w", id, err))
	}
	s.decoded.Add(int64(len(out)))
	if len(also) == 0 {
		// A run stored before its failing cases were: kept now, unless
		// retention dropped its cases meanwhile. At worst it is read again.
		// It is written under the runs' writers' lock, so that a prune
		// never drops the cases (or the run) between the check and the
		// write and leaves failing cases that nothing would remove; and
		// only when the lock is free, so that a read never waits for it.
		if b, err := json.Marshal(out); err == nil {
			_ = s.tryInTx(ctx, "runs", func(tx *sql.Tx) error {
				_, err := tx.ExecContext(ctx, s.q(`INSERT INTO run_failing (run_id, cases)
					SELECT ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ? AND cases_json IS NOT NULL)
					ON CONFLICT (run_id) DO NOTHING`), id, string(b), id)
				return err
			}) // the cases are answered either way; keeping them only saves a later scan
		}
	}
	return out, nil
}

func (s *sqlStore) PruneRuns(ctx context.Context, now time.Time) (PrunedRuns, error) {
	var p PrunedRuns
	// testrun.Retain as cut-off times: a run recorded before cut goes, and
	// the cases of one recorded before its kind's cases cut-off. Base runs
	// have their own cases retention; every other kind shares one, which
	// TestPruneRunsFollowsRetain checks over all kinds.
	cut := now.Add(-testrun.RunRetention).UnixMicro()
	baseCut := now.Add(-testrun.CasesRetentionFor(testrun.KindBase)).UnixMicro()
	otherCut := now.Add(-testrun.CasesRetentionFor(testrun.KindAfterTurn)).UnixMicro()
	base := string(testrun.KindBase)
	err := s.inTx(ctx, "runs", func(tx *sql.Tx) error {
		// What goes, runs or cases, is no longer answered.
		if err := s.touch(ctx, tx, `SELECT run_id FROM runs WHERE last_recorded_at < ? OR (cases_json IS NOT NULL AND (
			(kind <> ? AND last_recorded_at < ?) OR (kind = ? AND last_recorded_at < ?)))`,
			cut, base, otherCut, base, baseCut); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM run_failing WHERE run_id IN
			(SELECT run_id FROM runs WHERE last_recorded_at < ? OR (kind <> ? AND last_recorded_at < ?) OR (kind = ? AND last_recorded_at < ?))`),
			cut, base, otherCut, base, baseCut); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, s.q(`DELETE FROM run_tags WHERE run_id IN
			(SELECT run_id FROM runs WHERE last_recorded_at < ?)`), cut); err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, s.q(`DELETE FROM runs WHERE last_recorded_at < ?`), cut)
		if err != nil {
			return err
		}
		if p.Runs, err = res.RowsAffected(); err != nil {
			return err
		}
		res, err = tx.ExecContext(ctx, s.q(`UPDATE runs SET cases_json = NULL, durations_json = NULL WHERE cases_json IS NOT NULL AND (
			(kind <> ? AND last_recorded_at < ?) OR (kind = ? AND last_recorded_at < ?))`),
			base, otherCut, base, baseCut)
		if err != nil {
			return err
		}
		p.Cases, err = res.RowsAffected()
		return err
	})
	return p, err
}
