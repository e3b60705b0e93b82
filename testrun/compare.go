package testrun

import (
	"errors"
	"fmt"
	"sort"
)

// ErrComparisonUnavailable is returned when two runs cannot be compared
// exactly: an empty list of new failures would then read as "nothing new".
var ErrComparisonUnavailable = errors.New("testrun: comparison unavailable")

// FailingIDs returns the set of test ids that failed or errored in r. It
// fails with ErrComparisonUnavailable when the set is not known whole: the
// run is incomplete, has no counts, or lists fewer failing ids than it
// counts.
func FailingIDs(r *Run) (map[string]bool, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no run", ErrComparisonUnavailable)
	}
	if r.Counts == nil {
		return nil, fmt.Errorf("%w: run %q has no counts (no report was read)", ErrComparisonUnavailable, r.ID)
	}
	if !r.Complete {
		return nil, fmt.Errorf("%w: run %q is incomplete", ErrComparisonUnavailable, r.ID)
	}
	set := make(map[string]bool, r.Counts.Failed+r.Counts.Errors)
	for _, f := range r.Failures {
		set[f.ID] = true
	}
	for id, o := range r.Cases {
		if o.Failing() {
			set[id] = true
		}
	}
	if want := r.Counts.Failed + r.Counts.Errors; len(set) != want {
		return nil, fmt.Errorf("%w: run %q lists %d failing ids but counts %d", ErrComparisonUnavailable, r.ID, len(set), want)
	}
	return set, nil
}

// NewFailures returns, sorted, the ids failing in after and not failing in
// base: exactly the set difference, only when both runs are complete and
// their failing ids are known whole. Otherwise it returns an error wrapping
// ErrComparisonUnavailable and no list.
func NewFailures(base, after *Run) ([]string, error) {
	baseFailing, err := FailingIDs(base)
	if err != nil {
		return nil, fmt.Errorf("base: %w", err)
	}
	afterFailing, err := FailingIDs(after)
	if err != nil {
		return nil, fmt.Errorf("after: %w", err)
	}
	out := []string{}
	for id := range afterFailing {
		if !baseFailing[id] {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out, nil
}
