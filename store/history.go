package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// Per-test history is for people to read: which tests flip, slow down or
// broke lately. It never excuses a failure (only the flaky list and an
// explicit quarantine entry do).
//
// It is written when a counted run (trusted, with tests: see
// testrun.Run.Counted) is recorded, so that a run an agent could forge
// never shapes what people read. A run's totals (history_runs) are kept as
// long as the run is; its per-test rows (test_history) are its per-case
// map in another shape and go when the map goes (they reference the
// run's failing-cases row, which retention drops with the map), so the
// history follows testrun.Retain. Runs recorded before the history
// existed have none.
//
// The history is kept per repository and environment (StoredRun.
// Environment, the flaky list's): a test flaky on one environment and
// stable on another is read apart, never blended. Every query names one
// environment; "" is DefaultEnvironment, the environment of runs
// recorded without one and of every run stored before environments were
// kept.

// Bounds of the history queries.
const (
	// MaxHistoryRuns bounds the runs TestHistory returns (the latest).
	MaxHistoryRuns = 10000
	// MaxTrendRuns bounds the runs Trends returns (the latest).
	MaxTrendRuns = 1000
	// DefaultTestsWindow is how many of a repository's latest runs
	// RepoTests reads when asked for 0.
	DefaultTestsWindow = 200
	// MaxTestsWindow bounds the runs RepoTests reads.
	MaxTestsWindow = 1000
	// MaxTestsListed bounds each list RepoTests returns.
	MaxTestsListed = 100
)

// HistoryStore answers the per-test history of the counted runs recorded
// with RecordRun. The stores Open returns implement it.
type HistoryStore interface {
	// TestHistory returns what the runs of q.Repo in q.Environment said of
	// q.TestID within [q.Since, q.Until) (zero: unbounded), oldest first:
	// at most q.Limit (0 or more than MaxHistoryRuns: MaxHistoryRuns), the
	// latest.
	TestHistory(ctx context.Context, q HistoryQuery) ([]HistoryEntry, error)
	// Trends returns the totals of the last n counted runs of repo in env
	// ("": DefaultEnvironment; n 0 or more than MaxTrendRuns:
	// MaxTrendRuns), oldest first.
	Trends(ctx context.Context, repo, env string, n int) ([]TrendPoint, error)
	// RepoTests ranks the tests of repo in env ("": DefaultEnvironment)
	// over its last window runs there (0: DefaultTestsWindow; at most
	// MaxTestsWindow): the flakiest, the slowest and the most recently
	// broken, at most limit of each (0 or more than MaxTestsListed:
	// MaxTestsListed).
	RepoTests(ctx context.Context, repo, env string, window, limit int) (RepoTests, error)
	// Environments lists the environments repo has counted runs in, in
	// byte order (at most MaxEnvironments).
	Environments(ctx context.Context, repo string) ([]string, error)
}

// MaxEnvironments bounds the environments Environments lists.
const MaxEnvironments = 100

// HistoryQuery selects the history of one test in one environment
// ("": DefaultEnvironment).
type HistoryQuery struct {
	Repo, Environment, TestID string
	Since, Until              time.Time
	Limit                     int
}

// HistoryEntry is what one stored run said of one test.
type HistoryEntry struct {
	RunID string
	// At is when the run started (when it was first recorded, if it
	// states no start).
	At      time.Time
	Tree    string
	Outcome testrun.Outcome
	// Duration is the time the reports stated for the test; Timed is false
	// when they stated none (absence is never zero).
	Duration time.Duration
	Timed    bool
	// Retried is true when the run itself reported the test flaky.
	Retried bool
	// JobID and SessionRef are the tags the run was first recorded with
	// (TestHistory only; "" when unknown).
	JobID, SessionRef string
}

// Point is e as the flakiness score reads it.
func (e HistoryEntry) Point() testrun.HistoryPoint {
	return testrun.HistoryPoint{RunID: e.RunID, At: e.At, Tree: e.Tree, Outcome: e.Outcome, Retried: e.Retried}
}

// Points are the entries as the flakiness score reads them.
func Points(entries []HistoryEntry) []testrun.HistoryPoint {
	out := make([]testrun.HistoryPoint, len(entries))
	for i, e := range entries {
		out[i] = e.Point()
	}
	return out
}

