// Package report finds the test and coverage reports a check left behind
// and reads them, safely, into a testrun.Run.
//
// Reports are untrusted input: the repository's own code writes them. Files
// are found by content, not only by name (JUnit XML, Cobertura XML, lcov,
// go test -json); symbolic links are refused; every report and every run is
// read within the limits below, and anything over a limit, hostile (entities), truncated,
// binary or malformed makes the run incomplete with the reason recorded,
// never a silent pass. Files that are well-formed XML but not reports (a
// pom.xml, a failsafe-summary.xml) are listed as skipped. A report is read
// whole or not at all: a refused one adds nothing to the run but its reason.
//
// Coverage is merged per source file and line across every coverage report
// of a run (Cobertura and lcov alike), so the same run written in two
// formats counts each line once; see WithWorkDir for how paths are named.
package report
