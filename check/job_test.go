package check

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// flipScript is a check that fails c::bad on its first $FAILS runs and
// passes it after (a counter in $COUNTER, outside the tree); c::ok always
// passes.
const flipScript = `n=$(cat "$COUNTER" 2>/dev/null || echo 0)
echo $((n + 1)) > "$COUNTER"
bad=""
[ "$n" -lt "$FAILS" ] && bad='<failure message="boom"/>'
cat > "$HANGAR_TESTS_DIR/r.xml" <<X
<testsuite name="s"><testcase classname="c" name="ok"/><testcase classname="c" name="bad">$bad</testcase></testsuite>
X
[ -z "$bad" ]
`

// jobRecorder is a Job's output and its calls into the flaky list.
type jobRecorder struct {
	text    bytes.Buffer
	errs    []string
	listen  []bool
	starts  []time.Time
	summary []string
}

// flipJob is a Job of flipScript in a git repository (so that its runs
// have a tree digest), failing fails times, with run id "job", recording
// its output in rec.
func flipJob(t *testing.T, fails int) (*Job, *jobRecorder) {
	t.Helper()
	dir := t.TempDir()
	gitCmd(t, dir, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644))
	gitCmd(t, dir, "add", "-A")
	gitCmd(t, dir, "-c", "commit.gpgsign=false", "commit", "-q", "-m", "c")
	env := gitFreeEnv("HOME="+t.TempDir(), "COUNTER="+filepath.Join(t.TempDir(), "count"), "FAILS="+strconv.Itoa(fails))
	rec := &jobRecorder{}
	j := &Job{
		Options:    []Option{WithDir(dir), WithEnv(env), WithStdio(nil, nil, nil), WithRunID("job"), WithReportDir(filepath.Join(t.TempDir(), "run"))},
		Notify:     func() { rec.listen = append(rec.listen, true) },
		Stop:       func() { rec.listen = append(rec.listen, false) },
		Errors:     func(err error) { rec.errs = append(rec.errs, err.Error()) },
		Text:       &rec.text,
		EscapeLine: strings.ToUpper,
		Summary: func(r *Result, cmp *testrun.Comparison, path, prefix string) {
			if path != "" {
				path = filepath.Base(path)
			}
			rec.summary = append(rec.summary, prefix+r.Run.ID+" "+path)
		},
	}
	return j, rec
}

// withList gives j a flaky list whose Excused excuses the ids in excused.
func withList(j *Job, rec *jobRecorder, list *FlakyList, excused ...string) {
	if list.Excused == nil {
		list.Excused = func(_ context.Context, ids []string, start time.Time) (map[string]bool, error) {
			rec.starts = append(rec.starts, start)
			out := map[string]bool{}
			for _, id := range ids {
				out[id] = contains(excused, id)
			}
			return out, nil
		}
	}
	j.OpenList = func(context.Context) (*FlakyList, error) { return list, nil }
}

func contains(ids []string, id string) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func readTestResults(t *testing.T, dir string) *testrun.TestResults {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, ResultsFile))
	require.NoError(t, err)
	defer f.Close()
	tr, err := testrun.ReadTestResults(f)
	require.NoError(t, err)
	return tr
}

