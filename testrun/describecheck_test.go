package testrun

import (
	"testing"
	"time"
)

func TestDescriptionCheck(t *testing.T) {
	code := func(n int) *int { return &n }
	t0 := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		d    Description
		want string
	}{
		{Description{}, ""},
		{Description{ExitCode: code(0), Status: StatusTimedOut, StartedAt: t0, EndedAt: t0}, ""},
		{Description{StartedAt: t0}, ""},
		{Description{ExitCode: code(256)}, "--exit-code 256 is not between 0 and 255"},
		{Description{ExitCode: code(-1)}, "--exit-code -1 is not between 0 and 255"},
		{Description{Status: "done"}, `unknown --status "done" (want success, failure, timed_out or aborted)`},
		{Description{StartedAt: t0, EndedAt: t0.Add(-time.Second)}, "--ended-at is before --started-at"},
	} {
		got := ""
		if err := tc.d.Check(); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.d, got, tc.want)
		}
	}
}
