package testrun

// IsTrusted reports whether a run of this kind and grade ran where the agent
// cannot forge it: kinds base, after_turn, rerun, attempt, setup and
// acceptance, and grader with grade isolated. gate runs, graders below
// isolated and unknown kinds are not trusted.
func IsTrusted(kind Kind, grade string) bool {
	switch kind {
	case KindBase, KindAfterTurn, KindRerun, KindAttempt, KindSetup, KindAcceptance:
		return true
	case KindGrader:
		return grade == GradeIsolated
	}
	return false
}

// IsCounted reports whether a run answers "did the tests run": it is trusted,
// ran at least one test and every report was read whole. Anything that asks
// that question reads IsCounted, never the exit code and never trust alone.
func IsCounted(kind Kind, grade string, total int64, complete bool) bool {
	return IsTrusted(kind, grade) && total > 0 && complete
}

// Trusted reports whether the run is trusted (see IsTrusted).
func (r *Run) Trusted() bool {
	if r == nil {
		return false
	}
	return IsTrusted(r.Kind, r.Grade)
}

// Counted reports whether the run is counted (see IsCounted). A run without
// counts is never counted: absence is never zero.
func (r *Run) Counted() bool {
	if r == nil || r.Counts == nil {
		return false
	}
	return IsCounted(r.Kind, r.Grade, int64(r.Counts.Total), r.Complete)
}

// EventTrusted is the hangar.test.run.trusted flag of the run's test.run
// event: the run is trusted and its counts are present and valid. A
// test.run whose counts are missing or not valid is neither trusted nor
// counted, whoever sends it (the Collector processor's rule), so an honest
// export and the processor agree on every run.
func (r *Run) EventTrusted() bool {
	return r.Trusted() && r.Counts != nil && r.Counts.Valid()
}
