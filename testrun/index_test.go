package testrun

import (
	"fmt"
	"testing"

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
			var cases []caseState
			if tt.reserve > 0 {
				x.reserve(tt.reserve)
			}
			for i := range tt.n {
				id := fmt.Sprintf("pkg.Class%d::test_%d", i%7, i)
				pos, h := x.find(id, cases)
				require.Equal(t, int32(-1), pos, "new id %s found", id)
				x.insert(h, int32(len(cases)))
				cases = append(cases, caseState{id: id})
			}
			assert.Equal(t, tt.n, x.n)
			assert.LessOrEqual(t, 2*x.n, len(x.slots), "the table stays at most half full")
			for i := range tt.n {
				pos, _ := x.find(cases[i].id, cases)
				require.Equal(t, int32(i), pos, "id %s", cases[i].id)
			}
			x.reserve(100)
			for i := range tt.n {
				pos, _ := x.find(cases[i].id, cases)
				require.Equal(t, int32(i), pos, "after reserve, id %s", cases[i].id)
			}
			for _, id := range []string{"", "pkg.Class0::test_", "pkg.Class0::test_0 ", "other"} {
				pos, _ := x.find(id, cases)
				assert.Equal(t, int32(-1), pos, "id %q never inserted", id)
			}
		})
	}
}
