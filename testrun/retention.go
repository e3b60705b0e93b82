package testrun

import "time"

// Retention: how long a run and its per-case outcomes are kept. The report
// folders (check.Prune) and the store (store.PruneRuns) both apply it
// through Retain, each from its own clock: a folder's run from its
// started_at, a stored run from its last recording.
const (
	// RunRetention is how long a run is kept at all.
	RunRetention = 14 * 24 * time.Hour
	// CasesRetention is how long a run keeps its per-case outcomes (cases
	// and durations); afterwards it keeps its counts and failures only.
	CasesRetention = 3 * 24 * time.Hour
	// BaseCasesRetention is CasesRetention for runs of kind base, which
	// later runs are compared with.
	BaseCasesRetention = 14 * 24 * time.Hour
)

// Retained is what retention keeps of a run.
type Retained uint8

const (
	// RetainAll keeps the run whole.
	RetainAll Retained = iota
	// RetainCounts keeps the run without its per-case outcomes.
	RetainCounts
	// RetainNothing removes the run.
	RetainNothing
)

// String names what is kept.
func (r Retained) String() string {
	switch r {
	case RetainAll:
		return "all"
	case RetainCounts:
		return "counts"
	case RetainNothing:
		return "nothing"
	}
	return "unknown"
}

// CasesRetentionFor is how long a run of kind k keeps its per-case
// outcomes: BaseCasesRetention for a base run, CasesRetention for any other
// (an unknown kind included).
func CasesRetentionFor(k Kind) time.Duration {
	if k == KindBase {
		return BaseCasesRetention
	}
	return CasesRetention
}

// Retain is what retention keeps of a run of kind k that is age old: all
// of it up to CasesRetentionFor(k), its counts and failures up to
// RunRetention, nothing after. An age equal to a limit is still within it.
func Retain(k Kind, age time.Duration) Retained {
	switch {
	case age > RunRetention:
		return RetainNothing
	case age > CasesRetentionFor(k):
		return RetainCounts
	}
	return RetainAll
}
