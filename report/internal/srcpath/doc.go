// Package srcpath names the source files of coverage reports the same way
// whatever tool wrote them, so that the lines of one file written by two
// reports (Cobertura and lcov from one run) merge.
package srcpath
