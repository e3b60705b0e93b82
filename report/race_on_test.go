//go:build race

package report

// raceEnabled: the race detector slows a run of millions of lines tenfold.
const raceEnabled = true
