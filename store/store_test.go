package store

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/testrun"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

type backend struct {
	name string
	// location returns a fresh, empty store location.
	location func(t testing.TB) string
}

// backends are the databases every test runs against. PostgreSQL is
// skipped when teststore.PostgresURLEnv is unset, except under CI=true,
// where its absence fails.
func backends(testing.TB) []backend {
	return []backend{
		{"sqlite", teststore.SQLiteLocation},
		{"postgres", teststore.PostgresLocation},
	}
}

func forEach(t *testing.T, fn func(t *testing.T, b backend)) {
	for _, b := range backends(t) {
		t.Run(b.name, func(t *testing.T) { fn(t, b) })
	}
}

func open(t testing.TB, location string, c *clock) Store {
	t.Helper()
	s, err := Open(context.Background(), location, WithClock(c.Now))
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

// run builds a complete trusted run on tree with the given outcomes.
func run(id, tree string, kind testrun.Kind, outcomes map[string]testrun.Outcome, flaky ...string) *testrun.Run {
	b := testrun.NewBuilder()
	var execs []testrun.Execution
	for tid, o := range outcomes {
		// Each case states a time: its id's length in milliseconds.
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: o, Duration: time.Duration(len(tid)) * time.Millisecond, Timed: true})
	}
	for _, tid := range flaky {
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true})
	}
	n := len(execs)
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID, r.Tree, r.Kind = id, tree, kind
	return r
}

const (
	pass = testrun.OutcomePassed
	fail = testrun.OutcomeFailed
)

func TestRecordRunnerRetry(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		got, err := s.Record(ctx, "acme/api", "linux", run("r1", "tree1", testrun.KindBase, map[string]testrun.Outcome{"ok": pass}, "retried"))
		require.NoError(t, err)
		assert.Equal(t, map[string][]testrun.FlakyHow{"retried": {testrun.FlakyRunnerRetry}}, got.Flaky)
		assert.Equal(t, 2, got.Observed)

		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		e := list[0]
		assert.Equal(t, "acme/api", e.Repository)
		assert.Equal(t, "linux", e.Environment)
		assert.Equal(t, "retried", e.TestID)
		assert.Equal(t, c.Now(), e.FirstSeen)
		assert.Equal(t, c.Now(), e.LastSeen)
		assert.Equal(t, []testrun.FlakyHow{testrun.FlakyRunnerRetry}, e.How)
		assert.Equal(t, int64(1), e.Sightings)
		require.Len(t, e.Seen, 1)
		assert.Equal(t, []string{"r1"}, e.Seen[0].Runs)
	})
}

func TestRecordSameTree(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		rec := func(repo, env, id, tree string, kind testrun.Kind, o testrun.Outcome) Recorded {
			t.Helper()
			got, err := s.Record(ctx, repo, env, run(id, tree, kind, map[string]testrun.Outcome{"t": o, "steady": pass}))
			if kind == testrun.KindGate {
				require.ErrorIs(t, err, testrun.ErrNotRecordable)
				return got
			}
			require.NoError(t, err)
			return got
		}
		assert.Empty(t, rec("acme/api", "linux", "a", "X", testrun.KindBase, pass).Flaky)
		assert.Empty(t, rec("acme/api", "linux", "b", "Y", testrun.KindRerun, fail).Flaky, "another tree")
		assert.Empty(t, rec("acme/api", "mac", "c", "X", testrun.KindRerun, fail).Flaky, "another environment")
		assert.Empty(t, rec("acme/web", "linux", "d", "X", testrun.KindRerun, fail).Flaky, "another repository")
		rec("acme/api", "linux", "g", "X", testrun.KindGate, fail)
		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		assert.Empty(t, list, "a gate run never adds")

		c.Advance(time.Hour)
		got := rec("acme/api", "linux", "e", "X", testrun.KindRerun, fail)
		assert.Equal(t, map[string][]testrun.FlakyHow{"t": {testrun.FlakySameTree}}, got.Flaky)
		list, err = s.List(ctx, Filter{Repository: "acme/api", Environment: "linux"})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "t", list[0].TestID)
		assert.Equal(t, []string{"a", "e"}, list[0].Seen[0].Runs, "the run that passed and the run that failed")
		assert.Equal(t, []testrun.FlakyHow{testrun.FlakySameTree}, list[0].How)

		again, err := s.Record(ctx, "acme/api", "linux", run("e", "X", testrun.KindRerun, map[string]testrun.Outcome{"t": fail}))
		require.NoError(t, err)
		assert.Empty(t, again.Flaky, "a run recorded again adds nothing")
		list, err = s.List(ctx, Filter{})
		require.NoError(t, err)
		assert.Equal(t, int64(1), list[0].Sightings)

		none, err := s.List(ctx, Filter{Repository: "acme/web"})
		require.NoError(t, err)
		assert.Empty(t, none)
	})
}

