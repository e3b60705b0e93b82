package testrun

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// FlakyTTL is how long a test stays on the flaky list after it was last
// seen flaky.
const FlakyTTL = 30 * 24 * time.Hour

// MaxFlakySeen bounds the sightings an entry keeps (the most recent).
const MaxFlakySeen = 10

// FlakyHow is how a test was seen flaky.
type FlakyHow string

// Ways a test is seen flaky.
const (
	// FlakySameTree: it passed in one recorded run and failed in another on
	// the same tree (same repository, environment and tree digest).
	FlakySameTree FlakyHow = "same_tree"
	// FlakyRunnerRetry: the run itself reported it flaky (Run.Flaky): its
	// runner retried it and it passed (flakyFailure, flakyError), or it
	// failed and passed within the run.
	FlakyRunnerRetry FlakyHow = "runner_retry"
)

// ErrNotRecordable is returned (wrapped) by CheckRecordable for a run that
// must not add to the flaky list.
var ErrNotRecordable = errors.New("testrun: run does not add to the flaky list")

// CheckRecordable reports whether r may add to the flaky list: it needs an
// id and must be counted. gate runs (the agent's own checks) and graders
// below isolated never add: what the agent can forge must not excuse a
// failure later. Nor does an incomplete run: a test it reads as passed may
// have failed in a report it could not read, and that pass beside a real
// failure would read as a flip.
func CheckRecordable(r *Run) error {
	switch {
	case r == nil:
		return fmt.Errorf("%w: no run", ErrNotRecordable)
	case r.ID == "":
		return fmt.Errorf("%w: the run has no id", ErrNotRecordable)
	case r.Kind == KindGate:
		return fmt.Errorf("%w: run %q is a gate run", ErrNotRecordable, r.ID)
	case !r.Trusted():
		return fmt.Errorf("%w: run %q (kind %q, grade %q) is not trusted", ErrNotRecordable, r.ID, r.Kind, r.Grade)
	case !r.Counted():
		return fmt.Errorf("%w: run %q is not counted (incomplete, or no test ran): what it reads as passed is not known to have passed", ErrNotRecordable, r.ID)
	}
	return nil
}

// FlakySeen is one sighting of a flaky test.
type FlakySeen struct {
	How FlakyHow `json:"how"`
	// Runs are the runs that showed it: the run itself for a runner
	// retry; a run where it passed and one where it failed for a same-tree
	// flip.
	Runs []string  `json:"runs"`
	At   time.Time `json:"at"`
}

// FlakyEntry is one test on the flaky list of a repository and
// environment.
type FlakyEntry struct {
	Repository  string    `json:"repository"`
	Environment string    `json:"environment"`
	TestID      string    `json:"test_id"`
	FirstSeen   time.Time `json:"first_seen"`
	LastSeen    time.Time `json:"last_seen"`
	// How lists, sorted, every way it was seen flaky.
	How []FlakyHow `json:"how"`
	// Sightings counts every sighting; Seen keeps the last MaxFlakySeen.
	Sightings int64       `json:"sightings"`
	Seen      []FlakySeen `json:"seen"`
}

// Add merges one sighting into e: first and last seen widen, how gains
// s.How, and Seen keeps the most recent MaxFlakySeen sightings in time
// order. An entry that had expired by s.At starts afresh: it was off the
// list, and its first seen is s.At.
func (e *FlakyEntry) Add(s FlakySeen) {
	if !e.LastSeen.IsZero() && e.Expired(s.At) {
		*e = FlakyEntry{Repository: e.Repository, Environment: e.Environment, TestID: e.TestID}
	}
	if e.FirstSeen.IsZero() || s.At.Before(e.FirstSeen) {
		e.FirstSeen = s.At
	}
	if s.At.After(e.LastSeen) {
		e.LastSeen = s.At
	}
	found := false
	for _, h := range e.How {
		found = found || h == s.How
	}
	if !found {
		e.How = append(e.How, s.How)
		sort.Slice(e.How, func(i, j int) bool { return e.How[i] < e.How[j] })
	}
	e.Sightings++
	e.Seen = append(e.Seen, s)
	sort.SliceStable(e.Seen, func(i, j int) bool { return e.Seen[i].At.Before(e.Seen[j].At) })
	if n := len(e.Seen); n > MaxFlakySeen {
		e.Seen = append([]FlakySeen(nil), e.Seen[n-MaxFlakySeen:]...)
	}
}

