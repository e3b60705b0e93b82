// Package gotestjson is a small Go module whose packages end every way a go
// test run can: passing, failing, skipped, subtests, a package that does
// not build, a panic in a test, a TestMain that exits 1 after its tests
// passed, an init that panics before any test, and a test that fails on
// its first execution only (for -count=2). Its reports are read by the
// testresults go test -json reader.
package gotestjson