// TestJobRerunFlaky: a failure the flaky list excused (as it stood at the
// first run's start) is rerun once, kind rerun, in the sibling -rerun
// folder; the rerun decides, and both TEST-RESULTS.json name each other.
// A failure the list does not excuse, or no list, is not rerun, and the
// job says why.
func TestJobRerunFlaky(t *testing.T) {
	t.Run("excused, the rerun passes", func(t *testing.T) {
		j, rec := flipJob(t, 1)
		j.RerunFlaky = true
		withList(j, rec, &FlakyList{}, "c::bad")
		res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
		require.NoError(t, err)
		require.NotNil(t, res.Rerun)
		assert.Equal(t, 0, res.Code, "the rerun decides")
		assert.Equal(t, []bool{true, false, true, false}, rec.listen, "signals are listened for while each run runs")
		assert.Equal(t, []time.Time{res.First.Run.StartedAt}, rec.starts, "the list as it stood at the job's start")
		assert.Equal(t, res.First.Dir+"-rerun", res.Rerun.Dir)
		assert.Equal(t, "job-rerun", res.Rerun.Run.ID)
		assert.Equal(t, testrun.KindRerun, res.Rerun.Run.Kind)
		assert.Equal(t, []*testrun.Run{res.First.Run, res.Rerun.Run}, res.Runs)
		first := readTestResults(t, res.First.Dir)
		require.NotNil(t, first.Rerun)
		assert.Equal(t, "job-rerun", first.Rerun.ID)
		assert.Equal(t, []string{"c::bad"}, first.Rerun.Excused)
		require.NotNil(t, first.Transient)
		assert.True(t, *first.Transient)
		rerun := readTestResults(t, res.Rerun.Dir)
		require.NotNil(t, rerun.RerunOf)
		assert.Equal(t, "job", rerun.RerunOf.ID)
		assert.Equal(t, "testresults: every failure is on the flaky list (C::BAD): running the check once more\n"+
			"  the first run (JOB) was transient: the rerun passed\n", rec.text.String(), "values escaped by EscapeLine")
		assert.Equal(t, []string{"job TEST-RESULTS.json", "rerun job-rerun TEST-RESULTS.json"}, rec.summary)
		assert.Empty(t, rec.errs)
	})
	t.Run("excused, the rerun fails too", func(t *testing.T) {
		j, rec := flipJob(t, 2)
		j.RerunFlaky = true
		withList(j, rec, &FlakyList{}, "c::bad")
		res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
		require.NoError(t, err)
		require.NotNil(t, res.Rerun)
		assert.Equal(t, 1, res.Code)
		first := readTestResults(t, res.First.Dir)
		require.NotNil(t, first.Transient)
		assert.False(t, *first.Transient)
		assert.NotContains(t, rec.text.String(), "transient")
	})
	for _, tc := range []struct {
		name string
		list bool
		want string
	}{
		{"not excused", true, "  no rerun: "},
		{"no list", false, "  no rerun: THE FLAKY LIST COULD NOT BE READ\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, rec := flipJob(t, 1)
			j.RerunFlaky = true
			if tc.list {
				withList(j, rec, &FlakyList{})
			}
			res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
			require.NoError(t, err)
			assert.Nil(t, res.Rerun)
			assert.Equal(t, 1, res.Code)
			assert.Contains(t, rec.text.String(), tc.want)
			assert.Len(t, res.Runs, 1)
			_, err = os.Stat(res.First.Dir + "-rerun")
			assert.ErrorIs(t, err, os.ErrNotExist)
		})
	}
	t.Run("quiet, the list cannot be read", func(t *testing.T) {
		j, rec := flipJob(t, 1)
		j.RerunFlaky, j.Quiet = true, true
		withList(j, rec, &FlakyList{Excused: func(context.Context, []string, time.Time) (map[string]bool, error) {
			return nil, errors.New("down")
		}})
		res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
		require.NoError(t, err)
		assert.Nil(t, res.Rerun)
		assert.Equal(t, 1, res.Code)
		assert.Empty(t, rec.text.String(), "quiet")
	})
}

// TestJobBase: each run is compared with the base, the comparison written
// into its TEST-RESULTS.json; the flaky ids on the list are looked up as
// the list stood at the job's start, and a list that cannot be read only
// leaves them unmarked.
func TestJobBase(t *testing.T) {
	j, rec := flipJob(t, 0)
	base := &testrun.Run{ID: "base", Status: testrun.StatusSuccess, Complete: true,
		Cases: map[string]testrun.Outcome{"c::ok": testrun.OutcomePassed}, Counts: &testrun.Counts{Total: 1, Passed: 1}}
	j.Base, j.BaseOutput = base, []byte("base output\n")
	withList(j, rec, &FlakyList{OnList: func(_ context.Context, _ []string, start time.Time) ([]string, error) {
		rec.starts = append(rec.starts, start)
		return nil, errors.New("down")
	}})
	res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Code)
	require.NotNil(t, res.Comparison)
	assert.Equal(t, []string{"flaky list: down"}, rec.errs)
	assert.Equal(t, []time.Time{res.First.Run.StartedAt}, rec.starts)
	tr := readTestResults(t, res.First.Dir)
	require.NotNil(t, tr.Comparison, "the comparison is written")
	assert.Equal(t, "base", tr.Comparison.BaseID)
}

