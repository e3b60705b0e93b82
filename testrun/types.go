package testrun

// Kind is the kind of a run: where and why the check ran.
type Kind string

// Run kinds.
const (
	KindBase       Kind = "base"
	KindAfterTurn  Kind = "after_turn"
	KindRerun      Kind = "rerun"
	KindAttempt    Kind = "attempt"
	KindSetup      Kind = "setup"
	KindAcceptance Kind = "acceptance"
	KindGrader     Kind = "grader"
	KindGate       Kind = "gate"
)

// Kinds lists every valid Kind.
var Kinds = []Kind{KindBase, KindAfterTurn, KindRerun, KindAttempt, KindSetup, KindAcceptance, KindGrader, KindGate}

// Valid reports whether k is one of Kinds.
func (k Kind) Valid() bool {
	for _, v := range Kinds {
		if k == v {
			return true
		}
	}
	return false
}

// GradeIsolated is the only grader grade that is trusted. Any other grade is
// lower than isolated.
const GradeIsolated = "isolated"

// Status is how the check's process ended.
type Status string

// Run statuses; the values are those of test.suite.run.status.
const (
	StatusSuccess  Status = "success"
	StatusFailure  Status = "failure"
	StatusTimedOut Status = "timed_out"
	StatusAborted  Status = "aborted"
)

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	switch s {
	case StatusSuccess, StatusFailure, StatusTimedOut, StatusAborted:
		return true
	}
	return false
}

// Outcome is the result of one test case.
type Outcome string

// Outcomes, ordered from best to worst by Severity.
const (
	OutcomeSkipped Outcome = "skipped"
	OutcomePassed  Outcome = "passed"
	OutcomeFailed  Outcome = "failed"
	OutcomeError   Outcome = "error"
)

// Valid reports whether o is a known outcome.
func (o Outcome) Valid() bool { return o.Severity() >= 0 }

// Failing reports whether o is failed or error.
func (o Outcome) Failing() bool { return o == OutcomeFailed || o == OutcomeError }

// Severity orders outcomes for merging across configurations:
// error > failed > passed > skipped. It is -1 for an unknown outcome.
func (o Outcome) Severity() int {
	switch o {
	case OutcomeSkipped:
		return 0
	case OutcomePassed:
		return 1
	case OutcomeFailed:
		return 2
	case OutcomeError:
		return 3
	}
	return -1
}
