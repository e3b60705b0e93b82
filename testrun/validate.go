package testrun

import "fmt"

// validateAgreement reports what the run's fields say against one another.
func (r *Run) validateAgreement() error {
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
	failing := c.Failed + c.Errors
	ids := make(map[string]bool, len(r.Failures))
	for _, f := range r.Failures {
		ids[f.ID] = true
	}
	if len(ids) > failing {
		return fmt.Errorf("%w: failures hold %d distinct ids, more than failed + errors (%d)", ErrInvalidRun, len(ids), failing)
	}
	n := 0
	for _, o := range r.Cases {
		if o.Failing() {
			n++
		}
	}
	if n > failing {
		return fmt.Errorf("%w: cases hold %d failing ids, more than failed + errors (%d)", ErrInvalidRun, n, failing)
	}
	if len(r.Cases) > c.Total {
		return fmt.Errorf("%w: cases hold %d ids, more than total (%d)", ErrInvalidRun, len(r.Cases), c.Total)
	}
	flaky := make(map[string]bool, len(r.Flaky))
	for _, id := range r.Flaky {
		flaky[id] = true
	}
	if len(flaky) > c.Flaky {
		return fmt.Errorf("%w: flaky holds %d distinct ids, more than the flaky count (%d)", ErrInvalidRun, len(flaky), c.Flaky)
	}
	return nil
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
