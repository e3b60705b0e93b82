package testrun

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var t0 = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

func TestCheckRecordable(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kind  Kind
		grade string
		id    string
		ok    bool
	}{
		{"base", KindBase, "", "r", true},
		{"rerun", KindRerun, "", "r", true},
		{"isolated grader", KindGrader, GradeIsolated, "r", true},
		{"gate never adds", KindGate, "", "r", false},
		{"grader below isolated", KindGrader, "container", "r", false},
		{"unknown kind", "", "", "r", false},
		{"no id", KindBase, "", "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckRecordable(&Run{ID: tc.id, Kind: tc.kind, Grade: tc.grade, Complete: true, Counts: &Counts{Total: 2, Passed: 1, Failed: 1}})
			if tc.ok {
				assert.NoError(t, err)
				return
			}
			assert.True(t, errors.Is(err, ErrNotRecordable), "%v", err)
		})
	}
	assert.True(t, errors.Is(CheckRecordable(nil), ErrNotRecordable))
	// A trusted run that is not counted: incomplete (a report it could not
	// read may hold failures of tests it reads as passed), or no test ran.
	incomplete := &Run{ID: "r", Kind: KindBase, Complete: false, IncompleteReasons: []string{"report cut short"}, Counts: &Counts{Total: 2, Passed: 2}}
	assert.ErrorIs(t, CheckRecordable(incomplete), ErrNotRecordable)
	assert.ErrorIs(t, CheckRecordable(&Run{ID: "r", Kind: KindBase, Complete: true, Counts: &Counts{}}), ErrNotRecordable)
	assert.ErrorIs(t, CheckRecordable(&Run{ID: "r", Kind: KindBase, Complete: true}), ErrNotRecordable)
}

func TestFlakyEntryAdd(t *testing.T) {
	e := FlakyEntry{Repository: "r", Environment: "e", TestID: "t"}
	e.Add(FlakySeen{How: FlakySameTree, Runs: []string{"a", "b"}, At: t0.Add(time.Hour)})
	e.Add(FlakySeen{How: FlakyRunnerRetry, Runs: []string{"c"}, At: t0})
	assert.Equal(t, t0, e.FirstSeen, "first seen is the earliest")
	assert.Equal(t, t0.Add(time.Hour), e.LastSeen)
	assert.Equal(t, []FlakyHow{FlakyRunnerRetry, FlakySameTree}, e.How)
	assert.Equal(t, int64(2), e.Sightings)
	assert.Equal(t, []string{"c"}, e.Seen[0].Runs, "kept in time order")

	for i := range MaxFlakySeen + 5 {
		e.Add(FlakySeen{How: FlakyRunnerRetry, Runs: []string{fmt.Sprint(i)}, At: t0.Add(time.Duration(i+2) * time.Hour)})
	}
	assert.Len(t, e.Seen, MaxFlakySeen, "bounded")
	assert.Equal(t, []string{fmt.Sprint(MaxFlakySeen + 4)}, e.Seen[MaxFlakySeen-1].Runs, "the most recent kept")
	assert.Equal(t, int64(MaxFlakySeen+7), e.Sightings, "every sighting counted")

	t.Run("an expired entry starts afresh", func(t *testing.T) {
		old := e
		later := e.LastSeen.Add(FlakyTTL + time.Second)
		old.Add(FlakySeen{How: FlakySameTree, Runs: []string{"z"}, At: later})
		assert.Equal(t, later, old.FirstSeen)
		assert.Equal(t, int64(1), old.Sightings)
		assert.Equal(t, []FlakyHow{FlakySameTree}, old.How)
		assert.Equal(t, "t", old.TestID)
	})
}

func TestFlakyExpiredAndExcused(t *testing.T) {
	e := FlakyEntry{TestID: "t"}
	e.Add(FlakySeen{How: FlakyRunnerRetry, At: t0})
	assert.False(t, e.Expired(t0.Add(FlakyTTL)), "30 days after last seen it is still on")
	assert.True(t, e.Expired(t0.Add(FlakyTTL+time.Nanosecond)))

	for _, tc := range []struct {
		name     string
		jobStart time.Time
		want     bool
	}{
		{"job started after the entry", t0.Add(time.Minute), true},
		{"job started at the same instant", t0, false},
		{"job started before the entry", t0.Add(-time.Minute), false},
		{"entry expired by the job's start", t0.Add(FlakyTTL + time.Hour), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, e.Excused(tc.jobStart))
		})
	}
	t.Run("re-seen during the job: only the sighting before counts", func(t *testing.T) {
		f := e
		jobStart := t0.Add(FlakyTTL - time.Hour)
		f.Add(FlakySeen{How: FlakyRunnerRetry, At: jobStart.Add(time.Minute)})
		assert.True(t, f.Excused(jobStart))
		g := e
		late := t0.Add(FlakyTTL + time.Hour)
		g.Add(FlakySeen{How: FlakyRunnerRetry, At: late.Add(time.Minute)})
		assert.False(t, g.Excused(late), "expired before the job; the job's own sighting does not count")
	})
}

func TestTreeObservationsAndSightings(t *testing.T) {
	r := buildRun(t,
		exec("s", "p", OutcomePassed, ""),
		exec("s", "f", OutcomeFailed, "x"),
		exec("s", "e", OutcomeError, "x"),
		exec("s", "k", OutcomeSkipped, ""),
		Execution{ID: "retried", Scope: "s", Outcome: OutcomePassed, RunnerFlaky: true},
	)
	r.ID = "run"
	assert.Nil(t, TreeObservations(r), "no tree: nothing to compare on")
	r.Tree = "tree"
	assert.Equal(t, []TreeObservation{
		{TestID: "e", Failed: true},
		{TestID: "f", Failed: true},
		{TestID: "p", Passed: true},
		{TestID: "retried", Passed: true},
	}, TreeObservations(r))

	got := RunSightings(r, map[string]TreeHistory{
		"p": {PassedRun: "run", FailedRun: "earlier"},
		"f": {FailedRun: "run"},
	}, t0)
	assert.Equal(t, map[string][]FlakySeen{
		"retried": {{How: FlakyRunnerRetry, Runs: []string{"run"}, At: t0}},
		"p":       {{How: FlakySameTree, Runs: []string{"run", "earlier"}, At: t0}},
	}, got)
}

