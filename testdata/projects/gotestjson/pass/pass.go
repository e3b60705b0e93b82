// Package pass holds tests that all pass.
package pass

// Add returns a + b.
func Add(a, b int) int { return a + b }