// TrendPoint is one counted run of a repository, in totals.
type TrendPoint struct {
	RunID  string
	At     time.Time
	Counts testrun.Counts
	// Duration is the run's wall time, from its start to its end; Timed is
	// false when it states either not.
	Duration time.Duration
	Timed    bool
	// LineRate is the run's line coverage, nil when unknown.
	LineRate *float64
}

// PassRate is the share of the tests that ran (passed, failed or
// errored) that passed; ok is false when none ran.
func (p TrendPoint) PassRate() (rate float64, ok bool) {
	ran := p.Counts.Passed + p.Counts.Failed + p.Counts.Errors
	if ran == 0 {
		return 0, false
	}
	return float64(p.Counts.Passed) / float64(ran), true
}

// RepoTests are a repository's tests ranked over its latest runs.
type RepoTests struct {
	// Runs is the number of runs read (at most the window asked for).
	Runs int
	// Tests is the number of distinct tests seen in them.
	Tests          int
	Flakiest       []FlakyTest
	Slowest        []SlowTest
	RecentlyBroken []BrokenTest
}

// FlakyTest is a test with flaky-list evidence or more than one outcome
// flip in the window, and its score
// over the window (each part with its evidence).
type FlakyTest struct {
	TestID string
	Score  testrun.Flakiness
}

// SlowTest is a test by its mean stated duration over the runs that timed
// it.
type SlowTest struct {
	TestID string
	Mean   time.Duration
	Max    time.Duration
	// Timed is the number of runs whose reports stated its time.
	Timed int
	// Latest is its time in the latest run that timed it.
	Latest time.Duration
}

// BrokenTest is a test failing in the latest run that ran it, after
// passing earlier in the window.
type BrokenTest struct {
	TestID string
	// Since is the first run of its current failing streak; LastPassed the
	// run before it in which it passed.
	Since, LastPassed HistoryEntry
	// Failures is the length of the streak, in runs that ran it.
	Failures int
}

var _ HistoryStore = (*sqlStore)(nil)

// recordHistory writes, in tx, the history of run sr, given a new tagging
// by RecordRun: its totals once, and its per-test rows when it holds
// cases the history lacks (a new run, or one whose cases were given back
// after retention dropped them). A repository this tagging fills in is
// filled in on both. Runs that are not counted make no history.
func (s *sqlStore) recordHistory(ctx context.Context, tx *sql.Tx, sr StoredRun) error {
	r := sr.Run
	if !r.Counted() {
		return nil
	}
	var repo, env, job, session string
	var recorded int64
	// The per-test rows reference the run's failing-cases row: it is
	// there for a new run, and written later in tx when the run's cases
	// are given back (none kept now). A run stored with its cases before
	// those rows existed has none, and no per-test history.
	var noCases, failingRow int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT repository, environment, recorded_at, job_id, session_ref,
		CASE WHEN cases_json IS NULL THEN 1 ELSE 0 END, (SELECT COUNT(*) FROM run_failing WHERE run_id = ?)
		FROM runs WHERE run_id = ?`), r.ID, r.ID).
		Scan(&repo, &env, &recorded, &job, &session, &noCases, &failingRow); err != nil {
		return err
	}
	if repo == "" {
		repo = sr.Repo
	}
	at := recorded
	if !r.StartedAt.IsZero() {
		at = r.StartedAt.UnixMicro()
	}
	var n int
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM history_runs WHERE run_id = ?`), r.ID).Scan(&n); err != nil {
		return err
	}
	if n == 0 {
		var duration, lineRate any
		if !r.StartedAt.IsZero() && !r.EndedAt.IsZero() && !r.EndedAt.Before(r.StartedAt) {
			duration = r.EndedAt.Sub(r.StartedAt).Microseconds()
		}
		if r.Coverage != nil && r.Coverage.LineRate != nil {
			lineRate = *r.Coverage.LineRate
		}
		c := r.Counts
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO history_runs (run_id, repository, environment, at, total, passed, failed, errors, skipped, flaky, duration_us, line_rate, job_id, session_ref)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
			r.ID, repo, env, at, c.Total, c.Passed, c.Failed, c.Errors, c.Skipped, c.Flaky, duration, lineRate, job, session); err != nil {
			return err
		}
	} else if repo != "" {
		for _, table := range []string{"history_runs", "test_history"} {
			if _, err := tx.ExecContext(ctx, s.q(`UPDATE `+table+` SET repository = ? WHERE run_id = ? AND repository = ''`), repo, r.ID); err != nil {
				return err
			}
		}
	}
	if len(r.Cases) == 0 || (noCases == 0 && failingRow == 0) {
		return nil
	}
	if err := tx.QueryRowContext(ctx, s.q(`SELECT COUNT(*) FROM (SELECT 1 FROM test_history WHERE run_id = ? LIMIT 1) one`), r.ID).Scan(&n); err != nil || n > 0 {
		return err
	}
	retried := make(map[string]bool, len(r.Flaky))
	for _, id := range r.Flaky {
		retried[id] = true
	}
	ids := slices.Sorted(maps.Keys(r.Cases))
	const perRow = 11
	for len(ids) > 0 {
		part := ids[:min(chunk, len(ids))]
		ids = ids[len(part):]
		args := make([]any, 0, perRow*len(part))
		for _, id := range part {
			var d any
			if v, ok := r.Durations[id]; ok {
				d = v.Microseconds()
			}
			rt := 0
			if retried[id] {
				rt = 1
			}
			args = append(args, r.ID, repo, env, id, at, r.Tree, string(r.Cases[id]), d, rt, job, session)
		}
		if _, err := tx.ExecContext(ctx, s.q(`INSERT INTO test_history (run_id, repository, environment, test_id, at, tree, outcome, duration_us, retried, job_id, session_ref)
			VALUES `+placeholders(len(part), perRow)+` ON CONFLICT (run_id, test_id) DO NOTHING`), args...); err != nil {
			return err
		}
	}
	return nil
}

