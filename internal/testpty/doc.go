// Package testpty opens a pseudo-terminal for tests that must see what a
// program writes to a real terminal (colour, escaping): the program gets
// the terminal's side as its stdout or stderr, the test reads the other
// side. It is Linux only; elsewhere Open returns ErrUnsupported and the
// test skips.
package testpty
