// Package nofiles has no test files: go test reports it as such.
package nofiles

// Value is here so that the package is not empty.
const Value = 1
