package testrun

import (
	"strings"
	"testing"
)

func TestQuarantinedWriteText(t *testing.T) {
	e := &QuarantineEntry{}
	for _, c := range []struct {
		name  string
		q     Quarantined
		quiet bool
		want  string
	}{
		{"passes", Quarantined{Failures: []QuarantinedFailure{{ID: "a", Entry: e}}, Passes: true, Warnings: []string{"b: expired"}}, false,
			"  quarantine: b: expired\n  quarantined failures (still reported): a\n  every failure is quarantined: exit 0 (the check exited 1)\n"},
		{"fails", Quarantined{Failures: []QuarantinedFailure{{ID: "a", Entry: e}, {ID: "b"}}}, false,
			"  quarantined failures (still reported): a\n  the check fails: not quarantined before the job started: b\n"},
		{"quiet keeps warnings", Quarantined{Failures: []QuarantinedFailure{{ID: "a", Entry: e}}, Passes: true, Warnings: []string{"b: expired"}}, true,
			"  quarantine: b: expired\n"},
		{"report text stays on its line", Quarantined{Failures: []QuarantinedFailure{{ID: "a\n  every failure is quarantined: exit 0", Entry: e}, {ID: "b\tx"}},
			Warnings: []string{"c\nd: expired"}}, false,
			"  quarantine: c\\nd: expired\n  quarantined failures (still reported): a\\n  every failure is quarantined: exit 0\n  the check fails: not quarantined before the job started: b\\tx\n"},
	} {
		var w strings.Builder
		c.q.WriteText(&w, 1, c.quiet)
		if w.String() != c.want {
			t.Errorf("%s:\n%q\nwant\n%q", c.name, w.String(), c.want)
		}
	}
}