func TestExpiryAndExcused(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "r", "e", run("r1", "X", testrun.KindBase, nil, "old"))
		require.NoError(t, err)

		jobStart := c.Now().Add(time.Minute)
		c.Advance(2 * time.Minute) // inside the job
		_, err = s.Record(ctx, "r", "e", run("r2", "X", testrun.KindRerun, nil, "new", "old"))
		require.NoError(t, err)

		got, err := s.Lookup(ctx, "r", "e", []string{"old", "new", "absent"})
		require.NoError(t, err)
		require.Len(t, got, 2)
		assert.True(t, got["old"].Excused(jobStart), "on the list before the job started")
		ex, err := Excused(ctx, s, "r", "e", []string{"old", "new", "absent"}, jobStart)
		require.NoError(t, err)
		assert.Equal(t, map[string]bool{"old": true, "new": false, "absent": false}, ex)
		assert.False(t, got["new"].Excused(jobStart), "added by the job's own run")
		_, ok := got["absent"]
		assert.False(t, ok)

		c.Advance(testrun.FlakyTTL + time.Hour)
		list, err := s.List(ctx, Filter{})
		require.NoError(t, err)
		assert.Empty(t, list, "expired 30 days after last seen")
		got, err = s.Lookup(ctx, "r", "e", []string{"old"})
		require.NoError(t, err)
		assert.False(t, got["old"].Excused(c.Now()), "an expired entry excuses nothing")

		// Seen again after it expired: a fresh entry, first seen now.
		_, err = s.Record(ctx, "r", "e", run("r3", "X", testrun.KindRerun, nil, "old"))
		require.NoError(t, err)
		got, err = s.Lookup(ctx, "r", "e", []string{"old"})
		require.NoError(t, err)
		assert.Equal(t, c.Now(), got["old"].FirstSeen)
		assert.Equal(t, int64(1), got["old"].Sightings)

		n, err := s.Prune(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(1), n, "new expired; old was seen again")
		list, err = s.List(ctx, Filter{})
		require.NoError(t, err)
		require.Len(t, list, 1)
		assert.Equal(t, "old", list[0].TestID)
	})
}

func TestSummary(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		rec := func(repo, env, id string, flaky ...string) {
			t.Helper()
			_, err := s.Record(ctx, repo, env, run(id, "T", testrun.KindBase, nil, flaky...))
			require.NoError(t, err)
			c.Advance(time.Second)
		}
		rec("b/many", "linux", "1", "x", "y", "z")
		rec("b/many", "mac", "2", "y")
		rec("b/many", "linux", "3", "y")
		rec("a/one", "linux", "4", "only")
		rec("c/two", "linux", "5", "p", "q")
		rec("c/two", "linux", "6", "q")
		sum, err := s.Summary(ctx, 10)
		require.NoError(t, err)
		require.Len(t, sum, 3)
		assert.Equal(t, "b/many", sum[0].Repository)
		assert.Equal(t, int64(4), sum[0].Tests, "x, y, z on linux and y on mac")
		assert.Equal(t, "y", sum[0].Worst.TestID)
		assert.Equal(t, "linux", sum[0].Worst.Environment, "two sightings")
		assert.Equal(t, "c/two", sum[1].Repository)
		assert.Equal(t, "q", sum[1].Worst.TestID)
		assert.Equal(t, "a/one", sum[2].Repository)

		// The database's order is testrun.Worse.
		all, err := s.List(ctx, Filter{Repository: "b/many"})
		require.NoError(t, err)
		worst := all[0]
		for _, e := range all[1:] {
			if testrun.Worse(e, worst) {
				worst = e
			}
		}
		assert.Equal(t, worst.TestID, sum[0].Worst.TestID)

		top, err := s.Summary(ctx, 1)
		require.NoError(t, err)
		assert.Len(t, top, 1)
	})
}