// Expired reports whether e was last seen flaky more than FlakyTTL before
// now.
func (e FlakyEntry) Expired(now time.Time) bool {
	return now.Sub(e.LastSeen) > FlakyTTL
}

// Excused reports whether e excuses a failure of its test in a job that
// started at jobStart: only a sighting from before the job started, and
// less than FlakyTTL before it, counts; what the job's own runs added
// never does. When the sightings kept do not reach back before the job,
// the answer is no.
func (e FlakyEntry) Excused(jobStart time.Time) bool {
	if !e.FirstSeen.Before(jobStart) {
		return false
	}
	for _, s := range e.Seen {
		if s.At.Before(jobStart) && jobStart.Sub(s.At) <= FlakyTTL {
			return true
		}
	}
	return false
}

// TreeObservation is what one run says of one test on its tree.
type TreeObservation struct {
	TestID         string
	Passed, Failed bool
}

// TreeObservations lists what r says of each test it ran: passed, or
// failed (or error), by its final outcome; a test the run itself reports
// flaky is a runner-retry sighting already and counts by its final outcome
// here. Skipped tests say nothing. A run without a tree digest says nothing
// either: runs are compared only on the same tree.
func TreeObservations(r *Run) []TreeObservation {
	if r == nil || r.Tree == "" {
		return nil
	}
	ids := make([]string, 0, len(r.Cases))
	for id := range r.Cases {
		ids = append(ids, id)
	}
	for _, f := range r.Failures {
		if _, ok := r.Cases[f.ID]; !ok {
			ids = append(ids, f.ID)
		}
	}
	sort.Strings(ids)
	out := make([]TreeObservation, 0, len(ids))
	for _, id := range ids {
		o := r.OutcomeOf(id)
		ob := TreeObservation{TestID: id, Passed: o == OutcomePassed, Failed: o.Failing()}
		if ob.Passed || ob.Failed {
			out = append(out, ob)
		}
	}
	return out
}

// TreeHistory is what the recorded runs on one tree showed of one test: a
// run where it passed and a run where it failed ("" when none).
type TreeHistory struct {
	PassedRun, FailedRun string
}

// With returns h after run runID observed o: the first run that passed
// and the first that failed are kept.
func (h TreeHistory) With(o TreeObservation, runID string) TreeHistory {
	if o.Passed && h.PassedRun == "" {
		h.PassedRun = runID
	}
	if o.Failed && h.FailedRun == "" {
		h.FailedRun = runID
	}
	return h
}

// Flipped reports whether the test both passed and failed on the tree.
func (h TreeHistory) Flipped() bool { return h.PassedRun != "" && h.FailedRun != "" }

// RunSightings returns the sightings that r adds, given the tree history
// of each of its tests after r was recorded into it: a runner retry for
// each id of r.Flaky, and a same-tree flip for each test that passed and
// failed on r's tree.
func RunSightings(r *Run, history map[string]TreeHistory, at time.Time) map[string][]FlakySeen {
	out := map[string][]FlakySeen{}
	for _, id := range r.Flaky {
		out[id] = append(out[id], FlakySeen{How: FlakyRunnerRetry, Runs: []string{r.ID}, At: at})
	}
	ids := make([]string, 0, len(history))
	for id := range history {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if h := history[id]; h.Flipped() {
			runs := []string{h.PassedRun, h.FailedRun}
			if runs[0] == runs[1] {
				runs = runs[:1]
			}
			out[id] = append(out[id], FlakySeen{How: FlakySameTree, Runs: runs, At: at})
		}
	}
	return out
}

// Excusal is what the flaky list excuses of a run: the failures it was
// asked about, each excused or not, and whether the run is transient.
type Excusal struct {
	// NewOnly is true when the list was asked about the new failures
	// against a base only (a comparison was given).
	NewOnly bool `json:"new_failures_only"`
	// Failures are the failures the list was asked about, sorted by id.
	Failures []ExcusedFailure `json:"failures"`
	// Unknown says why the failures are not known whole, "" when they are;
	// nothing is then excused.
	Unknown string `json:"unknown_reason,omitempty"`
	// Transient is true when there is at least one failure and the list
	// excuses every one.
	Transient bool `json:"transient"`
}