// TestJobExitCodes: the check's own code, ExitTimedOut for its timeout,
// ExitInternal when TEST-RESULTS.json cannot be written (the check
// replaced its report folder); a check that cannot start is a run that
// ran none of the expected tests.
func TestJobExitCodes(t *testing.T) {
	run := func(t *testing.T, script string, opts ...Option) (*JobResult, *jobRecorder) {
		j, rec := flipJob(t, 0)
		j.Options = append(j.Options, opts...)
		j.Expected = []string{"c::ok", "c::never"}
		res, err := j.Run(context.Background(), []string{"sh", "-c", script})
		require.NoError(t, err)
		return res, rec
	}
	res, _ := run(t, flipScript+"exit 7")
	assert.Equal(t, 7, res.Code)
	require.NotNil(t, res.First.Run.NotRun)
	assert.Equal(t, []string{"c::never"}, res.First.Run.NotRun.IDs, "checked by the reports read")

	res, _ = run(t, "sleep 30", WithTimeout(200*time.Millisecond), WithKillAfter(200*time.Millisecond))
	assert.Equal(t, ExitTimedOut, res.Code)

	res, rec := run(t, `mv "$HANGAR_TESTS_DIR" "$HANGAR_TESTS_DIR.moved" && mkdir "$HANGAR_TESTS_DIR"`)
	assert.Equal(t, ExitInternal, res.Code)
	require.Len(t, rec.errs, 1)
	assert.Contains(t, rec.errs[0], ErrReplaced.Error())
	assert.Equal(t, []string{"job "}, rec.summary, "no path for a file not written")

	j, rec := flipJob(t, 0)
	j.Expected = []string{"c::ok"}
	res, err := j.Run(context.Background(), []string{"no-such-command-for-a-job"})
	require.NoError(t, err)
	assert.Equal(t, ExitNotFound, res.Code)
	require.Len(t, rec.errs, 1, "the start error is said")
	require.NotNil(t, res.First.Run.NotRun, "a check that could not start ran none of them")
	assert.Equal(t, []string{"c::ok"}, res.First.Run.NotRun.IDs)

	j, _ = flipJob(t, 0)
	j.Options = append(j.Options, WithEnv(gitFreeEnv(EnvReports+"=bogus")))
	res, err = j.Run(context.Background(), []string{"true"})
	assert.Nil(t, res)
	assert.ErrorIs(t, err, ErrMode, "nothing ran: no result")
}