func TestMigrations(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		loc := b.location(t)
		c := newClock()
		s := open(t, loc, c)
		db := s.(*sqlStore).db
		var versions []int
		rows, err := db.Query(`SELECT version FROM schema_migrations ORDER BY version`)
		require.NoError(t, err)
		for rows.Next() {
			var v int
			require.NoError(t, rows.Scan(&v))
			versions = append(versions, v)
		}
		require.NoError(t, rows.Close())
		assert.Equal(t, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14}, versions)
		assert.Equal(t, 14, SchemaVersion)

		// Opening again applies nothing twice.
		s2 := open(t, loc, c)
		require.NoError(t, s2.Close())

		// A database written by a newer program is refused.
		_, err = db.Exec(s.(*sqlStore).q(`INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`), 99, 0)
		require.NoError(t, err)
		_, err = Open(context.Background(), loc, WithClock(c.Now))
		assert.ErrorContains(t, err, fmt.Sprintf("schema version 99, newer than this program's %d", SchemaVersion))
	})
}

// withSchema stops the migrations at version v, to build a store as an
// older version wrote it.
func withSchema(v int) Option {
	return optionFunc(func(c config) config {
		c.schema = v
		return c
	})
}

// TestMigrationsCarryRuns: runs stored at schema version 2 (before case
// durations, when a run had one job and one session) read back at the
// newest version, with their cases and no durations, listed by their job
// and session with their turn; one can then be recorded for another job
// too, and retention counts from when they were recorded.
func TestMigrationsCarryRuns(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		loc := b.location(t)
		c := newClock()
		ctx := context.Background()
		old, err := Open(ctx, loc, WithClock(c.Now), withSchema(2))
		require.NoError(t, err)
		ss := old.(*sqlStore)
		three := 3
		for i, sr := range []StoredRun{
			{Run: run("v2a", "t", testrun.KindBase, map[string]testrun.Outcome{"a": pass}), Repo: "acme/api", JobID: "j"},
			{Run: run("v2b", "t", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": fail}), Repo: "acme/api", JobID: "j", SessionRef: "s", Turn: &three},
		} {
			bare := *sr.Run
			bare.Cases, bare.Durations = nil, nil
			runJSON, err := json.Marshal(bare)
			require.NoError(t, err)
			cases, err := json.Marshal(sr.Run.Cases)
			require.NoError(t, err)
			var turn any
			if sr.Turn != nil {
				turn = *sr.Turn
			}
			cn := sr.Run.Counts
			_, err = ss.db.Exec(ss.q(`INSERT INTO runs (run_id, kind, repository, job_id, session_ref, turn,
				started_at, ended_at, recorded_at, seq, counted, total, passed, failed, errors, skipped, flaky, run_json, cases_json)
				VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, ?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?)`),
				sr.Run.ID, string(sr.Run.Kind), sr.Repo, sr.JobID, sr.SessionRef, turn, c.Now().UnixMicro(), i+1,
				cn.Total, cn.Passed, cn.Failed, cn.Errors, cn.Skipped, cn.Flaky, string(runJSON), string(cases))
			require.NoError(t, err)
		}
		require.NoError(t, old.Close())

		c.Advance(time.Hour)
		s := open(t, loc, c)
		got, err := s.Run(ctx, "v2a")
		require.NoError(t, err)
		assert.Equal(t, map[string]testrun.Outcome{"a": pass}, got.Run.Cases)
		assert.Nil(t, got.Run.Durations)

		runs, err := s.JobRuns(ctx, "j")
		require.NoError(t, err)
		require.Len(t, runs, 2)
		assert.Equal(t, "v2a", runs[0].Run.ID)
		assert.Equal(t, "v2b", runs[1].Run.ID)
		assert.Equal(t, c.Now().Add(-time.Hour), runs[1].RecordedAt)
		sess, err := s.SessionRuns(ctx, "s")
		require.NoError(t, err)
		require.Len(t, sess, 1)
		require.NotNil(t, sess[0].Turn)
		assert.Equal(t, 3, *sess[0].Turn)
		assert.Nil(t, runs[0].Turn)

		// Recorded again (as it read back) for another job.
		added, err := s.RecordRun(ctx, StoredRun{Run: got.Run, Repo: "acme/api", JobID: "k"})
		require.NoError(t, err)
		assert.True(t, added)
		k, err := s.JobRuns(ctx, "k")
		require.NoError(t, err)
		require.Len(t, k, 1)
		assert.Equal(t, "v2a", k[0].Run.ID)
		// Another run under a carried-over id is refused.
		_, err = s.RecordRun(ctx, StoredRun{Run: run("v2b", "t", testrun.KindBase, map[string]testrun.Outcome{"a": fail}), Repo: "acme/api", JobID: "k"})
		require.ErrorIs(t, err, ErrRunConflict)

		c.Advance(RunTTL)
		p, err := s.PruneRuns(ctx, c.Now())
		require.NoError(t, err)
		assert.Equal(t, PrunedRuns{Runs: 1}, p, "v2b recorded 14 days ago goes; v2a, a base run recorded again since, stays whole")
		_, err = s.Run(ctx, "v2b")
		require.ErrorIs(t, err, ErrNotFound)
		got, err = s.Run(ctx, "v2a")
		require.NoError(t, err)
		assert.True(t, got.HasCases)
	})
}

