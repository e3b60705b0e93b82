// Package lazyre holds regular expressions that are compiled on first use,
// not when their package is initialised: every command of a binary pays
// for its packages' init, most of them for patterns they never run.
package lazyre

import (
	"regexp"
	"sync"
	"sync/atomic"
)

// Regexp is a regular expression compiled the first time it is used. It is
// safe for concurrent use.
type Regexp struct {
	expr     string
	once     sync.Once
	re       *regexp.Regexp
	compiled atomic.Bool
}

// New returns expr, to be compiled on first use. Like regexp.MustCompile,
// a pattern that does not compile panics, then: a test that uses the
// pattern, or calls Regexp, finds that.
func New(expr string) *Regexp {
	return &Regexp{expr: expr}
}

// Regexp returns the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp {
	r.once.Do(func() {
		r.re = regexp.MustCompile(r.expr)
		r.compiled.Store(true)
	})
	return r.re
}

// Compiled reports whether the expression has been compiled yet.
func (r *Regexp) Compiled() bool { return r.compiled.Load() }

// String returns the source text of the expression.
func (r *Regexp) String() string { return r.expr }
