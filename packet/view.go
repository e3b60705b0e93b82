package packet

import (
	"fmt"
	"math"

	"github.com/hangar-dev/testresults/internal/term"
	"github.com/hangar-dev/testresults/testrun"
)

// Input is what a packet shows.
type Input struct {
	// After is the run the packet is about; it must not be nil.
	After *testrun.Run
	// Base is the run After is compared with; nil when there is none, and
	// then no new failures are shown, only that there is no base.
	Base *testrun.Run
	// Comparison is testrun.Compare(Base, After, ...), with
	// testrun.WithFlakyList when a flaky list was read (its flaky marks
	// are shown even without a base).
	Comparison testrun.Comparison
	// FlakyList names the flaky list the marks were read from (for example
	// its repository and environment); "" when no list was read.
	FlakyList string
	// Repository is the folder the check ran in, for the command that
	// reruns each failing test (testrun.RerunCommand); "" gives only the
	// commands that need no file of it.
	Repository string
}

// flakyState says how a flaky test stands against the flaky list.
type flakyState string

const (
	flakyOnList  flakyState = "on the flaky list"
	flakyOffList flakyState = "not on the flaky list"
	flakyNoList  flakyState = ""
)

type failureView struct {
	ID      string
	Outcome string
	Message string
	// Rerun is the shell line that reruns the test, "" when its runner
	// takes none.
	Rerun string
	// Score is the test's flakiness score in words, "" when none was
	// given.
	Score string
}

type flakyView struct {
	ID    string
	State flakyState
}

// list is a capped list of items: Left counts those not shown.
type list[T any] struct {
	Items []T
	Total int
	Left  int
}

func capList[T any](all []T, n int) list[T] {
	l := list[T]{Total: len(all)}
	if len(all) > n {
		l.Items, l.Left = all[:n], len(all)-n
	} else {
		l.Items = all
	}
	return l
}

// view is the packet as shown: every string from a report is clipped and
// has its control characters escaped; the format escapes the rest.
type view struct {
	AfterID, BaseID string
	Kind            string
	Counts          *testrun.Counts
	Complete        bool
	Counted         bool
	Trusted         bool
	Incomplete      list[string]
	// NotRun lists the expected tests that never ran; NotRunKnown is
	// false when the run was not checked against its expected tests.
	NotRunKnown bool
	NotRun      list[string]

	HasBase      bool
	Available    bool
	Unavailable  string
	NewFailures  list[failureView]
	BaseFailures int // -1 when not known whole
	FixedKnown   bool
	Fixed        list[string]

	// Failures are the run's own failures, shown when there is no base.
	Failures list[failureView]

	Flaky     list[flakyView]
	FlakyList string // "" when no list was read

	Coverage       string // "81.20%" or "unknown"
	CoverageReason string
	Delta          string // "+1.20 points", "unknown", or "" without a base
}

func (c config) id(s string) string { return term.Escape(testrun.Clip(s, c.maxID)) }

func (c config) msg(s string) string { return term.Escape(testrun.Clip(s, c.maxMessage)) }

// failure is how f of run r is shown, with the command that reruns it.
func (c config) failure(r *testrun.Run, f testrun.Failure, repo string) failureView {
	v := failureView{ID: c.id(f.ID), Outcome: string(f.Outcome), Message: c.msg(f.Message)}
	var opts []testrun.RerunOption
	if repo != "" {
		opts = append(opts, testrun.WithRepository(repo))
	}
	if argv := testrun.RerunCommand(r, f.ID, opts...); argv != nil {
		v.Rerun = term.EscapeLine(testrun.Clip(testrun.ShellQuote(argv), c.maxID+100))
	}
	if s, ok := c.scores[f.ID]; ok {
		v.Score = scoreText(s)
	}
	return v
}

// scoreText is a flakiness score in words: "failure rate 0.31 over 12
// outcomes, 7 flips in the last 50 runs". With no evidence it says so
// rather than show the prior's 0.50.
func scoreText(s testrun.Flakiness) string {
	rate := "no failure-rate evidence"
	if s.Evidence > 0 {
		rate = fmt.Sprintf("failure rate %.2f over %d outcomes", s.FailureRate, s.Evidence)
	}
	return fmt.Sprintf("%s, %d flips in the last %d runs", rate, s.Flips, s.FlipWindowRuns)
}

