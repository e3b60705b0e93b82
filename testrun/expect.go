package testrun

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"
)

// Limits of an expected-ids input (ReadExpectedIDs).
const (
	// MaxExpectedIDs is the most distinct test ids a run may be expected
	// to mention.
	MaxExpectedIDs = 100_000
	// MaxExpectedBytes is the largest expected-ids input read (16 MiB).
	MaxExpectedBytes = 16 << 20
	// MaxNotRunIDs is how many of the expected ids that never ran a run
	// lists in NotRun.IDs (the first in sorted order); NotRun.Count counts
	// them all.
	MaxNotRunIDs = 200
)

// ErrExpectedIDs is wrapped by every refusal of ReadExpectedIDs.
var ErrExpectedIDs = errors.New("testrun: expected ids")

// NotRun is what a run given the tests it was expected to run (WithExpectedIDs,
// Run.ExpectIDs) found of them: the expected ids that no report read
// mentions, with any outcome (a skipped test is mentioned). Such a run is
// incomplete: a test that never ran is not a test that passed.
type NotRun struct {
	// Count is how many expected ids no report mentions, between len(IDs)
	// and MaxExpectedIDs.
	Count int
	// IDs are the first MaxNotRunIDs of them, sorted and distinct.
	IDs []string
}

// NotRunReason is the incomplete reason of a run in which n expected tests
// never ran.
func NotRunReason(n int) string {
	if n == 1 {
		return "1 expected test never ran (no report read mentions it)"
	}
	return fmt.Sprintf("%d expected tests never ran (no report read mentions them)", n)
}

// ReadExpectedIDsFile is ReadExpectedIDs of the file at path; its errors
// name the path.
func ReadExpectedIDsFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ids, err := ReadExpectedIDs(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ids, nil
}

// ReadExpectedIDs reads the test ids a run is expected to mention, at most
// MaxExpectedBytes of valid UTF-8, in one of two forms told apart by their
// first character other than white space:
//
//   - '{': a run's JSON form (read as strictly as ReadRun), whose cases are
//     the expected ids; a run without cases, or one whose cases were capped
//     (fewer than its total), is refused: its cases are not every test;
//   - otherwise one test id a line, exactly as a run's cases name it
//     (classname::name); lines holding only white space are passed over, a
//     CR before the LF is dropped, and every other line is an id as it
//     stands (no comments, no trimming).
//
// The ids are returned sorted and distinct; there is at least one and at
// most MaxExpectedIDs of them. Every refusal wraps ErrExpectedIDs; an error
// of r itself is returned wrapped as it is.
func ReadExpectedIDs(r io.Reader) ([]string, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxExpectedBytes+1))
	if err != nil {
		return nil, fmt.Errorf("testrun: read expected ids: %w", err)
	}
	if len(data) > MaxExpectedBytes {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrExpectedIDs, MaxExpectedBytes>>20)
	}
	if !utf8.Valid(data) {
		return nil, fmt.Errorf("%w: not valid UTF-8", ErrExpectedIDs)
	}
	var ids []string
	if trimmed := bytes.TrimLeft(data, " \t\r\n"); len(trimmed) > 0 && trimmed[0] == '{' {
		if ids, err = runCaseIDs(data); err != nil {
			return nil, err
		}
	} else {
		for n, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSuffix(line, []byte("\r"))
			if len(bytes.TrimSpace(line)) == 0 {
				continue
			}
			if bytes.IndexByte(line, '\r') >= 0 || bytes.IndexByte(line, 0) >= 0 {
				return nil, fmt.Errorf("%w: line %d holds a CR or NUL byte", ErrExpectedIDs, n+1)
			}
			ids = append(ids, string(line))
		}
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	switch {
	case len(ids) == 0:
		return nil, fmt.Errorf("%w: no test id (an empty expectation would expect nothing)", ErrExpectedIDs)
	case len(ids) > MaxExpectedIDs:
		return nil, fmt.Errorf("%w: %d distinct ids, more than %d", ErrExpectedIDs, len(ids), MaxExpectedIDs)
	}
	return ids, nil
}

// runCaseIDs returns the ids of the cases of the run data holds.
func runCaseIDs(data []byte) ([]string, error) {
	var run Run
	if err := run.UnmarshalJSON(data); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrExpectedIDs, err)
	}
	switch {
	case len(run.Cases) == 0:
		return nil, fmt.Errorf("%w: the run %q has no cases", ErrExpectedIDs, run.ID)
	case run.Counts != nil && len(run.Cases) < run.Counts.Total:
		return nil, fmt.Errorf("%w: the run %q keeps %d of its %d cases: they are not every test", ErrExpectedIDs, run.ID, len(run.Cases), run.Counts.Total)
	case len(run.Cases) > MaxExpectedIDs:
		return nil, fmt.Errorf("%w: %d distinct ids, more than %d", ErrExpectedIDs, len(run.Cases), MaxExpectedIDs)
	}
	ids := make([]string, 0, len(run.Cases))
	for id := range run.Cases {
		ids = append(ids, id)
	}
	return ids, nil
}