// TestJobRerunBudget: a failed check is rerun on the same tree until it
// passes, within the budget, each rerun in FOLDER-rerun-N naming the first
// run; the runs are recorded on the flaky list, and the exit code stays
// the first run's.
func TestJobRerunBudget(t *testing.T) {
	j, rec := flipJob(t, 2)
	j.RerunBudget = 3
	var recorded []string
	withList(j, rec, &FlakyList{Record: func(_ context.Context, r *testrun.Run) ([]string, error) {
		recorded = append(recorded, r.ID)
		if r.ID == "job-rerun-2" {
			return []string{"c::bad"}, nil
		}
		return nil, nil
	}})
	res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Code, "a rerun that passed excuses nothing in this job")
	require.NotNil(t, res.Budget)
	assert.Equal(t, testrun.RerunFlaky, res.Budget.Verdict)
	require.Len(t, res.Budget.Reruns, 2)
	assert.Equal(t, []string{"job", "job-rerun-1", "job-rerun-2"}, recorded)
	require.Len(t, res.Runs, 3)
	assert.Equal(t, "job-rerun-2", res.Runs[2].ID)
	for i, r := range res.Budget.Reruns {
		assert.Equal(t, res.First.Dir+"-rerun-"+strconv.Itoa(i+1), r.Dir)
		tr := readTestResults(t, r.Dir)
		require.NotNil(t, tr.RerunOf)
		assert.Equal(t, "job", tr.RerunOf.ID)
	}
	assert.Equal(t, []bool{true, false, true, false}, rec.listen, "the first run, then the budget's reruns")
	assert.Contains(t, rec.text.String(), "rerun budget 3 (the whole check): ")
	assert.Contains(t, rec.text.String(), "  on the flaky list from run job-rerun-2: c::bad\n")

	t.Run("a store that fails stops recording", func(t *testing.T) {
		j, rec := flipJob(t, 1)
		j.RerunBudget, j.Quiet = 1, true
		calls := 0
		withList(j, rec, &FlakyList{Record: func(context.Context, *testrun.Run) ([]string, error) {
			calls++
			if calls == 1 {
				return nil, testrun.ErrNotRecordable
			}
			return nil, errors.New("down")
		}})
		res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
		require.NoError(t, err)
		assert.Equal(t, 1, res.Code)
		assert.Equal(t, 2, calls, "a run not recordable is skipped")
		assert.Equal(t, []string{"flaky list: " + testrun.ErrNotRecordable.Error(), "flaky list: down"}, rec.errs)
		assert.Empty(t, rec.text.String(), "quiet")
	})
	t.Run("a pass runs no budget", func(t *testing.T) {
		j, _ := flipJob(t, 0)
		j.RerunBudget = 3
		res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
		require.NoError(t, err)
		assert.Nil(t, res.Budget)
		assert.Len(t, res.Runs, 1)
	})
}

// TestJobQuarantine: a check that failed only by tests quarantined before
// the job started exits 0; an entry made after its start, or no
// quarantine to read, leaves the check's code.
func TestJobQuarantine(t *testing.T) {
	lookup := func(created time.Time, got *[]string) func(context.Context, []string) ([]testrun.QuarantineEntry, error) {
		return func(_ context.Context, ids []string) ([]testrun.QuarantineEntry, error) {
			*got = ids
			return []testrun.QuarantineEntry{{Repository: "r", TestID: "c::bad", Owner: "o", Reason: "why",
				Created: created, Expires: created.Add(48 * time.Hour)}}, nil
		}
	}
	var asked []string
	j, rec := flipJob(t, 1)
	j.Quarantine = true
	withList(j, rec, &FlakyList{Environment: "default", Quarantine: lookup(time.Now().Add(-time.Hour), &asked)})
	res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Equal(t, 0, res.Code)
	assert.Equal(t, []string{"c::bad"}, asked)
	require.NotNil(t, res.Quarantined)
	assert.True(t, res.Quarantined.Passes)
	assert.Contains(t, rec.text.String(), "every failure is quarantined: exit 0 (the check exited 1)")

	j, rec = flipJob(t, 1)
	j.Quarantine = true
	withList(j, rec, &FlakyList{Environment: "default", Quarantine: lookup(time.Now().Add(time.Hour), &asked)})
	res, err = j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Code, "an entry made after the job started excuses nothing in it")
	assert.False(t, res.Quarantined.Passes)

	j, rec = flipJob(t, 1)
	j.Quarantine = true
	res, err = j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Code)
	assert.Nil(t, res.Quarantined)
	assert.Equal(t, []string{"quarantine: the store could not be read"}, rec.errs)
}

