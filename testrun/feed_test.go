package testrun

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// feedReport is one report of a generated run: its executions, and whether
// it was refused.
type feedReport struct {
	info  ReportInfo
	execs []Execution
}

// genFeedRun generates reports whose ids repeat within a suite (retries),
// across suites of one report and across reports, with failures, skips,
// runner retries, untimed executions and times that pass MaxCaseDuration
// when summed; some reports are refused.
func genFeedRun(rng *rand.Rand) []feedReport {
	outcomes := []Outcome{OutcomePassed, OutcomePassed, OutcomePassed, OutcomeFailed, OutcomeError, OutcomeSkipped}
	var reps []feedReport
	for r := range 1 + rng.IntN(4) {
		path := fmt.Sprintf("r%d.xml", r)
		rep := feedReport{info: ReportInfo{Path: path, Tests: ntests(0)}}
		if rng.IntN(5) == 0 {
			rep.info.Error = "line 3: truncated"
			rep.info.Tests = nil
		}
		// Half the reports name each case once (ids then repeat only
		// across reports), the others retry and repeat at random.
		unique := rng.IntN(2) == 0
		for k := range rng.IntN(3000) {
			// Scopes and ids repeat across reports: a scope name is not
			// only the report's.
			id := fmt.Sprintf("pkg%d::t%d", rng.IntN(7), rng.IntN(400))
			if unique {
				id = fmt.Sprintf("pkg::u%d", k)
			}
			e := Execution{
				ID:          id,
				Scope:       fmt.Sprintf("suite#%d", rng.IntN(5)),
				Outcome:     outcomes[rng.IntN(len(outcomes))],
				RunnerFlaky: rng.IntN(50) == 0,
			}
			if rng.IntN(10) > 0 {
				e.Timed = true
				e.Duration = time.Duration(rng.Int64N(int64(time.Hour)))
				if rng.IntN(200) == 0 {
					e.Duration = MaxCaseDuration
				}
			}
			if e.Outcome.Failing() && rng.IntN(4) > 0 {
				e.Message = fmt.Sprintf("boom %d", rng.IntN(1000))
				if rng.IntN(3) == 0 {
					e.Message += " password=hunter2hunter2 " + strings.Repeat("x", rng.IntN(400))
				}
			}
			if rng.IntN(500) == 0 {
				e.ID = "" // cannot be read: the run is incomplete
			}
			rep.execs = append(rep.execs, e)
		}
		if rep.info.Error == "" {
			*rep.info.Tests = len(rep.execs)
		}
		reps = append(reps, rep)
	}
	return reps
}

// batches splits execs into batches of random sizes, each yielding from a
// copy of its executions, in one Execution it reuses.
func batches(rng *rand.Rand, execs []Execution) []iter.Seq[*Execution] {
	var out []iter.Seq[*Execution]
	for len(execs) > 0 {
		n := min(len(execs), 1+rng.IntN(700))
		batch := slices.Clone(execs[:n])
		execs = execs[n:]
		out = append(out, func(yield func(*Execution) bool) {
			var e Execution
			for _, x := range batch {
				e = x
				if !yield(&e) {
					return
				}
			}
		})
	}
	return out
}

// TestFeedMatchesAddReport checks that a run built by feeding each report
// in batches is the run AddReport builds from the same reports: the same
// counts, cases, durations, flaky ids, failures (in order) and reasons,
// whether the report fed is the run's first (its state is taken whole) or
// is merged into the reports before it, under kept-case bounds below and
// above the number of ids.
func TestFeedMatchesAddReport(t *testing.T) {
	for seed := range uint64(60) {
		rng := rand.New(rand.NewPCG(seed, 7))
		reps := genFeedRun(rng)
		// A low cap on kept cases makes the order of first appearance
		// matter; a high one keeps them all.
		opts := []Option{WithMaxCases(10 + rng.IntN(3000)), WithMaxFailures(1 + rng.IntN(200)), WithMaxMessage(50 + rng.IntN(300))}

		want := NewBuilder(opts...)
		for _, r := range reps {
			want.AddReport(r.info, r.execs, nil)
		}
		got := NewBuilder(opts...)
		for _, r := range reps {
			if rng.IntN(4) == 0 {
				got.AddReport(r.info, r.execs, nil)
				continue
			}
			// The batches are merged on another goroutine, as a parser's
			// are.
			f := got.Feed()
			in := make(chan iter.Seq[*Execution], 4)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for b := range in {
					f.Add(b)
				}
			}()
			for _, b := range batches(rng, r.execs) {
				in <- b
			}
			close(in)
			<-done
			f.End(r.info, nil)
		}
		w, g := want.Build(), got.Build()
		require.Equal(t, w, g, "seed %d", seed)
		for _, f := range g.Failures {
			require.NotContains(t, f.Message, "hunter2", "seed %d: a kept message is redacted", seed)
		}
	}
}

