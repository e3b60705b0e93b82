// Package calc is a tiny package whose tests exercise every outcome a Go
// test report can hold.
package calc

// Add returns a+b.
func Add(a, b int) int { return a + b }