// TestJobRerunFlakyBase: with a base, the flaky list is asked about the
// new failures only (a failure the base shared is no reason to rerun), and
// the rerun is compared with the base too.
func TestJobRerunFlakyBase(t *testing.T) {
	base := func(bad testrun.Outcome) *testrun.Run {
		return &testrun.Run{ID: "base", Kind: testrun.KindBase, Status: testrun.StatusFailure, Complete: true,
			Cases:  map[string]testrun.Outcome{"c::ok": testrun.OutcomePassed, "c::bad": bad},
			Counts: &testrun.Counts{Total: 2, Passed: 1, Failed: 1}}
	}
	j, rec := flipJob(t, 1)
	j.RerunFlaky, j.Base = true, base(testrun.OutcomeFailed)
	withList(j, rec, &FlakyList{}, "c::bad")
	res, err := j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	assert.Nil(t, res.Rerun)
	assert.Equal(t, 1, res.Code)
	assert.Empty(t, rec.starts, "no new failure: the list is not asked")
	assert.Equal(t, "  no rerun: NO NEW FAILURE (THE BASE FAILED THE SAME WAY)\n", rec.text.String())

	j, rec = flipJob(t, 1)
	b := base(testrun.OutcomePassed)
	b.Status, b.Counts = testrun.StatusSuccess, &testrun.Counts{Total: 2, Passed: 2}
	j.RerunFlaky, j.Base = true, b
	withList(j, rec, &FlakyList{}, "c::bad")
	res, err = j.Run(context.Background(), []string{"sh", "-c", flipScript})
	require.NoError(t, err)
	require.NotNil(t, res.Rerun)
	assert.Equal(t, 0, res.Code)
	rerun := readTestResults(t, res.Rerun.Dir)
	require.NotNil(t, rerun.Comparison, "the rerun is compared with the base too")
	assert.Equal(t, "base", rerun.Comparison.BaseID)
	first := readTestResults(t, res.First.Dir)
	require.NotNil(t, first.Comparison, "the first run's rewrite keeps its comparison")
	assert.Len(t, first.Comparison.NewFailures, 1)
}

// TestJobCheck: every setting a job cannot run with is refused before
// anything starts, in the words of run's flags; the settings run gives by
// default pass.
func TestJobCheck(t *testing.T) {
	ok := JobSettings{KillAfter: DefaultKillAfter}
	listed := JobSettings{KillAfter: DefaultKillAfter, Listed: true}
	for _, tc := range []struct {
		name string
		job  Job
		s    JobSettings
		want string
	}{
		{"defaults", Job{}, ok, ""},
		{"every setting", Job{RerunFlaky: true, Quarantine: true}, JobSettings{RunID: "r-1.a_b", Timeout: time.Minute, KillAfter: time.Second, Listed: true}, ""},
		{"budget at its bound", Job{RerunBudget: MaxRerunBudget, Quarantine: true}, listed, ""},
		{"run id with a slash", Job{}, JobSettings{RunID: "a/b", KillAfter: time.Second}, `--run-id "a/b" cannot name a folder`},
		{"run id too long", Job{}, JobSettings{RunID: strings.Repeat("a", testrun.MaxIDLength+1), KillAfter: time.Second}, "cannot name a folder"},
		{"negative timeout", Job{}, JobSettings{Timeout: -time.Second, KillAfter: time.Second}, "--timeout -1s is negative"},
		{"no kill delay", Job{}, JobSettings{}, "--kill-after 0s: want a positive duration"},
		{"rerun without a list", Job{RerunFlaky: true}, ok, "--rerun-flaky needs --repo"},
		{"quarantine without a list", Job{Quarantine: true}, ok, "--quarantine needs --repo"},
		{"negative budget", Job{RerunBudget: -1}, listed, "--rerun-budget -1: want 0 to 10"},
		{"budget over its bound", Job{RerunBudget: MaxRerunBudget + 1}, listed, "--rerun-budget 11: want 0 to 10"},
		{"budget and rerun", Job{RerunBudget: 1, RerunFlaky: true}, listed, "--rerun-budget and --rerun-flaky: give one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.job.Check(tc.s)
			if tc.want == "" {
				assert.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
