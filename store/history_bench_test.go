package store

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// seedHistory writes, straight into test_history (and the failing-cases
// rows it references), the per-test rows of runs counted runs of repo in
// environment env, each of tests tests (test_00000 ...), one microsecond
// apart, their ids led by env: every 7th run fails test_00000, every
// 100th times none. It is the shape RecordRun writes, filled in one
// statement per table so that a benchmark of 10,000 runs starts in
// seconds; TestHistory reads no other table.
func seedHistory(tb testing.TB, s *sqlStore, repo, env string, runs, tests int) {
	tb.Helper()
	ctx := context.Background()
	// pad is col as zero-padded decimal text, the same on both stores.
	pad := func(col string, width int) string {
		return `substr('0000000000' || ` + col + `, -` + strconv.Itoa(width) + `)`
	}
	if s.d.name == "postgres" {
		pad = func(col string, width int) string {
			return `lpad(CAST(` + col + ` AS TEXT), ` + strconv.Itoa(width) + `, '0')`
		}
	}
	series := `WITH RECURSIVE r(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM r WHERE i + 1 < ` + strconv.Itoa(runs) + `),
		t(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM t WHERE j + 1 < ` + strconv.Itoa(tests) + `) `
	runID := `? || '-run-' || ` + pad("r.i", 6)
	for _, query := range []string{
		series + `INSERT INTO run_failing (run_id, cases) SELECT ` + runID + `, '[]' FROM r`,
		series + `INSERT INTO test_history (run_id, repository, environment, test_id, at, tree, outcome, duration_us, retried, job_id, session_ref)
			SELECT ` + runID + `, ?, ?, 'pkg::test_' || ` + pad("t.j", 5) + `, 1000000 + r.i, 'tree-' || ` + pad("r.i / 3", 6) + `,
				CASE WHEN t.j = 0 AND r.i % 7 = 0 THEN 'failed' ELSE 'passed' END,
				CASE WHEN r.i % 100 = 0 THEN NULL ELSE 1000 + t.j END, 0, 'job', ''
			FROM r, t`,
	} {
		args := []any{env}
		if strings.Contains(query, "test_history") {
			args = append(args, repo, env)
		}
		_, err := s.db.ExecContext(ctx, s.q(query), args...)
		require.NoError(tb, err)
	}
	if s.d.name == "postgres" {
		// As autovacuum does once a table has grown by this much: without
		// the visibility map a scan of the covering index still reads the
		// table's pages, and without statistics the planner guesses.
		for _, table := range []string{"run_failing", "test_history"} {
			_, err := s.db.ExecContext(ctx, `VACUUM ANALYZE `+table)
			require.NoError(tb, err)
		}
	}
}

// BenchmarkTestHistory reads one test's history over 10,000 counted runs
// of a repository in one environment whose runs hold 20 tests each
// (200,000 per-test rows), beside as many in another environment,
// through TestHistory.
func BenchmarkTestHistory(b *testing.B) {
	const runs, tests = 10000, 20
	for _, be := range backends(b) {
		b.Run(be.name, func(b *testing.B) {
			s := open(b, be.location(b), newClock()).(*sqlStore)
			seedHistory(b, s, "bench/repo", DefaultEnvironment, runs, tests)
			seedHistory(b, s, "bench/repo", "linux", runs, tests)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				got, err := s.TestHistory(ctx, HistoryQuery{Repo: "bench/repo", TestID: "pkg::test_00000"})
				if err != nil || len(got) != runs {
					b.Fatalf("%d entries, %v", len(got), err)
				}
			}
		})
	}
}