// TestFeedRefusedReportAddsNothing checks that executions fed for a report
// that turns out to be refused add no case, count or flaky id: only the
// report's listing and its reason.
func TestFeedRefusedReportAddsNothing(t *testing.T) {
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "a.xml", Tests: ntests(1)}, []Execution{exec("a#1", "a::x", OutcomePassed, "")}, nil)
	f := b.Feed()
	f.Add(func(yield func(*Execution) bool) {
		e := exec("b#1", "b::y", OutcomeFailed, "boom")
		yield(&e)
	})
	f.End(ReportInfo{Path: "b.xml", Error: "line 9: unexpected end of file"}, nil)
	r := b.Build()
	assert.False(t, r.Complete)
	assert.Equal(t, []string{"b.xml: line 9: unexpected end of file"}, r.IncompleteReasons)
	assert.Equal(t, &Counts{Total: 1, Passed: 1}, r.Counts)
	assert.Equal(t, map[string]Outcome{"a::x": OutcomePassed}, r.Cases)
	assert.Len(t, r.Reports, 2)
}

// TestFeedEmptyReport checks that a test report fed no execution still
// counts as a test report read whole.
func TestFeedEmptyReport(t *testing.T) {
	b := NewBuilder()
	b.Feed().End(ReportInfo{Path: "empty.xml", Tests: ntests(0)}, nil)
	r := b.Build()
	assert.True(t, r.Complete, "%v", r.IncompleteReasons)
	assert.Equal(t, &Counts{}, r.Counts)
}

// TestFeedSizedMatchesFeed checks that the size a report is expected to
// have only sizes the builder: below, at and above the ids the report
// holds, the run is the one Feed builds.
func TestFeedSizedMatchesFeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	reps := genFeedRun(rng)
	build := func(feed func(*Builder) *Feed) *Run {
		b := NewBuilder()
		for _, r := range reps {
			f := feed(b)
			f.Add(func(yield func(*Execution) bool) {
				for i := range r.execs {
					if !yield(&r.execs[i]) {
						return
					}
				}
			})
			f.End(r.info, nil)
		}
		return b.Build()
	}
	want := build((*Builder).Feed)
	require.NotEmpty(t, want.Cases)
	for _, n := range []int{-1, 0, 1, 100, 3000, 1 << 16} {
		got := build(func(b *Builder) *Feed { return b.FeedSized(n) })
		require.Equal(t, want, got, "n=%d", n)
	}
}

// TestFeedBuildTwice checks that a run built twice from a fed report is
// the same run each time, and that the two share no map: the outcomes and
// times kept as the report was merged go to the first run only.
func TestFeedBuildTwice(t *testing.T) {
	b := NewBuilder()
	f := b.FeedSized(3)
	f.Add(func(yield func(*Execution) bool) {
		for _, e := range []Execution{
			{ID: "a::x", Scope: "s#1", Outcome: OutcomePassed, Timed: true, Duration: time.Second},
			{ID: "a::y", Scope: "s#1", Outcome: OutcomeFailed, Timed: true, Duration: time.Second},
			{ID: "a::y", Scope: "s#1", Outcome: OutcomePassed},
		} {
			if !yield(&e) {
				return
			}
		}
	})
	f.End(ReportInfo{Path: "r.xml", Tests: ntests(3)}, nil)
	first := b.Build()
	assert.Equal(t, map[string]Outcome{"a::x": OutcomePassed, "a::y": OutcomePassed}, first.Cases)
	assert.Equal(t, map[string]time.Duration{"a::x": time.Second}, first.Durations, "a::y ran once untimed: its time is unknown")
	second := b.Build()
	require.Equal(t, first, second)
	first.Cases["a::x"] = OutcomeFailed
	delete(first.Durations, "a::x")
	assert.Equal(t, OutcomePassed, second.Cases["a::x"])
	assert.Equal(t, time.Second, second.Durations["a::x"])
}