func boundOr(n, max int) int {
	if n <= 0 || n > max {
		return max
	}
	return n
}

// testHistorySQL is TestHistory's query of q and its arguments: in its
// index's order (test_history_test, led by repository, environment and
// test), reading its columns only.
func (s *sqlStore) testHistorySQL(q HistoryQuery) (string, []any) {
	where := `h.repository = ? AND h.environment = ? AND h.test_id = ?`
	args := []any{q.Repo, EnvironmentOr(q.Environment), q.TestID}
	if !q.Since.IsZero() {
		where += ` AND h.at >= ?`
		args = append(args, q.Since.UnixMicro())
	}
	if !q.Until.IsZero() {
		where += ` AND h.at < ?`
		args = append(args, q.Until.UnixMicro())
	}
	// Runs of the same microsecond are put in run id order by TestHistory.
	return s.q(`SELECT h.run_id, h.at, h.tree, h.outcome, h.duration_us, h.retried, h.job_id, h.session_ref
		FROM test_history h
		WHERE ` + where + ` ORDER BY h.at DESC LIMIT ` + fmt.Sprint(boundOr(q.Limit, MaxHistoryRuns))), args
}

func (s *sqlStore) TestHistory(ctx context.Context, q HistoryQuery) ([]HistoryEntry, error) {
	query, args := s.testHistorySQL(q)
	st, err := s.prepare(ctx, query)
	if err != nil {
		return nil, s.fail("", err)
	}
	rows, err := st.QueryContext(ctx, args...)
	if err != nil {
		return nil, s.fail("", err)
	}
	defer func() { _ = rows.Close() }() // its error is rows.Err's, checked below
	// One allocation for a history of up to 1,024 runs.
	out := make([]HistoryEntry, 0, min(boundOr(q.Limit, MaxHistoryRuns), 1024))
	for rows.Next() {
		var e HistoryEntry
		var at int64
		var d sql.NullInt64
		var outcome string
		var retried int
		if err := rows.Scan(&e.RunID, &at, &e.Tree, &outcome, &d, &retried, &e.JobID, &e.SessionRef); err != nil {
			return nil, s.fail("", err)
		}
		e.At, e.Outcome, e.Retried = time.UnixMicro(at).UTC(), testrun.Outcome(outcome), retried != 0
		e.Duration, e.Timed = time.Duration(d.Int64)*time.Microsecond, d.Valid
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	sortEntries(out)
	return out, nil
}

// sortEntries orders entries by time, then run id.
func sortEntries(h []HistoryEntry) {
	slices.SortFunc(h, func(a, b HistoryEntry) int {
		if c := a.At.Compare(b.At); c != 0 {
			return c
		}
		return strings.Compare(a.RunID, b.RunID)
	})
}

func (s *sqlStore) Trends(ctx context.Context, repo, env string, n int) ([]TrendPoint, error) {
	st, err := s.prepare(ctx, s.q(`SELECT run_id, at, total, passed, failed, errors, skipped, flaky, duration_us, line_rate
		FROM history_runs WHERE repository = ? AND environment = ? ORDER BY at DESC, run_id`+s.d.collate+` DESC LIMIT ?`))
	if err != nil {
		return nil, s.fail("", err)
	}
	rows, err := st.QueryContext(ctx, repo, EnvironmentOr(env), boundOr(n, MaxTrendRuns))
	if err != nil {
		return nil, s.fail("", err)
	}
	defer func() { _ = rows.Close() }() // its error is rows.Err's, checked below
	out := []TrendPoint{}
	for rows.Next() {
		var p TrendPoint
		var at int64
		var d sql.NullInt64
		var rate sql.NullFloat64
		c := &p.Counts
		if err := rows.Scan(&p.RunID, &at, &c.Total, &c.Passed, &c.Failed, &c.Errors, &c.Skipped, &c.Flaky, &d, &rate); err != nil {
			return nil, s.fail("", err)
		}
		p.At = time.UnixMicro(at).UTC()
		p.Duration, p.Timed = time.Duration(d.Int64)*time.Microsecond, d.Valid
		if rate.Valid {
			v := rate.Float64
			p.LineRate = &v
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	slices.Reverse(out)
	return out, nil
}

func (s *sqlStore) Environments(ctx context.Context, repo string) ([]string, error) {
	st, err := s.prepare(ctx, s.q(`SELECT environment FROM history_runs WHERE repository = ?
		GROUP BY environment ORDER BY environment`+s.d.collate+` LIMIT `+fmt.Sprint(MaxEnvironments)))
	if err != nil {
		return nil, s.fail("", err)
	}
	rows, err := st.QueryContext(ctx, repo)
	if err != nil {
		return nil, s.fail("", err)
	}
	defer func() { _ = rows.Close() }() // its error is rows.Err's, checked below
	out := []string{}
	for rows.Next() {
		var env string
		if err := rows.Scan(&env); err != nil {
			return nil, s.fail("", err)
		}
		out = append(out, env)
	}
	if err := rows.Err(); err != nil {
		return nil, s.fail("", err)
	}
	return out, nil
}

func (s *sqlStore) RepoTests(ctx context.Context, repo, env string, window, limit int) (RepoTests, error) {
	env = EnvironmentOr(env)
	if window <= 0 {
		window = DefaultTestsWindow
	}
	window = min(window, MaxTestsWindow)
	limit = boundOr(limit, MaxTestsListed)
	var out RepoTests
	// The start of the window: the oldest of the repository's last window
	// runs.
	var cut int64
	st, err := s.prepare(ctx, s.q(`SELECT COUNT(*), MIN(at) FROM (SELECT at FROM history_runs WHERE repository = ? AND environment = ?
		ORDER BY at DESC LIMIT ?) w`))
	if err != nil {
		return out, s.fail("", err)
	}
	var least sql.NullInt64
	if err := st.QueryRowContext(ctx, repo, env, window).Scan(&out.Runs, &least); err != nil {
		return out, s.fail("", err)
	}
	if !least.Valid {
		return out, nil
	}
	cut = least.Int64
	st, err = s.prepare(ctx, s.q(`SELECT test_id, run_id, at, tree, outcome, duration_us, retried FROM test_history
		WHERE repository = ? AND environment = ? AND at >= ?`))
	if err != nil {
		return out, s.fail("", err)
	}
	rows, err := st.QueryContext(ctx, repo, env, cut)
	if err != nil {
		return out, s.fail("", err)
	}
	defer func() { _ = rows.Close() }() // its error is rows.Err's, checked below
	byTest := map[string][]HistoryEntry{}
	for rows.Next() {
		var id string
		var e HistoryEntry
		var at int64
		var d sql.NullInt64
		var outcome string
		var retried int
		if err := rows.Scan(&id, &e.RunID, &at, &e.Tree, &outcome, &d, &retried); err != nil {
			return out, s.fail("", err)
		}
		e.At, e.Outcome, e.Retried = time.UnixMicro(at).UTC(), testrun.Outcome(outcome), retried != 0
		e.Duration, e.Timed = time.Duration(d.Int64)*time.Microsecond, d.Valid
		byTest[id] = append(byTest[id], e)
	}
	if err := rows.Err(); err != nil {
		return out, s.fail("", err)
	}
	out.Tests = len(byTest)
	rankTests(&out, byTest, limit)
	return out, nil
}

// rankTests fills the lists of out from each test's history (any order).
func rankTests(out *RepoTests, byTest map[string][]HistoryEntry, limit int) {
	for id, h := range byTest {
		sortEntries(h)
		// One flip is a break (or a fix), not a flake: listed as broken.
		if f := testrun.ScoreFlakiness(Points(h)); f.Flips > 1 || f.Flaky {
			out.Flakiest = append(out.Flakiest, FlakyTest{TestID: id, Score: f})
		}
		var slow SlowTest
		var sum time.Duration
		for _, e := range h {
			if e.Timed {
				slow.Timed++
				sum += e.Duration
				slow.Max = max(slow.Max, e.Duration)
				slow.Latest = e.Duration
			}
		}
		if slow.Timed > 0 {
			slow.TestID, slow.Mean = id, sum/time.Duration(slow.Timed)
			out.Slowest = append(out.Slowest, slow)
		}
		if b, ok := brokenOf(id, h); ok {
			out.RecentlyBroken = append(out.RecentlyBroken, b)
		}
	}
	slices.SortFunc(out.Flakiest, func(a, b FlakyTest) int {
		switch {
		case a.Score.FlipRate != b.Score.FlipRate:
			return cmpDesc(a.Score.FlipRate, b.Score.FlipRate)
		case a.Score.FailureRate != b.Score.FailureRate:
			return cmpDesc(a.Score.FailureRate, b.Score.FailureRate)
		}
		return strings.Compare(a.TestID, b.TestID)
	})
	slices.SortFunc(out.Slowest, func(a, b SlowTest) int {
		if a.Mean != b.Mean {
			return cmpDesc(a.Mean, b.Mean)
		}
		return strings.Compare(a.TestID, b.TestID)
	})
	slices.SortFunc(out.RecentlyBroken, func(a, b BrokenTest) int {
		if c := b.Since.At.Compare(a.Since.At); c != 0 {
			return c
		}
		return strings.Compare(a.TestID, b.TestID)
	})
	out.Flakiest = out.Flakiest[:min(limit, len(out.Flakiest))]
	out.Slowest = out.Slowest[:min(limit, len(out.Slowest))]
	out.RecentlyBroken = out.RecentlyBroken[:min(limit, len(out.RecentlyBroken))]
}

func cmpDesc[T int | float64 | time.Duration](a, b T) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// brokenOf says whether the test of history h (oldest first) fails in the
// latest run that ran it (passed or failed) after passing in an earlier
// one, and since when.
func brokenOf(id string, h []HistoryEntry) (BrokenTest, bool) {
	b := BrokenTest{TestID: id}
	for i := len(h) - 1; i >= 0; i-- {
		switch e := h[i]; {
		case e.Outcome.Failing():
			b.Since = e
			b.Failures++
		case e.Outcome == testrun.OutcomePassed:
			if b.Failures == 0 {
				return b, false
			}
			b.LastPassed = e
			return b, true
		}
	}
	return b, false
}

// errNoHistory is returned by HistoryOf for a store without history.
var errNoHistory = errors.New("store: this store keeps no per-test history")

// HistoryOf returns the history of st, an error when it keeps none.
func HistoryOf(st any) (HistoryStore, error) {
	if h, ok := st.(HistoryStore); ok {
		return h, nil
	}
	return nil, errNoHistory
}
