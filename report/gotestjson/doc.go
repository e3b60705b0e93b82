// Package gotestjson reads the event stream of go test -json (test2json,
// gotestsum's --jsonfile) into the test executions of a testrun.Run, so
// that a Go project needs no JUnit converter to give evidence.
//
// Each test, subtests included, is one execution whose outcome is the last
// pass, fail or skip event it got; its id is "<package>::<test>", the id
// gotestsum's JUnit gives the same test. A package that fails to build, or
// that fails with no failing test of its own (a panic in init or
// TestMain, os.Exit, a timeout), is one error. The stream is untrusted: it
// is read line by line within the limits of package report, every line
// must be one JSON event, and a stream cut short (a package that never
// ended) is refused whole, as a truncated XML report is.
package gotestjson