func newView(in Input, c config) view {
	r, cmp := in.After, in.Comparison
	v := view{
		AfterID:      c.id(r.ID),
		Kind:         c.id(string(r.Kind)),
		Counts:       r.Counts,
		Complete:     r.Complete,
		Counted:      r.Counted(),
		Trusted:      r.Trusted(),
		HasBase:      in.Base != nil,
		BaseFailures: -1,
		FlakyList:    term.Escape(in.FlakyList),
	}
	reasons := make([]string, len(r.IncompleteReasons))
	for i, s := range r.IncompleteReasons {
		reasons[i] = c.msg(s)
	}
	v.Incomplete = capList(reasons, c.maxItems)
	if nr := r.NotRun; nr != nil {
		v.NotRunKnown = true
		ids := make([]string, len(nr.IDs))
		for i, id := range nr.IDs {
			ids[i] = c.id(id)
		}
		v.NotRun = capList(ids, c.maxItems)
		// The run lists the first of them only; the count says how many.
		if nr.Count > v.NotRun.Total {
			v.NotRun.Left += nr.Count - v.NotRun.Total
			v.NotRun.Total = nr.Count
		}
	}

	if in.Base != nil {
		v.BaseID = c.id(in.Base.ID)
		v.Available = cmp.Available
		v.Unavailable = c.msg(cmp.Unavailable)
		if cmp.Available {
			nf := make([]failureView, len(cmp.NewFailures))
			for i, f := range cmp.NewFailures {
				nf[i] = c.failure(r, f, in.Repository)
			}
			v.NewFailures = capList(nf, c.maxItems)
		}
		if cmp.BaseFailures != nil {
			v.BaseFailures = len(cmp.BaseFailures)
		}
		if cmp.Fixed != nil {
			v.FixedKnown = true
			fixed := make([]string, len(cmp.Fixed))
			for i, id := range cmp.Fixed {
				fixed[i] = c.id(id)
			}
			v.Fixed = capList(fixed, c.maxItems)
		}
		v.Delta = "unknown"
		if d := cmp.CoverageDelta; d != nil {
			v.Delta = fmt.Sprintf("%+.2f points", *d*100)
			if math.Abs(*d*100) < 0.005 {
				v.Delta = "±0.00 points"
			}
		}
	}

	if in.Base == nil && len(r.Failures) > 0 {
		fs := make([]failureView, len(r.Failures))
		for i, f := range r.Failures {
			fs[i] = c.failure(r, f, in.Repository)
		}
		v.Failures = capList(fs, c.maxItems)
		// The run lists its first failures only; the counts say how many.
		if r.Counts != nil {
			if n := r.Counts.Failed + r.Counts.Errors; n > v.Failures.Total {
				v.Failures.Left += n - v.Failures.Total
				v.Failures.Total = n
			}
		}
	}

	flaky := make([]flakyView, len(cmp.Flaky))
	for i, m := range cmp.Flaky {
		st := flakyNoList
		if m.OnList != nil {
			st = flakyOffList
			if *m.OnList {
				st = flakyOnList
			}
		}
		flaky[i] = flakyView{ID: c.id(m.ID), State: st}
	}
	v.Flaky = capList(flaky, c.maxItems)

	v.Coverage = "unknown"
	if cov := r.Coverage; cov != nil {
		if cov.LineRate != nil {
			v.Coverage = fmt.Sprintf("%.2f%%", *cov.LineRate*100)
		}
		v.CoverageReason = c.msg(cov.Reason)
	}
	return v
}

// plain leaves text as it is, for formats that escape it themselves.
func plain(s string) string { return s }

// headline is the packet's first statement about the comparison; esc
// escapes the parts that come from reports.
func (v view) headline(esc func(string) string) string {
	switch {
	case !v.HasBase:
		return "No base run given: new failures were not computed."
	case !v.Available:
		return "Comparison unavailable: " + esc(v.Unavailable)
	case v.NewFailures.Total == 0:
		return "No new failures against the base (exact comparison)."
	case v.NewFailures.Total == 1:
		return "1 new failure against the base."
	}
	return fmt.Sprintf("%d new failures against the base.", v.NewFailures.Total)
}

// runState says whether the run is complete and counted.
func (v view) runState(esc func(string) string) string {
	s := "complete"
	if !v.Complete {
		s = "incomplete"
	}
	switch {
	case v.Counted:
		s += ", counted"
	case !v.Trusted:
		s += ", not counted (kind " + esc(v.Kind) + " is not trusted)"
	case v.Counts == nil:
		s += ", not counted (no test report was read)"
	case v.Counts.Total == 0:
		s += ", not counted (no test ran)"
	default:
		s += ", not counted"
	}
	return s
}

func (v view) baseFailuresText() string {
	if v.BaseFailures < 0 {
		return "unknown (the base's failing tests are not known whole)"
	}
	return fmt.Sprintf("%d", v.BaseFailures)
}

func (v view) flakyListText(esc func(string) string) string {
	if v.FlakyList == "" {
		return "Flaky list not read (no store or repository given): flaky tests are not marked."
	}
	return "Flaky list: " + esc(v.FlakyList) + "."
}
