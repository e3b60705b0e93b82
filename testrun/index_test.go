package testrun

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestIDIndex checks the id table across its growth: every id is found at
// the position it was inserted at, ids never inserted are not found, and
// reserve keeps what was there.
func TestIDIndex(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		reserve int // reserved before inserting, 0 for none
	}{
		{name: "empty", n: 0},
		{name: "one", n: 1},
		{name: "across several growths", n: 5000},
		{name: "reserved up front", n: 5000, reserve: 5000},
		{name: "reserved too little", n: 5000, reserve: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var x idIndex
			var cases caseList
			if tt.reserve > 0 {
				x.reserve(tt.reserve)
			}
			for i := range tt.n {
				id := fmt.Sprintf("pkg.Class%d::test_%d", i%7, i)
				pos, h := x.find(id, &cases)
				require.Equal(t, int32(-1), pos, "new id %s found", id)
				x.insert(h, cases.add(caseState{id: id}))
			}
			assert.Equal(t, tt.n, x.n)
			assert.LessOrEqual(t, 2*x.n, len(x.slots), "the table stays at most half full")
			for i := range tt.n {
				pos, _ := x.find(cases.at(int32(i)).id, &cases)
				require.Equal(t, int32(i), pos, "id %s", cases.at(int32(i)).id)
			}
			x.reserve(100)
			for i := range tt.n {
				pos, _ := x.find(cases.at(int32(i)).id, &cases)
				require.Equal(t, int32(i), pos, "after reserve, id %s", cases.at(int32(i)).id)
			}
			for _, id := range []string{"", "pkg.Class0::test_", "pkg.Class0::test_0 ", "other"} {
				pos, _ := x.find(id, &cases)
				assert.Equal(t, int32(-1), pos, "id %q never inserted", id)
			}
		})
	}
}

// TestKeepCasesLarge checks which ids a large run keeps: failing ids first,
// then flaky ones in id order, then the rest in report order, each once,
// with the durations of exactly the kept ids that are timed.
func TestKeepCasesLarge(t *testing.T) {
	const n = 12000
	var execs []Execution
	for i := range n {
		id := fmt.Sprintf("pkg.C%d::t%05d", i%11, i)
		e := Execution{ID: id, Scope: "s", Outcome: OutcomePassed, Duration: time.Duration(i) * time.Millisecond, Timed: i%3 != 0}
		switch {
		case i%50 == 7: // failing and flaky: fails, then fails again
			f := e
			f.Outcome, f.Message = OutcomeFailed, "first"
			execs = append(execs, Execution{ID: id, Scope: "s", Outcome: OutcomePassed, Timed: e.Timed, Duration: e.Duration})
			e = f
		case i%50 == 9: // flaky: fails, then passes
			execs = append(execs, Execution{ID: id, Scope: "s", Outcome: OutcomeFailed, Message: "m", Timed: e.Timed})
		case i%50 == 11:
			e.Outcome, e.Message = OutcomeError, "boom"
		}
		execs = append(execs, e)
	}
	for _, keep := range []int{n + 5, n, n - 100, 8000, 300, 50} {
		t.Run(fmt.Sprint(keep), func(t *testing.T) {
			b := NewBuilder(WithMaxCases(keep), WithMaxFailures(10))
			b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(execs))}, execs, nil)
			r := b.Build()
			require.NoError(t, r.Validate())
			// The expected ids, by the rule itself.
			var failing, flaky, rest []string
			all := map[string]Outcome{}
			var order []string
			for _, e := range execs {
				if _, ok := all[e.ID]; !ok {
					order = append(order, e.ID)
				}
				all[e.ID] = e.Outcome
			}
			isFlaky := map[string]bool{}
			for _, id := range r.Flaky {
				isFlaky[id] = true
			}
			for _, id := range order {
				switch {
				case all[id].Failing():
					failing = append(failing, id)
				case isFlaky[id]:
					flaky = append(flaky, id)
				default:
					rest = append(rest, id)
				}
			}
			slices.Sort(flaky) // flaky ones in id order
			want := map[string]Outcome{}
			for _, id := range append(append(failing, flaky...), rest...) {
				if len(want) >= keep {
					break
				}
				want[id] = all[id]
			}
			assert.Equal(t, want, r.Cases)
			for id := range r.Durations {
				_, ok := r.Cases[id]
				require.True(t, ok, "duration of %s, which is not kept", id)
			}
			timed := 0
			for id := range r.Cases {
				var i int
				_, err := fmt.Sscanf(id[strings.Index(id, "::t")+3:], "%d", &i)
				require.NoError(t, err)
				if i%3 != 0 {
					timed++
					_, ok := r.Durations[id]
					require.True(t, ok, "no duration for %s", id)
				}
			}
			assert.Len(t, r.Durations, timed)
		})
	}
}