// notRunOf returns the expected ids (sorted, distinct) for which ran is
// false.
func notRunOf(expected []string, ran func(string) bool) *NotRun {
	nr := &NotRun{}
	for _, id := range expected {
		if ran(id) {
			continue
		}
		nr.Count++
		if len(nr.IDs) < MaxNotRunIDs {
			nr.IDs = append(nr.IDs, id)
		}
	}
	return nr
}

// expectedSet returns ids sorted and distinct, without the empty id (no
// test has it), in a slice of its own.
func expectedSet(ids []string) []string {
	return slices.DeleteFunc(slices.Compact(slices.Sorted(slices.Values(ids))), func(id string) bool { return id == "" })
}

// expectIDs sets r.NotRun to what ran says of expected (from expectedSet)
// and, when some expected test never ran, makes r incomplete with the
// reason. More than MaxExpectedIDs ids are not checked: NotRun stays nil
// (unknown) and r is incomplete with that reason.
func (r *Run) expectIDs(expected []string, ran func(string) bool) {
	if len(expected) > MaxExpectedIDs {
		r.NotRun = nil
		r.Complete = false
		r.IncompleteReasons = append(r.IncompleteReasons, fmt.Sprintf(
			"whether the %d expected tests ran is not checked: more than %d", len(expected), MaxExpectedIDs))
		return
	}
	r.NotRun = notRunOf(expected, ran)
	if r.NotRun.Count > 0 {
		r.Complete = false
		r.IncompleteReasons = append(r.IncompleteReasons, NotRunReason(r.NotRun.Count))
	}
}

// ExpectIDs checks a built run against the tests it was expected to run
// (ids in any order, each counted once, the empty id passed over): it sets
// NotRun to the expected ids its cases do not mention and, when there is
// one, makes the run incomplete with the reason (NotRunReason).
//
// A run whose cases were capped (fewer than its total) may have run an id
// it did not keep: it cannot tell which expected ids never ran, so NotRun
// stays nil (unknown) and the run is made incomplete with that reason. A
// Builder given WithExpectedIDs decides before it caps the cases and never
// needs that: prefer it wherever the run is built.
func (r *Run) ExpectIDs(expected []string) {
	expected = expectedSet(expected)
	if r.Counts != nil && len(r.Cases) < r.Counts.Total {
		r.NotRun = nil
		r.Complete = false
		r.IncompleteReasons = append(r.IncompleteReasons, fmt.Sprintf(
			"whether the %d expected tests ran is unknown: the run keeps %d of its %d cases", len(expected), len(r.Cases), r.Counts.Total))
		return
	}
	r.expectIDs(expected, func(id string) bool {
		_, ok := r.Cases[id]
		return ok
	})
}

// validateNotRun reports what makes r.NotRun unusable or contradicts the
// rest of the run.
func (r *Run) validateNotRun() error {
	nr := r.NotRun
	if nr == nil {
		return nil
	}
	switch {
	case nr.Count < len(nr.IDs) || nr.Count > MaxExpectedIDs:
		return fmt.Errorf("%w: not_run_count is %d beside %d ids in not_run, want %d to %d", ErrInvalidRun, nr.Count, len(nr.IDs), len(nr.IDs), MaxExpectedIDs)
	case len(nr.IDs) > MaxNotRunIDs:
		return fmt.Errorf("%w: not_run lists %d ids, more than %d", ErrInvalidRun, len(nr.IDs), MaxNotRunIDs)
	case nr.Count > len(nr.IDs) && len(nr.IDs) < MaxNotRunIDs:
		return fmt.Errorf("%w: not_run lists %d of not_run_count %d ids: it lists them all or the first %d", ErrInvalidRun, len(nr.IDs), nr.Count, MaxNotRunIDs)
	case nr.Count > 0 && r.Complete:
		return fmt.Errorf("%w: complete is true beside expected tests that never ran (%d)", ErrInvalidRun, nr.Count)
	}
	for i, id := range nr.IDs {
		switch {
		case id == "":
			return fmt.Errorf("%w: not_run[%d] is an empty test id", ErrInvalidRun, i)
		case i > 0 && id <= nr.IDs[i-1]:
			return fmt.Errorf("%w: not_run is not sorted and distinct at %q", ErrInvalidRun, id)
		}
		if _, ok := r.Cases[id]; ok {
			return fmt.Errorf("%w: not_run names %q, which is in cases: it ran", ErrInvalidRun, id)
		}
	}
	return nil
}
