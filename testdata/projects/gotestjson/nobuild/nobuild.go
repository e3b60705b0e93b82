// Package nobuild does not compile: its test file has a type error.
package nobuild

// Name is here so that the package itself builds.
const Name = "nobuild"
