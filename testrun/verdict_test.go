package testrun

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outcomeRun builds a complete, trusted run (an attempt) from id →
// outcome; "-" leaves the id out.
func outcomeRun(t *testing.T, name string, outcomes map[string]Outcome) *Run {
	t.Helper()
	var execs []Execution
	for id, o := range outcomes {
		execs = append(execs, exec("s", id, o, ""))
	}
	r := buildRun(t, execs...)
	r.ID = name
	r.Kind = KindAttempt
	return r
}

func TestPairedVerdictRows(t *testing.T) {
	const (
		P = OutcomePassed
		F = OutcomeFailed
		E = OutcomeError
		S = OutcomeSkipped
		M = Outcome("") // missing from the run
	)
	for _, tc := range []struct {
		name          string
		parent, patch []Outcome
		want          Verdict
		reason        string
	}{
		{"broken: passed in every parent run, fails in every patch run", []Outcome{P, P}, []Outcome{F, F}, VerdictBroken, ""},
		{"broken with errors", []Outcome{P, P, P}, []Outcome{E, F, E}, VerdictBroken, ""},
		{"repaired: failed in every parent run, passes in every patch run", []Outcome{F, F}, []Outcome{P, P}, VerdictRepaired, ""},
		{"repaired from errors", []Outcome{E, F}, []Outcome{P, P}, VerdictRepaired, ""},
		{"frozen: the parent runs disagreed", []Outcome{P, F}, []Outcome{F, F}, VerdictFrozen, "parent runs disagreed"},
		{"frozen even when the patch agrees with one parent run", []Outcome{F, P}, []Outcome{P, P}, VerdictFrozen, "parent runs disagreed"},
		{"unchanged passing", []Outcome{P, P}, []Outcome{P, P}, VerdictUnchanged, ""},
		{"unchanged failing", []Outcome{F, E}, []Outcome{F, F}, VerdictUnchanged, ""},
		{"unchanged skipped everywhere", []Outcome{S, S}, []Outcome{S, S}, VerdictUnchanged, ""},
		{"inconclusive: missing from a patch run", []Outcome{P, P}, []Outcome{F, M}, VerdictInconclusive, "missing from patch run 2"},
		{"inconclusive: missing from a parent run", []Outcome{M, P}, []Outcome{P, P}, VerdictInconclusive, "missing from parent run 1"},
		{"inconclusive: not run in one run (skipped)", []Outcome{P, P}, []Outcome{S, F}, VerdictInconclusive, "skipped in some runs"},
		{"inconclusive: the patch runs disagreed", []Outcome{P, P}, []Outcome{P, F}, VerdictInconclusive, "patch runs disagreed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// "other" passes everywhere so that every run has counts.
			mk := func(side string, os []Outcome) []*Run {
				var runs []*Run
				for i, o := range os {
					m := map[string]Outcome{"other": P}
					if o != M {
						m["t"] = o
					}
					runs = append(runs, outcomeRun(t, side+string(rune('1'+i)), m))
				}
				return runs
			}
			p, err := PairedVerdict(mk("parent", tc.parent), mk("patch", tc.patch))
			require.NoError(t, err)
			assert.Equal(t, 1, p.Unchanged-boolInt(tc.want == VerdictUnchanged), "other is unchanged")
			var got []TestVerdict
			switch tc.want {
			case VerdictBroken:
				got = p.Broken
				assert.Equal(t, DecisionReject, p.Decision)
			case VerdictRepaired:
				got = p.Repaired
				assert.Equal(t, DecisionAllow, p.Decision)
			case VerdictFrozen:
				got = p.Frozen
				assert.Equal(t, DecisionAllow, p.Decision, "frozen is excluded from the vote")
			case VerdictInconclusive:
				got = p.Inconclusive
				assert.Equal(t, DecisionBlock, p.Decision)
			case VerdictUnchanged:
				assert.Empty(t, p.Broken)
				assert.Empty(t, p.Repaired)
				assert.Empty(t, p.Frozen)
				assert.Empty(t, p.Inconclusive)
				assert.Equal(t, DecisionAllow, p.Decision)
				return
			}
			require.Len(t, got, 1)
			assert.Equal(t, "t", got[0].ID)
			assert.Equal(t, tc.want, got[0].Verdict)
			assert.Equal(t, tc.parent, got[0].Parent)
			assert.Equal(t, tc.patch, got[0].Patch)
			assert.Contains(t, got[0].Reason, tc.reason)
			total := len(p.Broken) + len(p.Repaired) + len(p.Frozen) + len(p.Inconclusive) + p.Unchanged
			assert.Equal(t, 2, total, "every test has one verdict")
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestPairedVerdictRuns(t *testing.T) {
	ok := func(name string) *Run {
		return outcomeRun(t, name, map[string]Outcome{"a": OutcomePassed, "b": OutcomePassed})
	}
	broken := func(name string) *Run {
		return outcomeRun(t, name, map[string]Outcome{"a": OutcomeFailed, "b": OutcomePassed})
	}
	t.Run("an incomplete run makes every test inconclusive", func(t *testing.T) {
		inc := broken("patch2")
		inc.Complete = false
		p, err := PairedVerdict([]*Run{ok("p1"), ok("p2")}, []*Run{broken("patch1"), inc})
		require.NoError(t, err)
		assert.Empty(t, p.Broken, "an incomplete run never proves broken")
		require.Len(t, p.Inconclusive, 2)
		assert.Contains(t, p.Inconclusive[0].Reason, `run "patch2" is incomplete`)
		assert.Equal(t, DecisionBlock, p.Decision)
	})
	t.Run("a run without counts (collected nothing)", func(t *testing.T) {
		empty := NewBuilder().Build()
		empty.ID = "empty"
		p, err := PairedVerdict([]*Run{ok("p1"), empty}, []*Run{ok("q1"), ok("q2")})
		require.NoError(t, err)
		require.Len(t, p.Inconclusive, 2)
		assert.Contains(t, p.Inconclusive[0].Reason, `run "empty" has no counts`)
	})
	t.Run("a run that is not trusted never allows", func(t *testing.T) {
		// The agent's own checks (kind gate) could be forged: runs of the
		// patch that pass everything still cannot allow it.
		gate1, gate2 := ok("q1"), ok("q2")
		gate1.Kind, gate2.Kind = KindGate, ""
		p, err := PairedVerdict([]*Run{ok("p1"), ok("p2")}, []*Run{gate1, gate2})
		require.NoError(t, err)
		assert.Equal(t, DecisionBlock, p.Decision)
		assert.Empty(t, p.Broken)
		require.Len(t, p.Inconclusive, 2)
		assert.Equal(t, []string{`run "q1" is not trusted (kind "gate")`, `run "q2" is not trusted (kind "")`}, p.Unusable)
	})
	t.Run("runs that ran no test block, listing no test", func(t *testing.T) {
		none := func(name string) *Run { return outcomeRun(t, name, map[string]Outcome{}) }
		p, err := PairedVerdict([]*Run{none("p1"), none("p2")}, []*Run{none("q1"), none("q2")})
		require.NoError(t, err)
		assert.Equal(t, DecisionBlock, p.Decision, "four runs of nothing are no allow")
		assert.Empty(t, p.Inconclusive)
		assert.Zero(t, p.Unchanged)
		require.Len(t, p.Unusable, 4)
		assert.Equal(t, `run "p1" ran no test`, p.Unusable[0])
	})
	t.Run("a run listing fewer cases than it counts", func(t *testing.T) {
		cut := ok("cut")
		delete(cut.Cases, "b")
		p, err := PairedVerdict([]*Run{ok("p1"), ok("p2")}, []*Run{cut, ok("q2")})
		require.NoError(t, err)
		require.Len(t, p.Inconclusive, 2)
		assert.Contains(t, p.Inconclusive[0].Reason, `lists 1 of its 2 cases`)
	})
	t.Run("N=3 generalises", func(t *testing.T) {
		p, err := PairedVerdict([]*Run{ok("p1"), ok("p2"), ok("p3")}, []*Run{broken("q1"), broken("q2"), broken("q3")})
		require.NoError(t, err)
		require.Len(t, p.Broken, 1)
		assert.Equal(t, "a", p.Broken[0].ID)
		assert.Equal(t, 1, p.Unchanged)
		assert.Equal(t, []string{"p1", "p2", "p3"}, p.ParentRuns)
	})
	for name, sides := range map[string][2][]*Run{
		"one parent run": {{ok("p1")}, {ok("q1"), ok("q2")}},
		"one patch run":  {{ok("p1"), ok("p2")}, {ok("q1")}},
		"nil run":        {{ok("p1"), nil}, {ok("q1"), ok("q2")}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := PairedVerdict(sides[0], sides[1])
			assert.True(t, errors.Is(err, ErrVerdictInput), "%v", err)
		})
	}
}

// TestPairedVerdictSameRun: one run given twice on one side can never
// disagree with itself, so it would pass for agreement (and never be
// frozen). The same id is refused always; the same report digests when the
// runs were read back (WithCopiesRefused).
func TestPairedVerdictSameRun(t *testing.T) {
	withReports := func(id string, outcome Outcome, sums ...string) *Run {
		r := outcomeRun(t, id, map[string]Outcome{"a": outcome, "b": OutcomePassed})
		r.Reports = nil
		for i, s := range sums {
			r.Reports = append(r.Reports, ReportInfo{Path: "r" + string(rune('0'+i)) + ".xml", SHA256: s})
		}
		return r
	}
	// withTests marks the report at i as one that held tests.
	withTests := func(r *Run, i int) *Run {
		n := 2
		r.Reports[i].Tests = &n
		return r
	}
	pass := func(id string, sums ...string) *Run { return withReports(id, OutcomePassed, sums...) }
	fail := func(id string, sums ...string) *Run { return withReports(id, OutcomeFailed, sums...) }
	shared := pass("s1", sumA)
	noID := pass("", sumB)
	const sumC = "cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc"
	const sumD = "dddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddddd"
	for _, tc := range []struct {
		name          string
		parent, patch []*Run
		opts          []VerdictOption
		want          string // "" when the comparison stands
	}{
		{name: "the same run object twice on the parent", parent: func() []*Run { r := pass("p1", sumA); return []*Run{r, r} }(),
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, want: `parent runs 1 and 2 are the same run (id "p1")`},
		{name: "the same id on the parent", parent: []*Run{pass("p1", sumA), pass("p2", sumB), pass("p1", sumC)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, want: `parent runs 1 and 3 are the same run (id "p1")`},
		{name: "the same id on the patch", parent: []*Run{pass("p1", sumA), pass("p2", sumB)},
			patch: []*Run{fail("q1", sumC), fail("q1", sumD)}, want: `patch runs 1 and 2 are the same run (id "q1")`},
		{name: "the same id without digests", parent: []*Run{pass("p1"), pass("p1")},
			patch: []*Run{fail("q1"), fail("q2")}, want: `parent runs 1 and 2 are the same run (id "p1")`},
		{name: "the same digests on the parent", parent: []*Run{pass("p1", sumA, sumB), pass("p2", sumB, sumA, sumA)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, opts: []VerdictOption{WithCopiesRefused()},
			want: `parent runs 1 and 2 are the same run (runs "p1" and "p2" read reports with the same sha256 digests)`},
		{name: "the same digests on the patch", parent: []*Run{pass("p1", sumA), pass("p2", sumB)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD), fail("q3", sumC)}, opts: []VerdictOption{WithCopiesRefused()},
			want: `patch runs 1 and 3 are the same run (runs "q1" and "q3" read reports with the same sha256 digests)`},
		{name: "digests that differ in case are the same", parent: []*Run{pass("p1", sumA), pass("p2", strings.ToUpper(sumA))},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, opts: []VerdictOption{WithCopiesRefused()},
			want: `parent runs 1 and 2 are the same run`},
		{name: "one report without tests shared is not the same run", parent: []*Run{pass("p1", sumA, sumB), pass("p2", sumA)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, opts: []VerdictOption{WithCopiesRefused()}},
		{name: "one report of tests shared, another report beside it", parent: []*Run{withTests(pass("p1", sumA), 0), withTests(pass("p2", sumA, sumB), 0)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumD)}, opts: []VerdictOption{WithCopiesRefused()},
			want: `parent runs 1 and 2 are the same run (runs "p1" and "p2" read the same report of tests, sha256 ` + sumA + `)`},
		{name: "one report of tests shared on the patch", parent: []*Run{pass("p1", sumA), pass("p2", sumB)},
			patch: []*Run{withTests(fail("q1", sumC), 0), withTests(fail("q2", strings.ToUpper(sumC), sumD), 0)}, opts: []VerdictOption{WithCopiesRefused()},
			want: `patch runs 1 and 2 are the same run (runs "q1" and "q2" read the same report of tests`},
		{name: "no digests are not the same digests", parent: []*Run{pass("p1"), pass("p2")},
			patch: []*Run{fail("q1"), fail("q2")}, opts: []VerdictOption{WithCopiesRefused()}},
		{name: "a run on both sides", parent: []*Run{pass("p1", sumA), pass("p2", sumB)},
			patch: []*Run{fail("q1", sumC), fail("p2", sumD)},
			want:  `parent run 2 and patch run 2 are the same run (id "p2"): a run of the parent says nothing of the patch`},
		{name: "the same run object without an id on both sides", parent: []*Run{noID, pass("p2", sumB)},
			patch: []*Run{fail("q1", sumC), noID}, want: `parent run 1 and patch run 2 are the same run (one run given twice)`},
		{name: "the same run object on both sides", parent: []*Run{shared, pass("p2", sumB)},
			patch: []*Run{fail("q1", sumC), shared}, want: `parent run 1 and patch run 2 are the same run (id "s1")`},
		{name: "the same digests across the sides", parent: []*Run{pass("p1", sumA), pass("p2", sumB)},
			patch: []*Run{fail("q1", sumA), fail("q2", sumB)}, opts: []VerdictOption{WithCopiesRefused()}},
		{name: "the same digests from runs the caller executed itself", parent: []*Run{pass("p1", sumA), pass("p2", sumA)},
			patch: []*Run{fail("q1", sumC), fail("q2", sumC)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PairedVerdict(tc.parent, tc.patch, tc.opts...)
			if tc.want == "" {
				require.NoError(t, err)
				assert.Equal(t, DecisionReject, p.Decision, "a is broken")
				return
			}
			assert.Nil(t, p)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrVerdictInput), "%v", err)
			var same *SameRunError
			require.True(t, errors.As(err, &same), "%v", err)
			assert.Contains(t, err.Error(), tc.want)
			if same.Side != SidesBoth {
				assert.Contains(t, err.Error(), "two copies of a run can never disagree")
			}
		})
	}
}

const (
	sumA = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	sumB = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

func TestPairedVerdictPins(t *testing.T) {
	parent := []*Run{outcomeRun(t, "p1", map[string]Outcome{"a": OutcomePassed}), outcomeRun(t, "p2", map[string]Outcome{"a": OutcomePassed})}
	patch := []*Run{outcomeRun(t, "q1", map[string]Outcome{"a": OutcomeFailed}), outcomeRun(t, "q2", map[string]Outcome{"a": OutcomeFailed})}
	for _, tc := range []struct {
		name            string
		parent, patchPs Pins
		reason          string
	}{
		{"changed", Pins{"fx/a.json": sumA}, Pins{"fx/a.json": sumB}, "fx/a.json: aaaaaaaaaaaa on the parent, bbbbbbbbbbbb on the patch"},
		{"removed on the patch", Pins{"fx/a.json": sumA}, Pins{}, "fx/a.json: missing on the patch"},
		{"added on the patch", Pins{}, Pins{"fx/a.json": sumA}, "fx/a.json: missing on the parent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := PairedVerdict(parent, patch, WithPins(tc.parent, tc.patchPs))
			require.NoError(t, err)
			assert.Equal(t, DecisionInvalid, p.Decision)
			assert.Contains(t, p.Invalid, "a fixture pin changed")
			assert.Contains(t, p.Invalid, tc.reason)
			assert.Empty(t, p.Broken, "an invalid comparison judges no test")
		})
	}
	t.Run("same pins: the verdict stands", func(t *testing.T) {
		p, err := PairedVerdict(parent, patch, WithPins(Pins{"fx/a.json": sumA}, Pins{"fx/a.json": sumA}))
		require.NoError(t, err)
		assert.Equal(t, DecisionReject, p.Decision)
		assert.Empty(t, p.Invalid)
	})
	t.Run("pins recomputed from each tree", func(t *testing.T) {
		before := fstest.MapFS{"fx/a.json": {Data: []byte(`{"n":1}`)}, "fx/b.txt": {Data: []byte("b")}}
		after := fstest.MapFS{"fx/a.json": {Data: []byte(`{"n":2}`)}, "fx/b.txt": {Data: []byte("b")}}
		paths := []string{"fx/a.json", "fx/b.txt"}
		pa, err := HashPins(before, paths)
		require.NoError(t, err)
		pb, err := HashPins(after, paths)
		require.NoError(t, err)
		assert.Equal(t, "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d", pb["fx/b.txt"], "sha256 of b")
		assert.Equal(t, []string{"fx/a.json: " + pa["fx/a.json"][:12] + " on the parent, " + pb["fx/a.json"][:12] + " on the patch"}, PinChanges(pa, pb))
		gone, err := HashPins(fstest.MapFS{"fx/b.txt": {Data: []byte("b")}}, paths)
		require.NoError(t, err)
		assert.Equal(t, []string{"fx/a.json: missing on the patch"}, PinChanges(pa, gone))
		_, err = HashPins(before, []string{"../etc/passwd"})
		assert.True(t, errors.Is(err, ErrInvalidPins))
	})
}

func TestReadPins(t *testing.T) {
	for _, tc := range []struct {
		name, in, err string
	}{
		{"valid", `{"fx/a.json": "` + sumA + `"}`, ""},
		{"empty object", `{}`, ""},
		{"duplicate key", `{"a": "` + sumA + `", "a": "` + sumB + `"}`, `key "a" given twice`},
		{"not an object", `["a"]`, "cannot unmarshal"},
		{"null", `null`, "not a JSON object"},
		{"short digest", `{"a": "abc"}`, "is not a sha256"},
		{"upper-case digest", `{"a": "` + strings.ToUpper(sumA) + `"}`, "is not a sha256"},
		{"absolute path", `{"/etc/passwd": "` + sumA + `"}`, "not a clean relative path"},
		{"dot-dot", `{"../a": "` + sumA + `"}`, "not a clean relative path"},
		{"trailing data", `{} {}`, "after the top-level value"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pins, err := ReadPins(strings.NewReader(tc.in))
			if tc.err == "" {
				require.NoError(t, err)
				assert.NotNil(t, pins)
				return
			}
			assert.True(t, errors.Is(err, ErrInvalidPins), "%v", err)
			assert.ErrorContains(t, err, tc.err)
		})
	}
	t.Run("from a real tree", func(t *testing.T) {
		dir := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "fx"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "fx", "b.txt"), []byte("b"), 0o644))
		pins, err := HashPins(os.DirFS(dir), []string{"fx/b.txt"})
		require.NoError(t, err)
		assert.Equal(t, Pins{"fx/b.txt": "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d"}, pins)
	})
}

// TestOutcomeOf: a run's outcome for an id comes from its cases, else from
// its failures (a run whose cases were capped still lists every failure);
// an id the run does not list has none.
func TestOutcomeOf(t *testing.T) {
	r := &Run{
		Cases:    map[string]Outcome{"a": OutcomePassed, "b": OutcomeFailed},
		Failures: []Failure{{ID: "b", Outcome: OutcomeFailed}, {ID: "c", Outcome: OutcomeError}},
	}
	assert.Equal(t, OutcomePassed, r.OutcomeOf("a"))
	assert.Equal(t, OutcomeFailed, r.OutcomeOf("b"))
	assert.Equal(t, OutcomeError, r.OutcomeOf("c"), "capped out of the cases, still a failure")
	assert.Equal(t, Outcome(""), r.OutcomeOf("d"))
}