// TestConcurrentWriters records runs from many goroutines at once: every
// sighting must be counted and every run recorded.
func TestConcurrentWriters(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		loc := b.location(t)
		s := open(t, loc, c)
		const writers, each = 8, 5
		var wg sync.WaitGroup
		errs := make(chan error, writers*each)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// Each writer has its own handle, as separate processes would.
				ws, err := Open(context.Background(), loc, WithClock(c.Now))
				if err != nil {
					errs <- err
					return
				}
				defer ws.Close()
				for i := range each {
					id := fmt.Sprintf("w%d-%d", w, i)
					o := pass
					if (w+i)%2 == 1 {
						o = fail
					}
					_, err := ws.Record(context.Background(), "r", "e",
						run(id, "X", testrun.KindRerun, map[string]testrun.Outcome{"flip": o}, "shared", "own-"+id))
					errs <- err
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		list, err := s.List(context.Background(), Filter{})
		require.NoError(t, err)
		byID := map[string]testrun.FlakyEntry{}
		for _, e := range list {
			byID[e.TestID] = e
		}
		assert.Len(t, byID, writers*each+2, "every own-* entry, shared and flip")
		assert.Equal(t, int64(writers*each), byID["shared"].Sightings, "no sighting lost")
		assert.Len(t, byID["shared"].Seen, testrun.MaxFlakySeen)
		// flip is sighted once: by the run that made its first pass and
		// first failure a pair; the runs after it show the same evidence.
		assert.Equal(t, int64(1), byID["flip"].Sightings)
		var n int
		require.NoError(t, s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM recorded_runs`).Scan(&n))
		assert.Equal(t, writers*each, n)
	})
}

// helperEnv makes the test binary a writer process (TestHelperWriter).
const helperEnv = "TESTRESULTS_STORE_HELPER"

// TestHelperWriter is not a test: run by TestTwoProcesses in a child
// process, it records runs into the SQLite file the environment names.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("runs only as the child of TestTwoProcesses")
	}
	who := os.Getenv(helperEnv + "_WHO")
	n, err := strconv.Atoi(os.Getenv(helperEnv + "_N"))
	require.NoError(t, err)
	s, err := Open(context.Background(), path)
	require.NoError(t, err)
	defer s.Close()
	for i := range n {
		id := fmt.Sprintf("%s-%d", who, i)
		_, err := s.Record(context.Background(), "r", "e", run(id, "X", testrun.KindRerun, nil, "shared", "own-"+id))
		require.NoError(t, err)
	}
}

func TestTwoProcesses(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		t.Skip("in a child")
	}
	path := filepath.Join(t.TempDir(), "store.db")
	const n = 40
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var cmds []*exec.Cmd
	outs := make([]*bytes.Buffer, 0, 2)
	for _, who := range []string{"p1", "p2"} {
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), helperEnv+"="+path, helperEnv+"_WHO="+who, helperEnv+"_N="+strconv.Itoa(n))
		out := new(bytes.Buffer)
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			var ee *exec.ExitError
			require.False(t, errors.As(err, &ee) && ee.ExitCode() != 0, "a writer process failed: %v\n%s", err, outs[i])
			require.NoError(t, err)
		}
	}
	s := open(t, path, newClock())
	got, err := s.Lookup(context.Background(), "r", "e", []string{"shared"})
	require.NoError(t, err)
	assert.Equal(t, int64(2*n), got["shared"].Sightings, "two processes, nothing lost")
	var rows int
	require.NoError(t, s.(*sqlStore).db.QueryRow(`SELECT COUNT(*) FROM flaky_entries`).Scan(&rows))
	assert.Equal(t, 2*n+1, rows)
}

func TestOpenLocations(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		loc string
		err error
	}{
		{"", ErrUnsupported},
		{"mysql://u:secret@h/db", ErrUnsupported},
		{filepath.Join(dir, "a?b.db"), ErrUnsupported},
	} {
		_, err := Open(context.Background(), tc.loc)
		assert.ErrorIs(t, err, tc.err, tc.loc)
		if err != nil {
			assert.NotContains(t, err.Error(), "secret")
		}
	}
	s, err := Open(context.Background(), "sqlite:"+filepath.Join(dir, "nested", "x.db"))
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assert.FileExists(t, filepath.Join(dir, "nested", "x.db"))
	assert.Equal(t, filepath.Join("/home/u", ".hangar", "store.db"), DefaultPath("/home/u"))
	assert.True(t, IsPostgres("postgresql://x"))
	assert.False(t, IsPostgres("/tmp/x.db"))
}

func TestPruneTreeHistory(t *testing.T) {
	forEach(t, func(t *testing.T, b backend) {
		c := newClock()
		s := open(t, b.location(t), c)
		ctx := context.Background()
		_, err := s.Record(ctx, "r", "e", run("old-pass", "X", testrun.KindBase, map[string]testrun.Outcome{"t": pass}))
		require.NoError(t, err)
		_, err = s.Record(ctx, "r", "e", run("keep-pass", "Y", testrun.KindBase, map[string]testrun.Outcome{"t": pass}))
		require.NoError(t, err)
		c.Advance(testrun.FlakyTTL / 2)
		_, err = s.Record(ctx, "r", "e", run("y-again", "Y", testrun.KindBase, map[string]testrun.Outcome{"u": pass}))
		require.NoError(t, err)
		c.Advance(testrun.FlakyTTL/2 + time.Hour)
		_, err = s.Prune(ctx)
		require.NoError(t, err)

		got, err := s.Record(ctx, "r", "e", run("x-fail", "X", testrun.KindRerun, map[string]testrun.Outcome{"t": fail}))
		require.NoError(t, err)
		assert.Empty(t, got.Flaky, "tree X's history expired with it")
		got, err = s.Record(ctx, "r", "e", run("y-fail", "Y", testrun.KindRerun, map[string]testrun.Outcome{"t": fail}))
		require.NoError(t, err)
		assert.Equal(t, map[string][]testrun.FlakyHow{"t": {testrun.FlakySameTree}}, got.Flaky, "tree Y was recorded on recently")
	})
}
