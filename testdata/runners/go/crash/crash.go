// Package crash has a test that panics, which ends its test binary.
package crash
