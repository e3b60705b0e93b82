package serve

import (
	"context"
	"encoding/json"
	"sort"
	"time"

	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

// Summary is what a job's or a session's runs show.
type Summary struct {
	// Run is the latest counted run (null when none is counted).
	Run *string `json:"run"`
	// Counts are that run's counts.
	Counts *testrun.Counts `json:"counts"`
	// Failing are its first failing ids (at most MaxFailingIDs).
	Failing []string `json:"failing"`
	// BaseRun is the job's latest run of kind base.
	BaseRun *string `json:"base_run"`
	// Comparison is testrun.Compare of the base run and the latest counted
	// run (new failures, fixed, flaky, coverage delta); null without both.
	Comparison *testrun.Comparison `json:"comparison"`
	// Flaky are the latest counted run's flaky ids.
	Flaky []string `json:"flaky"`
	// LineRate is its line coverage (null when unknown).
	LineRate *float64 `json:"line_rate"`
	// CoverageDelta is its line rate minus the base's (null unless both
	// are known).
	CoverageDelta *float64 `json:"coverage_delta"`
}

// RunSummary is one run in summary form.
type RunSummary struct {
	ID         string          `json:"id"`
	Kind       testrun.Kind    `json:"kind"`
	Status     *testrun.Status `json:"status"`
	Counted    bool            `json:"counted"`
	Trusted    bool            `json:"trusted"`
	Complete   bool            `json:"complete"`
	Counts     *testrun.Counts `json:"counts"`
	LineRate   *float64        `json:"line_rate"`
	StartedAt  *time.Time      `json:"started_at"`
	EndedAt    *time.Time      `json:"ended_at"`
	Repository *string         `json:"repository"`
	Job        *string         `json:"job"`
	Session    *string         `json:"session"`
	Turn       *int            `json:"turn"`
	RecordedAt time.Time       `json:"recorded_at"`
	CasesKept  bool            `json:"cases_kept"`
}

type testsResponse struct {
	Job     string          `json:"job,omitempty"`
	Session string          `json:"session,omitempty"`
	Summary Summary         `json:"summary"`
	Runs    []RunSummary    `json:"runs"`
	Latest  json.RawMessage `json:"latest"`
}

type oneRunResponse struct {
	Run       RunSummary      `json:"summary"`
	Full      json.RawMessage `json:"run"`
	Cases     []CaseOutcome   `json:"cases,omitempty"`
	CasesKept *bool           `json:"cases_kept,omitempty"`
	Next      string          `json:"next,omitempty"`
}

type flakyResponse struct {
	Repository string               `json:"repository"`
	Entries    []testrun.FlakyEntry `json:"entries"`
}

// CaseOutcome is one case of a run.
type CaseOutcome struct {
	ID      string          `json:"id"`
	Outcome testrun.Outcome `json:"outcome"`
	// Duration is the time the reports state for the case, in seconds;
	// null when they state none.
	Duration *float64 `json:"duration"`
}

func strOrNil(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

func runSummaryOf(sr store.StoredRun) RunSummary {
	r := sr.Run
	rs := RunSummary{
		ID: r.ID, Kind: r.Kind, Counted: r.Counted(), Trusted: r.Trusted(), Complete: r.Complete,
		Counts: r.Counts, StartedAt: timeOrNil(r.StartedAt), EndedAt: timeOrNil(r.EndedAt),
		Repository: strOrNil(sr.Repo), Job: strOrNil(sr.JobID), Session: strOrNil(sr.SessionRef),
		Turn: sr.Turn, RecordedAt: sr.RecordedAt, CasesKept: sr.HasCases,
	}
	if r.Status != "" {
		st := r.Status
		rs.Status = &st
	}
	if r.Coverage != nil {
		rs.LineRate = r.Coverage.LineRate
	}
	return rs
}

// runWithoutCases is the run's JSON form with its per-case map left out,
// "cases" null (cases=true pages it).
func runWithoutCases(r *testrun.Run) json.RawMessage {
	b, err := r.MarshalJSONCasesLeftOut()
	if err != nil {
		return json.RawMessage("null")
	}
	return b
}

// summarized is the summary, the runs and the latest run of a job or
// session.
type summarized struct {
	Summary Summary
	Runs    []RunSummary
	Latest  json.RawMessage
	// latest and base are the full runs (nil when none).
	latest, base *testrun.Run
}

// summarize builds the summary of runs (in recorded order): of the latest
// counted run and the base testrun.ChooseLatest chooses.
func (s *Server) summarize(ctx context.Context, runs []store.StoredRun) (summarized, error) {
	out := summarized{Runs: make([]RunSummary, len(runs)), Summary: Summary{Failing: []string{}, Flaky: []string{}}}
	listed := make([]*testrun.Run, len(runs))
	for i, sr := range runs {
		out.Runs[i] = runSummaryOf(sr)
		listed[i] = sr.Run
	}
	choice := testrun.ChooseLatest(listed)
	out.Latest = runWithoutCases(runs[len(runs)-1].Run)
	// The summary and the comparison read no case but the failing ones
	// and, of the latest run, those failing in the base: the store reads
	// only those out of each run's cases.
	if choice.Base >= 0 {
		baseID := listed[choice.Base].ID
		out.Summary.BaseRun = &baseID
		b, err := s.withOutcomes(ctx, runs, baseID, nil)
		if err != nil {
			return out, err
		}
		out.base = b
	}
	if choice.Run < 0 {
		return out, nil
	}
	latestID := listed[choice.Run].ID
	var baseFailing []string
	if choice.Compared {
		for _, f := range out.base.Failures {
			baseFailing = append(baseFailing, f.ID)
		}
		for id := range out.base.Cases {
			baseFailing = append(baseFailing, id)
		}
	}
	l, err := s.withOutcomes(ctx, runs, latestID, baseFailing)
	if err != nil {
		return out, err
	}
	out.latest = l
	sum := &out.Summary
	sum.Run = &latestID
	sum.Counts = l.Counts
	sum.Failing = failingIDs(l, MaxFailingIDs)
	sum.Flaky = append(sum.Flaky, l.Flaky...)
	if l.Coverage != nil {
		sum.LineRate = l.Coverage.LineRate
	}
	if choice.Compared {
		// The latest run's outcomes were read for the base's failing
		// ids: while its case map is kept, an id missing from them did
		// not run. Once retention dropped it, what was fixed is unknown.
		var opts []testrun.CompareOption
		if runs[choice.Run].HasCases {
			opts = append(opts, testrun.WithAfterCasesKnown())
		}
		c := testrun.Compare(out.base, l, opts...)
		sum.Comparison = &c
		sum.CoverageDelta = c.CoverageDelta
	}
	return out, nil
}

// withOutcomes returns a copy of the listed run id with, as its cases, its
// failing cases and those of the ids in also (nil when it keeps none).
func (s *Server) withOutcomes(ctx context.Context, runs []store.StoredRun, id string, also []string) (*testrun.Run, error) {
	cases, err := s.runs.RunOutcomes(ctx, id, also)
	if err != nil {
		return nil, err
	}
	for _, sr := range runs {
		if sr.Run.ID == id {
			r := *sr.Run
			r.Cases, r.Durations = cases, nil
			return &r, nil
		}
	}
	return nil, store.ErrNotFound
}

// failingIDs are the first n failing ids of r: its failures in order, then
// failing cases by id.
func failingIDs(r *testrun.Run, n int) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, f := range r.Failures {
		if len(out) == n {
			return out
		}
		if !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f.ID)
		}
	}
	var rest []string
	for id, o := range r.Cases {
		if o.Failing() && !seen[id] {
			rest = append(rest, id)
		}
	}
	sort.Strings(rest)
	for _, id := range rest {
		if len(out) == n {
			break
		}
		out = append(out, id)
	}
	return out
}

// pageCases returns the cases of sr (a page that store.RunStore.RunPage
// read), sorted by id.
func pageCases(sr store.StoredRun) []CaseOutcome {
	ids := make([]string, 0, len(sr.Run.Cases))
	for id := range sr.Run.Cases {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	out := []CaseOutcome{}
	for _, id := range ids {
		c := CaseOutcome{ID: id, Outcome: sr.Run.Cases[id]}
		if d, ok := sr.Run.Durations[id]; ok {
			secs := d.Seconds()
			c.Duration = &secs
		}
		out = append(out, c)
	}
	return out
}
