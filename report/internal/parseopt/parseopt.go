// Package parseopt holds the options the report parsers (junit, cobertura,
// lcov) share, so that each is written once; the parser packages re-export
// the ones their API takes.
package parseopt

import (
	"iter"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// Config is what the options of a parser set.
type Config struct {
	// Limits bound the report; a zero field means its default.
	Limits xmlsafe.Limits
	// WorkDir is the check's working directory (absolute), or empty.
	WorkDir string
	// MaxMessage is how many bytes of a failure message are kept.
	MaxMessage int
	// Precheck, when set, has checked the document's bytes ahead of the
	// parser's Reader (see xmlsafe.Precheck).
	Precheck *xmlsafe.Precheck
	// Batches, when set, is handed a JUnit report's executions as they
	// are read, in batches, in order: each batch once the parser has read
	// it whole, the last once the report has been read whole; none after
	// an error. A batch may be ranged over once, on any goroutine, also
	// after Parse has returned; its records may be reused once it has
	// been. The Report then holds no execution (its All yields none; Len
	// counts them).
	Batches func(iter.Seq[*testrun.Execution])
}

// Option configures a parser.
type Option interface {
	apply(*Config)
}

type optionFunc func(*Config)

func (f optionFunc) apply(c *Config) { f(c) }

// WithLimits sets the limits of the report.
func WithLimits(l xmlsafe.Limits) Option {
	return optionFunc(func(c *Config) { c.Limits = l })
}

// WithWorkDir names the check's working directory.
func WithWorkDir(dir string) Option {
	return optionFunc(func(c *Config) { c.WorkDir = dir })
}

// WithMaxMessage sets how many bytes of a failure message are kept; 0 or
// less keeps the default.
func WithMaxMessage(n int) Option {
	return optionFunc(func(c *Config) {
		if n > 0 {
			c.MaxMessage = n
		}
	})
}

// WithPrecheck gives the parser's Reader the checks already made of the
// document's bytes. Package report passes it for the reports it hashes;
// the parser packages do not offer it.
func WithPrecheck(p *xmlsafe.Precheck) Option {
	return optionFunc(func(c *Config) { c.Precheck = p })
}

// WithBatches sets Config.Batches.
func WithBatches(f func(iter.Seq[*testrun.Execution])) Option {
	return optionFunc(func(c *Config) { c.Batches = f })
}

// New applies opts over the defaults: every default limit and
// xmlsafe.DefaultMaxMessageBytes.
func New(opts []Option) Config {
	c := Config{MaxMessage: xmlsafe.DefaultMaxMessageBytes}
	for _, o := range opts {
		o.apply(&c)
	}
	c.Limits = c.Limits.WithDefaults()
	return c
}
