package translate

import (
	"fmt"

	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// VerdictBrokenIDs is how many broken test ids a test.verdict event lists
// (hangar.test.verdict.broken_ids); the count says how many there are.
const VerdictBrokenIDs = 20

// VerdictEvent returns the test.verdict event of a paired comparison: its
// decision, how many tests had each verdict, the first VerdictBrokenIDs
// broken ids in id order, and the reason of an invalid comparison. Its time
// is the zero time; AddVerdict places it.
func VerdictEvent(p *testrun.Paired) (Event, error) {
	if p == nil {
		return Event{}, fmt.Errorf("%w: no verdict", ErrInvalid)
	}
	switch p.Decision {
	case testrun.DecisionReject, testrun.DecisionBlock, testrun.DecisionAllow, testrun.DecisionInvalid:
	default:
		return Event{}, fmt.Errorf("%w: verdict decision %q", ErrInvalid, p.Decision)
	}
	n := min(len(p.Broken), VerdictBrokenIDs)
	ids := make([]string, n)
	for i, tv := range p.Broken[:n] {
		ids[i] = valid(tv.ID)
	}
	attrs := []attribute.KeyValue{
		semconv.TestVerdictDecisionKey.String(string(p.Decision)),
		semconv.TestVerdictBrokenKey.Int(len(p.Broken)),
		semconv.TestVerdictRepairedKey.Int(len(p.Repaired)),
		semconv.TestVerdictFrozenKey.Int(len(p.Frozen)),
		semconv.TestVerdictUnchangedKey.Int(p.Unchanged),
		semconv.TestVerdictInconclusiveKey.Int(len(p.Inconclusive)),
		semconv.TestVerdictBrokenIDsKey.StringSlice(ids),
	}
	if p.Decision == testrun.DecisionInvalid {
		attrs = append(attrs, semconv.TestVerdictReasonKey.String(valid(p.Invalid)))
	}
	return Event{Name: semconv.EventTestVerdict, Attrs: attrs}, nil
}

// AddVerdict appends the test.verdict event of p to s, one EventStep after
// the later of the span's end and its last event, and ends the span there:
// the time depends on the runs only, so the export stays deterministic.
func AddVerdict(s *Span, p *testrun.Paired) error {
	ev, err := VerdictEvent(p)
	if err != nil {
		return err
	}
	ev.Time = coverEvents(s.End, s.Events).Add(EventStep)
	s.Events = append(s.Events, ev)
	s.End = ev.Time
	return nil
}
