package store

import "github.com/hangar-dev/testresults/testrun"

// MassFailureMinTests is the fewest tests (passed, failed or errored) a run
// needs for the mass-failure guard: with fewer, a share says nothing of the
// environment (one test that fails is 100% of one).
const MassFailureMinTests = 10

// MassFailure reports whether Record takes r for a broken environment:
// testrun.MassFailure (more than testrun.MassFailureShare of its tests
// failed) in a run of at least MassFailureMinTests tests.
func MassFailure(r *testrun.Run) bool {
	if !testrun.MassFailure(r) {
		return false
	}
	c := r.Counts
	return c.Passed+c.Failed+c.Errors >= MassFailureMinTests
}

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