func TestTransient(t *testing.T) {
	r := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""))
	on := func(ids ...string) func(string) bool {
		return func(id string) bool {
			for _, x := range ids {
				if x == id {
					return true
				}
			}
			return false
		}
	}
	assert.True(t, Transient(r, on("a", "b")), "every failure on the list")
	assert.False(t, Transient(r, on("a")), "one failure not on the list")
	ok := buildRun(t, exec("s", "c", OutcomePassed, ""))
	assert.False(t, Transient(ok, on("c")), "no failure: not a failed check")
	inc := buildRun(t, exec("s", "a", OutcomeFailed, ""))
	inc.Complete = false
	assert.False(t, Transient(inc, on("a")), "failures not known whole")
}

func TestWorse(t *testing.T) {
	a := FlakyEntry{TestID: "a", Sightings: 3, LastSeen: t0}
	b := FlakyEntry{TestID: "b", Sightings: 2, LastSeen: t0.Add(time.Hour)}
	c := FlakyEntry{TestID: "c", Sightings: 3, LastSeen: t0.Add(time.Hour)}
	assert.True(t, Worse(a, b), "more sightings")
	assert.True(t, Worse(c, a), "then later seen")
	d := a
	d.TestID = "d"
	assert.True(t, Worse(a, d), "then by id")
	require.False(t, Worse(a, a))
}

func TestTreeHistoryWith(t *testing.T) {
	var h TreeHistory
	h = h.With(TreeObservation{TestID: "t", Passed: true}, "a")
	h = h.With(TreeObservation{TestID: "t", Passed: true}, "b")
	assert.Equal(t, TreeHistory{PassedRun: "a"}, h, "the first passing run is kept")
	assert.False(t, h.Flipped())
	h = h.With(TreeObservation{TestID: "t", Failed: true}, "c")
	assert.Equal(t, TreeHistory{PassedRun: "a", FailedRun: "c"}, h)
	assert.True(t, h.Flipped())
}

// TestExcuse: the one rule for which failures the flaky list excuses, as
// the rerun of a flaky check, the flaky check and the packet ask it.
func TestExcuse(t *testing.T) {
	failAB := func(t *testing.T) *Run {
		return buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""))
	}
	redBase := func(t *testing.T) *Run {
		return buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomePassed, ""), exec("s", "c", OutcomePassed, ""))
	}
	green := func(t *testing.T) *Run { return buildRun(t, exec("s", "c", OutcomePassed, "")) }
	incomplete := func(t *testing.T) *Run {
		r := failAB(t)
		r.Complete = false
		return r
	}
	for _, tc := range []struct {
		name        string
		after, base func(*testing.T) *Run // base nil: no comparison
		list        []string
		asked       []string // nil: the list is not asked
		transient   bool
		excused     []string
		reason      string
	}{
		{name: "every failure on the list", after: failAB, list: []string{"a", "b"},
			asked: []string{"a", "b"}, transient: true, excused: []string{"a", "b"}},
		{name: "one failure off the list", after: failAB, list: []string{"a"},
			asked: []string{"a", "b"}, excused: []string{"a"}, reason: "not on the flaky list before the job started: b"},
		{name: "no failure", after: green, list: []string{"c"}, reason: "the check failed without a failing test"},
		{name: "failures not known whole", after: incomplete, list: []string{"a", "b"},
			reason: `failures unknown: testrun: comparison unavailable: run "r" is incomplete`},
		{name: "red base: only the new failure is asked about", after: failAB, base: redBase, list: []string{"b"},
			asked: []string{"b"}, transient: true, excused: []string{"b"}},
		{name: "red base: the new failure off the list", after: failAB, base: redBase, list: []string{"a"},
			asked: []string{"b"}, reason: "not on the flaky list before the job started: b"},
		{name: "red base: nothing new", after: redBase, base: redBase, list: []string{"a"},
			reason: "no new failure (the base failed the same way)"},
		{name: "comparison unavailable", after: incomplete, base: redBase, list: []string{"a", "b"},
			reason: `new failures unknown: after: testrun: comparison unavailable: run "r" is incomplete`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := tc.after(t)
			after.ID = "r"
			var cmp *Comparison
			if tc.base != nil {
				base := tc.base(t)
				base.ID = "base"
				c := Compare(base, after)
				cmp = &c
			}
			var asked []string
			e, err := Excuse(after, cmp, func(ids []string) (map[string]bool, error) {
				asked = ids
				on := map[string]bool{}
				for _, id := range tc.list {
					on[id] = true
				}
				return on, nil
			})
			require.NoError(t, err)
			assert.Equal(t, tc.asked, asked)
			assert.Equal(t, tc.transient, e.Transient)
			assert.Equal(t, tc.excused, e.Excused())
			assert.Equal(t, tc.reason, e.Reason())
			assert.Equal(t, tc.base != nil, e.NewOnly)
		})
	}
	t.Run("the list's error", func(t *testing.T) {
		boom := errors.New("boom")
		_, err := Excuse(failAB(t), nil, func([]string) (map[string]bool, error) { return nil, boom })
		require.ErrorIs(t, err, boom)
	})
}
