package testrun

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestChooseLatest(t *testing.T) {
	counted := func(id string, kind Kind) *Run {
		return &Run{ID: id, Kind: kind, Complete: true, Counts: &Counts{Total: 3, Passed: 3}}
	}
	incomplete := func(id string, kind Kind) *Run {
		r := counted(id, kind)
		r.Complete = false
		return r
	}
	noTests := func(id string, kind Kind) *Run {
		r := counted(id, kind)
		r.Counts = &Counts{}
		return r
	}
	noCounts := func(id string, kind Kind) *Run { return &Run{ID: id, Kind: kind, Complete: true} }
	startedLater := counted("late", KindAfterTurn)
	startedLater.StartedAt = time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name string
		runs []*Run
		want Latest
	}{
		{"none", nil, Latest{Run: -1, Base: -1}},
		{"one after turn", []*Run{counted("a", KindAfterTurn)}, Latest{Run: 0, Base: -1}},
		{"base then after turn", []*Run{counted("b", KindBase), counted("a", KindAfterTurn)}, Latest{Run: 1, Base: 0, Compared: true}},
		{"the later of two counted", []*Run{counted("b", KindBase), counted("a1", KindAfterTurn), counted("a2", KindRerun)}, Latest{Run: 2, Base: 0, Compared: true}},
		{"an uncounted gate after the counted run", []*Run{counted("b", KindBase), counted("a", KindAfterTurn), counted("g", KindGate)}, Latest{Run: 1, Base: 0, Compared: true}},
		{"no kind is not counted", []*Run{counted("b", KindBase), counted("x", "")}, Latest{Run: 0, Base: 0}},
		{"incomplete is not counted", []*Run{counted("b", KindBase), incomplete("a", KindAfterTurn)}, Latest{Run: 0, Base: 0}},
		{"no tests is not counted", []*Run{counted("b", KindBase), noTests("a", KindAfterTurn)}, Latest{Run: 0, Base: 0}},
		{"no counts is not counted", []*Run{counted("b", KindBase), noCounts("a", KindAfterTurn)}, Latest{Run: 0, Base: 0}},
		{"an ungraded grader is not counted", []*Run{counted("b", KindBase), counted("gr", KindGrader)}, Latest{Run: 0, Base: 0}},
		{"the base alone is its own latest, not compared", []*Run{counted("b", KindBase)}, Latest{Run: 0, Base: 0}},
		{"an uncounted base is still the base", []*Run{incomplete("b", KindBase), counted("a", KindAfterTurn)}, Latest{Run: 1, Base: 0, Compared: true}},
		{"the latest base, even after the counted run", []*Run{counted("b1", KindBase), counted("a", KindAfterTurn), incomplete("b2", KindBase)}, Latest{Run: 1, Base: 2, Compared: true}},
		{"nothing counted, a base", []*Run{incomplete("b", KindBase), counted("g", KindGate)}, Latest{Run: -1, Base: 0}},
		{"the same run twice is not compared with itself", []*Run{counted("b", KindBase), counted("b", KindBase)}, Latest{Run: 1, Base: 1}},
		{"recorded order, not times", []*Run{startedLater, counted("early", KindAfterTurn)}, Latest{Run: 1, Base: -1}},
		{"nil runs are skipped", []*Run{counted("b", KindBase), nil, counted("a", KindAfterTurn), nil}, Latest{Run: 2, Base: 0, Compared: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ChooseLatest(tc.runs))
		})
	}
}
