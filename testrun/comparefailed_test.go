package testrun

import "testing"

func TestComparisonFailed(t *testing.T) {
	for _, tc := range []struct {
		c    Comparison
		want bool
	}{
		{Comparison{Available: true}, false},
		{Comparison{Available: true, BaseFailures: []Failure{{ID: "old"}}, Fixed: []string{"x"}}, false},
		{Comparison{Available: true, NewFailures: []Failure{{ID: "new"}}}, true},
		{Comparison{Unavailable: "no base"}, true},
	} {
		if got := tc.c.Failed(); got != tc.want {
			t.Errorf("%+v: Failed() = %v, want %v", tc.c, got, tc.want)
		}
	}
}
