// Package cobertura reads the totals of a Cobertura XML coverage report
// (coverage.py, pytest-cov, istanbul, gcovr, coverlet, Cobertura itself):
// the line-rate, lines-covered and lines-valid attributes of the root
// <coverage> element, as the file states them.
//
// The whole document is read through the hardened reader of package report,
// so a truncated, malformed or hostile file is refused rather than taken at
// its word.
package cobertura
