package testrun

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"
)

var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func point(i int, tree string, o Outcome) HistoryPoint {
	return HistoryPoint{RunID: fmt.Sprintf("r%05d", i), At: epoch.Add(time.Duration(i) * time.Minute), Tree: tree, Outcome: o}
}

func TestScoreFlakiness(t *testing.T) {
	P, F, S, E := OutcomePassed, OutcomeFailed, OutcomeSkipped, OutcomeError
	for _, tc := range []struct {
		name     string
		outcomes []Outcome
		trees    []string
		retried  map[int]bool
		want     Flakiness
	}{
		{name: "empty", want: Flakiness{FailureRate: 0.5}},
		{
			name:     "fails on every run",
			outcomes: []Outcome{F, F, E, F},
			trees:    []string{"a", "a", "b", "c"},
			want:     Flakiness{Runs: 4, FailureRate: 0.5, FlipWindowRuns: 4},
		},
		{
			name:     "passes on one tree, fails on the next: a change, not a flake",
			outcomes: []Outcome{P, P, F, F},
			trees:    []string{"a", "a", "b", "b"},
			want:     Flakiness{Runs: 4, FailureRate: 0.5, Flips: 1, FlipRate: 1.0 / 3, FlipWindowRuns: 4},
		},
		{
			name:     "passes and fails on one tree",
			outcomes: []Outcome{P, F, P, P, S},
			trees:    []string{"a", "a", "a", "a", "a"},
			want: Flakiness{Runs: 4, FlakyTrees: 1, FailureRate: 2.0 / 6, Evidence: 4,
				Flips: 2, FlipRate: 2.0 / 3, FlipWindowRuns: 4, Flaky: true},
		},
		{
			name:     "a runner retry is one failure and one pass",
			outcomes: []Outcome{P, P},
			trees:    []string{"", ""},
			retried:  map[int]bool{1: true},
			want:     Flakiness{Runs: 2, Retries: 1, FailureRate: 0.5, Evidence: 2, FlipWindowRuns: 2, Flaky: true},
		},
		{
			name:     "no tree: flips count, no same-tree evidence",
			outcomes: []Outcome{P, F, P},
			trees:    []string{"", "", ""},
			want:     Flakiness{Runs: 3, FailureRate: 0.5, Flips: 2, FlipRate: 1, FlipWindowRuns: 3},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var h []HistoryPoint
			for i, o := range tc.outcomes {
				p := point(i, tc.trees[i], o)
				p.Retried = tc.retried[i]
				h = append(h, p)
			}
			// Order must not matter.
			rand.New(rand.NewPCG(1, 2)).Shuffle(len(h), func(i, j int) { h[i], h[j] = h[j], h[i] })
			got := ScoreFlakiness(h)
			if math.Abs(got.FailureRate-tc.want.FailureRate) > 1e-12 || math.Abs(got.FlipRate-tc.want.FlipRate) > 1e-12 {
				t.Fatalf("rates: got %+v, want %+v", got, tc.want)
			}
			got.FailureRate, got.FlipRate = tc.want.FailureRate, tc.want.FlipRate
			if got != tc.want {
				t.Fatalf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestScoreFlakinessWindow(t *testing.T) {
	// 100 runs: the first 50 alternate, the last 50 pass. Only the last 50
	// count for the flip rate.
	var h []HistoryPoint
	for i := range 100 {
		o := OutcomePassed
		if i < 50 && i%2 == 1 {
			o = OutcomeFailed
		}
		h = append(h, point(i, "", o))
	}
	got := ScoreFlakiness(h)
	if got.FlipWindowRuns != FlipWindow || got.Flips != 0 || got.FlipRate != 0 {
		t.Fatalf("window: %+v", got)
	}
	h[60].Outcome = OutcomeFailed
	if got := ScoreFlakiness(h); got.Flips != 2 {
		t.Fatalf("one failure inside the window is two flips: %+v", got)
	}
}

// The Monte Carlo tests below draw 10^5 simulated histories each and hold
// the decisions against closed forms.
const histories = 100_000

// A test that fails deterministically is never scored flaky, and the flaky
// list never excuses it, however its runs fall on trees.
func TestMonteCarloDeterministicFailureNeverFlaky(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	jobStart := epoch.Add(1000 * time.Hour)
	for n := range histories {
		runs := 1 + rng.IntN(12)
		trees := 1 + rng.IntN(4)
		var h []HistoryPoint
		tree := map[string]TreeHistory{}
		var entry FlakyEntry
		for i := range runs {
			tr := fmt.Sprintf("t%d", rng.IntN(trees))
			o := OutcomeFailed
			if rng.IntN(2) == 0 {
				o = OutcomeError
			}
			h = append(h, point(i, tr, o))
			// The flaky list's own rule, run by run.
			r := &Run{ID: fmt.Sprintf("r%d", i), Tree: tr}
			th := tree[tr].With(TreeObservation{TestID: "x", Failed: true}, r.ID)
			tree[tr] = th
			for _, s := range RunSightings(r, map[string]TreeHistory{"x": th}, epoch.Add(time.Duration(i)*time.Minute))["x"] {
				entry.Add(s)
			}
		}
		f := ScoreFlakiness(h)
		if f.Flaky || f.FlakyTrees != 0 || f.Evidence != 0 {
			t.Fatalf("history %d: a deterministic failure scored flaky: %+v", n, f)
		}
		if entry.Excused(jobStart) || len(entry.Seen) != 0 {
			t.Fatalf("history %d: the flaky list excused a deterministic failure: %+v", n, entry)
		}
	}
}

// With a budget of K reruns, a test that fails independently with
// probability p on every attempt is wrongly called broken with probability
// p^K once it failed its first attempt.
func TestMonteCarloRerunBudget(t *testing.T) {
	for _, tc := range []struct {
		k int
		p float64
	}{{3, 0.5}, {3, 0.3}, {1, 0.5}, {5, 0.5}} {
		t.Run(fmt.Sprintf("K=%d,p=%.1f", tc.k, tc.p), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(tc.k), uint64(tc.p*10)))
			broken, flaky := 0, 0
			for range histories {
				v, attempts := DecideReruns(tc.k, func(n int) bool {
					if n == 0 {
						return false // the failing run that triggers the reruns
					}
					return rng.Float64() >= tc.p
				})
				switch v {
				case RerunBroken:
					broken++
					if attempts != tc.k+1 {
						t.Fatalf("broken after %d attempts, want %d", attempts, tc.k+1)
					}
				case RerunFlaky:
					flaky++
				default:
					t.Fatalf("verdict %q for a failing first attempt", v)
				}
			}
			want := math.Pow(tc.p, float64(tc.k))
			got := float64(broken) / histories
			if math.Abs(got-want) > 0.01 {
				t.Fatalf("wrongly broken %.4f of the time, want %.4f ± 0.01", got, want)
			}
			if broken+flaky != histories {
				t.Fatalf("lost verdicts: %d + %d", broken, flaky)
			}
		})
	}
	// A test that fails on every attempt is broken, never flaky.
	if v, n := DecideReruns(3, func(int) bool { return false }); v != RerunBroken || n != 4 {
		t.Fatalf("deterministic failure: %s after %d", v, n)
	}
	if v, n := DecideReruns(3, func(int) bool { return true }); v != RerunPassed || n != 1 {
		t.Fatalf("pass: %s after %d", v, n)
	}
}

// For a test failing independently with probability p on one tree, the
// flip rate's expectation is 2p(1-p), and the posterior mean over n runs
// on the tree, conditioned on both outcomes appearing, is (1+f)/(2+n).
func TestMonteCarloClosedForms(t *testing.T) {
	const runs = 20
	const n = histories / 10 // 10^4 histories of 20 runs per p: 2x10^5 points each
	for _, p := range []float64{0.1, 0.3, 0.5} {
		rng := rand.New(rand.NewPCG(3, uint64(p*100)))
		var flipSum, rateSum float64
		var flipped int
		h := make([]HistoryPoint, runs)
		for range n {
			fails := 0
			for i := range h {
				o := OutcomePassed
				if rng.Float64() < p {
					o = OutcomeFailed
					fails++
				}
				h[i] = point(i, "a", o)
			}
			f := ScoreFlakiness(h)
			flipSum += f.FlipRate
			if fails > 0 && fails < runs {
				flipped++
				rateSum += f.FailureRate
				if want := (1 + float64(fails)) / (2 + runs); math.Abs(f.FailureRate-want) > 1e-12 {
					t.Fatalf("p=%.1f: posterior mean %v, want %v", p, f.FailureRate, want)
				}
				if !f.Flaky {
					t.Fatalf("p=%.1f: passed and failed on one tree, not flaky", p)
				}
			}
		}
		if got, want := flipSum/n, 2*p*(1-p); math.Abs(got-want) > 0.01 {
			t.Errorf("p=%.1f: mean flip rate %.4f, want 2p(1-p) = %.4f ± 0.01", p, got, want)
		}
		// E[(1+F)/(2+n) | 0<F<n] ≈ (1+np)/(2+n) when both outcomes almost
		// always appear.
		if got, want := rateSum/float64(flipped), (1+runs*p)/(2+runs); p >= 0.3 && math.Abs(got-want) > 0.01 {
			t.Errorf("p=%.1f: mean posterior %.4f, want %.4f ± 0.01", p, got, want)
		}
	}
}

// Ranking by flip rate puts the seeded flaky tests of a suite first: over
// 100 simulated suites of 1,000 tests (10^5 histories of 50 runs), the top
// 10 are the 10 seeded flaky tests with precision at least 0.9.
func TestMonteCarloFlipRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("10^5 histories: skipped with -short")
	}
	const suites, tests, seeded = 100, 1000, 10
	rng := rand.New(rand.NewPCG(5, 8))
	var hits int
	h := make([]HistoryPoint, FlipWindow)
	for range suites {
		type scored struct {
			flaky bool
			rate  float64
		}
		all := make([]scored, tests)
		for i := range tests {
			kind := "stable"
			switch {
			case i < seeded:
				kind = "flaky"
			case i < seeded+30:
				kind = "broke-and-fixed"
			case i < seeded+40:
				kind = "broken"
			case i < seeded+140:
				kind = "rarely-flaky" // 1% failures: a nuisance, not the worst
			}
			p := 0.1 + 0.4*rng.Float64()
			brokeAt, fixedAt := rng.IntN(FlipWindow), rng.IntN(FlipWindow)
			if brokeAt > fixedAt {
				brokeAt, fixedAt = fixedAt, brokeAt
			}
			for r := range h {
				fail := false
				switch kind {
				case "flaky":
					fail = rng.Float64() < p
				case "broke-and-fixed":
					fail = r >= brokeAt && r < fixedAt
				case "broken":
					fail = true
				case "rarely-flaky":
					fail = rng.Float64() < 0.01
				}
				o := OutcomePassed
				if fail {
					o = OutcomeFailed
				}
				h[r] = point(r, "", o)
			}
			all[i] = scored{flaky: kind == "flaky", rate: ScoreFlakiness(h).FlipRate}
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].rate > all[j].rate })
		for _, s := range all[:seeded] {
			if s.flaky {
				hits++
			}
		}
	}
	precision := float64(hits) / (suites * seeded)
	t.Logf("top-10 precision over %d suites: %.3f", suites, precision)
	if precision < 0.9 {
		t.Fatalf("top-10 precision %.3f, want >= 0.9", precision)
	}
}

