// Package hits reads the hit count of a covered line the same way for every
// coverage format, so that Cobertura and lcov agree on what covers a line.
package hits