// ExcusedFailure is one failure and whether the flaky list excuses it.
type ExcusedFailure struct {
	ID      string `json:"id"`
	Excused bool   `json:"excused"`
}

// ExcusableFailures returns, sorted, the failures of after that the flaky
// list is asked about. Without a comparison (cmp nil) they are every
// failing id of after; with one only the new failures: on a red base the
// base's own failures are not the change's, and no list needs to excuse
// them. It fails when they are not known whole (after's failing ids, or the
// comparison, unavailable).
func ExcusableFailures(after *Run, cmp *Comparison) ([]string, error) {
	ids := []string{}
	if cmp != nil {
		if !cmp.Available {
			return nil, fmt.Errorf("%w: %s", ErrComparisonUnavailable, cmp.Unavailable)
		}
		for _, f := range cmp.NewFailures {
			ids = append(ids, f.ID)
		}
	} else {
		failing, err := FailingIDs(after)
		if err != nil {
			return nil, err
		}
		for id := range failing {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, nil
}

// Excuse is the one rule for which failures of the run after the flaky
// list excuses, used by the rerun of a flaky check, the flaky check and the
// packet: the failures are ExcusableFailures(after, cmp), and excused
// answers for them whether an entry on the list before the job started
// excuses each (FlakyEntry.Excused; a store answers it for many ids at
// once). excused is not called when the failures are unknown or there are
// none; its error is returned as it is.
func Excuse(after *Run, cmp *Comparison, excused func(ids []string) (map[string]bool, error)) (Excusal, error) {
	e := Excusal{NewOnly: cmp != nil, Failures: []ExcusedFailure{}}
	ids, err := ExcusableFailures(after, cmp)
	if err != nil {
		if cmp != nil {
			e.Unknown = cmp.Unavailable
		} else {
			e.Unknown = err.Error()
		}
		return e, nil
	}
	if len(ids) == 0 {
		return e, nil
	}
	on, err := excused(ids)
	if err != nil {
		return Excusal{}, err
	}
	e.Transient = true
	for _, id := range ids {
		e.Failures = append(e.Failures, ExcusedFailure{ID: id, Excused: on[id]})
		e.Transient = e.Transient && on[id]
	}
	return e, nil
}

// Reason says why e is not transient, for people ("" when it is).
func (e Excusal) Reason() string {
	if e.Transient {
		return ""
	}
	switch {
	case e.Unknown != "" && e.NewOnly:
		return "new failures unknown: " + e.Unknown
	case e.Unknown != "":
		return "failures unknown: " + e.Unknown
	case len(e.Failures) == 0 && e.NewOnly:
		return "no new failure (the base failed the same way)"
	case len(e.Failures) == 0:
		return "the check failed without a failing test"
	}
	var not []string
	for _, f := range e.Failures {
		if !f.Excused {
			not = append(not, f.ID)
		}
	}
	return "not on the flaky list before the job started: " + strings.Join(not, ", ")
}

// Excused lists the ids of the failures e excuses.
func (e Excusal) Excused() []string {
	var ids []string
	for _, f := range e.Failures {
		if f.Excused {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// Transient reports whether a failed check is transient: its failing ids
// are known whole, there is at least one, and the flaky list excuses every
// one (excused answers for one test id). It is Excuse without a base.
func Transient(r *Run, excused func(id string) bool) bool {
	e, _ := Excuse(r, nil, func(ids []string) (map[string]bool, error) {
		on := make(map[string]bool, len(ids))
		for _, id := range ids {
			on[id] = excused(id)
		}
		return on, nil
	})
	return e.Transient
}

// FlakyRepoSummary is one repository's line in the flaky summary.
type FlakyRepoSummary struct {
	Repository string `json:"repository"`
	// Tests counts the live entries of the repository (all environments).
	Tests int64 `json:"tests"`
	// Worst is its entry with the most sightings (then the latest seen,
	// then the smallest test id).
	Worst FlakyEntry `json:"worst"`
}

// Worse orders entries for the summary: more sightings first, then the
// latest seen, then by environment and test id.
func Worse(a, b FlakyEntry) bool {
	if a.Sightings != b.Sightings {
		return a.Sightings > b.Sightings
	}
	if !a.LastSeen.Equal(b.LastSeen) {
		return a.LastSeen.After(b.LastSeen)
	}
	if a.Environment != b.Environment {
		return a.Environment < b.Environment
	}
	return a.TestID < b.TestID
}