func TestBetaUpper(t *testing.T) {
	for _, tc := range []struct {
		a, b, q, want float64
	}{
		{1, 1, 0.9, 0.9},                         // uniform
		{3, 1, 0.5, math.Pow(0.5, 1.0/3)},        // I_x(a,1) = x^a
		{1, 4, 0.95, 1 - math.Pow(0.05, 1.0/4)},  // I_x(1,b) = 1-(1-x)^b
		{2, 2, 0.5, 0.5},                         // symmetric
		{50, 50, 0.5, 0.5},                       // symmetric, large
		{1, 100, 0.99, 1 - math.Pow(0.01, 0.01)}, // a long tail
	} {
		if got := BetaUpper(tc.a, tc.b, tc.q); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("BetaUpper(%v, %v, %v) = %v, want %v", tc.a, tc.b, tc.q, got, tc.want)
		}
	}
}

func TestMassFailure(t *testing.T) {
	for _, tc := range []struct {
		c    Counts
		want bool
	}{
		{Counts{}, false},
		{Counts{Passed: 2, Failed: 8}, false}, // exactly 80%
		{Counts{Passed: 1, Failed: 8, Errors: 1}, true},
		{Counts{Passed: 0, Failed: 1}, false}, // 100% of one test is no environment
		{Counts{Passed: 0, Failed: MassFailureMinTests - 1}, false},
		{Counts{Passed: 0, Failed: MassFailureMinTests - 1, Errors: 1}, true},
		{Counts{Passed: 1, Failed: 0, Skipped: 100}, false},
		{Counts{Failed: 9, Skipped: 100}, false}, // skipped tests did not run
	} {
		if got := MassFailure(&Run{Counts: &tc.c}); got != tc.want {
			t.Errorf("MassFailure(%+v) = %v, want %v", tc.c, got, tc.want)
		}
	}
	if MassFailure(nil) || MassFailure(&Run{}) {
		t.Error("MassFailure of a run without counts")
	}
}
