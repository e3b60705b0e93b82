// Package cobertura reads a Cobertura XML coverage report (coverage.py,
// pytest-cov, istanbul, gcovr, coverlet, Cobertura itself): the totals the
// root <coverage> element states (line-rate, lines-covered, lines-valid)
// and the <line number hits> elements of each <class>, per source file
// (the class's filename, made relative to the check's working directory or
// a <source> root), so that the run can merge them line by line with the
// other coverage reports of the run.
//
// The whole document is read through the hardened reader of package report,
// so a truncated, malformed or hostile file is refused rather than taken at
// its word.
package cobertura
