package textout

import "github.com/hangar-dev/testresults/testrun"

// Refused prints why parse refused some of run's reports (err, as the
// reader gave it), then each refused report's path and reason, in the
// order people read them.
func (s Summary) Refused(err error, run *testrun.Run) {
	s.printf("testresults parse: %v\n", err)
	for _, r := range run.Reports {
		if r.Error != "" {
			s.printf("  %s: %s\n", r.Path, r.Error)
		}
	}
}
