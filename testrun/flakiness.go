package testrun

import (
	"math"
	"sort"
	"time"
)

// The flakiness score informs people; it never excuses a failure. Only
// the flaky list (a same-tree flip or a runner retry, known before the job
// started) and an explicit quarantine entry excuse (see Excuse).

// FlipWindow is how many of a test's most recent runs its flip rate
// covers.
const FlipWindow = 50

// MassFailureShare is the share of failing tests above which a run is
// taken for a broken environment rather than broken tests: such a run adds
// no flips to the flaky list (see MassFailure).
const MassFailureShare = 0.8

// MassFailureMinTests is the fewest tests (passed, failed or errored) a run
// needs for the mass-failure guard: with fewer, a share says nothing of the
// environment (one test that fails is 100% of one).
const MassFailureMinTests = 10

// HistoryPoint is what one stored run said of one test.
type HistoryPoint struct {
	RunID string
	At    time.Time
	// Tree is the run's tree digest ("" when unknown: the point then counts
	// for the flip rate but is no same-tree evidence).
	Tree    string
	Outcome Outcome
	// Retried is true when the run itself reported the test flaky: its
	// runner retried it and it passed, or it failed and passed within the
	// run.
	Retried bool
}

// Flakiness is a test's flakiness score, each part with the evidence
// behind it.
type Flakiness struct {
	// Runs is the number of points with a pass or a failure (skips say
	// nothing).
	Runs int `json:"runs"`
	// FlakyTrees is the number of trees on which the test both passed and
	// failed; Retries the number of runs that reported it flaky
	// themselves.
	FlakyTrees int `json:"flaky_trees"`
	Retries    int `json:"retries"`
	// FailureRate is the posterior mean of the rate at which the test fails
	// where it can pass: a Beta(1, 1) prior updated with the outcomes seen
	// on trees where it both passed and failed, and with each runner retry
	// as one failure and one pass. Evidence is the number of outcomes
	// behind it (0: FailureRate is the prior's 0.5 and means nothing).
	FailureRate float64 `json:"failure_rate"`
	Evidence    int     `json:"evidence"`
	// Flips is the number of outcome changes between consecutive runs
	// among the last FlipWindow with a pass or a failure, and FlipRate
	// Flips over the changes possible (FlipWindowRuns - 1).
	Flips          int     `json:"flips"`
	FlipRate       float64 `json:"flip_rate"`
	FlipWindowRuns int     `json:"flip_window_runs"`
	// Flaky is true only on flaky-list evidence: a same-tree flip or a
	// runner retry. A test that fails on every run, or passes on one tree
	// and fails on another, is never flaky by this score.
	Flaky bool `json:"flaky"`
}

// ScoreFlakiness scores a test from its history (any order; points are
// ordered by time, then run id).
func ScoreFlakiness(history []HistoryPoint) Flakiness {
	pts := make([]HistoryPoint, 0, len(history))
	for _, p := range history {
		if p.Outcome == OutcomePassed || p.Outcome.Failing() {
			pts = append(pts, p)
		}
	}
	sort.SliceStable(pts, func(i, j int) bool {
		if !pts[i].At.Equal(pts[j].At) {
			return pts[i].At.Before(pts[j].At)
		}
		return pts[i].RunID < pts[j].RunID
	})
	var f Flakiness
	f.Runs = len(pts)

	type tally struct{ passed, failed int }
	trees := map[string]*tally{}
	var passes, fails int
	for _, p := range pts {
		if p.Retried {
			f.Retries++
			passes++
			fails++
		}
		if p.Tree == "" {
			continue
		}
		t := trees[p.Tree]
		if t == nil {
			t = &tally{}
			trees[p.Tree] = t
		}
		if p.Outcome == OutcomePassed {
			t.passed++
		} else {
			t.failed++
		}
	}
	for _, t := range trees {
		if t.passed > 0 && t.failed > 0 {
			f.FlakyTrees++
			passes += t.passed
			fails += t.failed
		}
	}
	f.Evidence = passes + fails
	f.FailureRate = betaMean(1+float64(fails), 1+float64(passes))
	f.Flaky = f.FlakyTrees > 0 || f.Retries > 0

	window := pts
	if len(window) > FlipWindow {
		window = window[len(window)-FlipWindow:]
	}
	f.FlipWindowRuns = len(window)
	for i := 1; i < len(window); i++ {
		if (window[i].Outcome == OutcomePassed) != (window[i-1].Outcome == OutcomePassed) {
			f.Flips++
		}
	}
	if len(window) > 1 {
		f.FlipRate = float64(f.Flips) / float64(len(window)-1)
	}
	return f
}

// betaMean is the mean of a Beta(a, b) distribution.
func betaMean(a, b float64) float64 { return a / (a + b) }

// BetaUpper is the q-quantile (0 < q < 1) of a Beta(a, b) distribution
// (a, b > 0), found by bisection on the regularized incomplete beta
// function: an upper credible bound for a failure rate.
func BetaUpper(a, b, q float64) float64 {
	lo, hi := 0.0, 1.0
	for range 60 {
		mid := (lo + hi) / 2
		if regIncBeta(a, b, mid) < q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b),
// evaluated with its continued fraction (Numerical Recipes' betacf form,
// written from the definition).
func regIncBeta(a, b, x float64) float64 {
	if x <= 0 {
		return 0
	}
	if x >= 1 {
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

// betaFraction evaluates the continued fraction of I_x(a, b) by Lentz's
// method.
func betaFraction(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	// step takes the next term num into c and d and returns the factor it
	// puts on h.
	step := func(num float64) float64 {
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		return d * c
	}
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		h *= step(fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm)))
		del := step(-(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1)))
		h *= del
		if math.Abs(del-1) < 1e-12 {
			break
		}
	}
	return h
}

// MassFailure reports whether r ran (passed, failed or errored) at least
// MassFailureMinTests tests and more than MassFailureShare of them failed
// (a run without counts is not): the environment broke, not the tests, and
// such a run adds no same-tree flips to the flaky list. This is the one
// place the rule lives; the store and the commands call it.
func MassFailure(r *Run) bool {
	if r == nil || r.Counts == nil {
		return false
	}
	failing := r.Counts.Failed + r.Counts.Errors
	ran := r.Counts.Passed + failing
	return ran >= MassFailureMinTests && float64(failing) > MassFailureShare*float64(ran)
}

// RerunVerdict is what a rerun budget concludes of a failing check.
type RerunVerdict string

// Rerun verdicts.
const (
	// RerunPassed: the first attempt passed; nothing was rerun.
	RerunPassed RerunVerdict = "passed"
	// RerunFlaky: it failed, then passed on the same tree within the
	// budget: a same-tree flip.
	RerunFlaky RerunVerdict = "flaky"
	// RerunBroken: it failed on every attempt the budget allowed.
	RerunBroken RerunVerdict = "broken"
)

// DecideReruns runs attempt (true: passed) once and, while it fails, up to
// budget more times on the same tree, stopping at the first pass. It
// returns the verdict and the number of attempts made.
func DecideReruns(budget int, attempt func(n int) bool) (RerunVerdict, int) {
	if attempt(0) {
		return RerunPassed, 1
	}
	for n := 1; n <= budget; n++ {
		if attempt(n) {
			return RerunFlaky, n + 1
		}
	}
	return RerunBroken, budget + 1
}
