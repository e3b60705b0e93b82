package store

import "github.com/hangar-dev/testresults/testrun"

// MassFailure reports whether Record takes r for a broken environment:
// testrun.MassFailure, which owns the rule (its share and its fewest
// tests); the store adds nothing to it.
func MassFailure(r *testrun.Run) bool { return testrun.MassFailure(r) }

// treeObservations is what Record adds of r to its tree's history:
// testrun.TreeObservations, and nothing for a mass failure (MassFailure).
// Such a run says the environment broke, not the tests: its failures
// beside another run's passes on the tree are no same-tree flips. Its
// runner retries still count (the run itself saw those tests fail and
// pass), and Recorded.Observed is 0, which is how a caller tells it apart.
func treeObservations(r *testrun.Run) []testrun.TreeObservation {
	if MassFailure(r) {
		return nil
	}
	return testrun.TreeObservations(r)
}
