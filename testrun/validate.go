package testrun

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxFileBytes is the longest source file path a failure keeps (see
// Execution.File): a longer one is dropped, not clipped, since a clipped
// path names another file.
const MaxFileBytes = 1024

// ValidFile reports whether file may be a failure's File: at most
// MaxFileBytes of valid UTF-8 without control characters. "" is valid (no
// file).
func ValidFile(file string) bool {
	if len(file) > MaxFileBytes || !utf8.ValidString(file) {
		return false
	}
	for _, r := range file {
		if unicode.IsControl(r) {
			return false
		}
	}
	return true
}

// validateLocation reports a failure's file or line out of bounds.
func (f *Failure) validateLocation() error {
	switch {
	case !ValidFile(f.File):
		return fmt.Errorf("%w: failure %q has a file that is not at most %d bytes of UTF-8 without control characters", ErrInvalidRun, f.ID, MaxFileBytes)
	case f.Line < 0:
		return fmt.Errorf("%w: failure %q has line %d, want 0 (unknown) or more", ErrInvalidRun, f.ID, f.Line)
	}
	return nil
}

// validateAgreement reports what the run's fields say against one another;
// failing is how many of its cases are failing.
func (r *Run) validateAgreement(failing int) error {
	if r.Complete {
		if len(r.IncompleteReasons) > 0 {
			return fmt.Errorf("%w: complete is true beside incomplete_reasons %q", ErrInvalidRun, r.IncompleteReasons)
		}
		for _, rep := range r.Reports {
			if rep.Error != "" && !rep.Skipped {
				return fmt.Errorf("%w: complete is true beside report %q refused: %s", ErrInvalidRun, rep.Path, rep.Error)
			}
		}
	}
	for i := range r.Reports {
		if err := r.Reports[i].validateRead(); err != nil {
			return err
		}
	}
	c := r.Counts
	if c == nil {
		if len(r.Failures) > 0 || len(r.Cases) > 0 || len(r.Flaky) > 0 {
			return fmt.Errorf("%w: counts are null but failures, cases or flaky are not empty", ErrInvalidRun)
		}
		return nil
	}
	// Counts are valid here, so failed + errors cannot wrap.
	counted := c.Failed + c.Errors
	// Distinct ids are counted only when there are more ids than the
	// count allows: fewer cannot hold more distinct ones.
	if len(r.Failures) > counted {
		if n := distinct(len(r.Failures), func(i int) string { return r.Failures[i].ID }); n > counted {
			return fmt.Errorf("%w: failures hold %d distinct ids, more than failed + errors (%d)", ErrInvalidRun, n, counted)
		}
	}
	if failing > counted {
		return fmt.Errorf("%w: cases hold %d failing ids, more than failed + errors (%d)", ErrInvalidRun, failing, counted)
	}
	if len(r.Cases) > c.Total {
		return fmt.Errorf("%w: cases hold %d ids, more than total (%d)", ErrInvalidRun, len(r.Cases), c.Total)
	}
	if len(r.Flaky) > c.Flaky {
		if n := distinct(len(r.Flaky), func(i int) string { return r.Flaky[i] }); n > c.Flaky {
			return fmt.Errorf("%w: flaky holds %d distinct ids, more than the flaky count (%d)", ErrInvalidRun, n, c.Flaky)
		}
	}
	return nil
}

// distinct is how many distinct values id(0) … id(n-1) hold.
func distinct(n int, id func(int) string) int {
	seen := make(map[string]struct{}, n)
	for i := range n {
		seen[id(i)] = struct{}{}
	}
	return len(seen)
}

// validateRead reports what one report entry says against itself. A
// report that was not read whole (refused: an error; skipped: listed but
// not read, as stale or not a report) adds nothing to the run, so it
// states no tests and no digest; a skipped entry says why in its error.
func (rep *ReportInfo) validateRead() error {
	if rep.Skipped && rep.Error == "" {
		return fmt.Errorf("%w: report %q is skipped without a reason (error is null)", ErrInvalidRun, rep.Path)
	}
	if rep.Error == "" {
		return nil
	}
	state := "refused"
	if rep.Skipped {
		state = "skipped"
	}
	switch {
	case rep.Tests != nil:
		return fmt.Errorf("%w: report %q is %s (%s) but states %d tests: a report not read adds none", ErrInvalidRun, rep.Path, state, rep.Error, *rep.Tests)
	case rep.SHA256 != "":
		return fmt.Errorf("%w: report %q is %s (%s) but has a sha256: only a report read whole has one", ErrInvalidRun, rep.Path, state, rep.Error)
	}
	return nil
}
