package junit

import "github.com/hangar-dev/testresults/report/internal/xmlsafe"

// Limits bound what one report may hold; a zero field means its default
// (see the Default constants of package report). It is the same type as
// report.Limits.
type Limits = xmlsafe.Limits

type config struct {
	limits     Limits
	maxMessage int
}

// Option configures Parse.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithLimits sets the limits of the report (default: every default limit).
func WithLimits(l Limits) Option {
	return optionFunc(func(c *config) { c.limits = l })
}

// WithMaxMessage sets how many bytes of a failure message are kept (default
// 8 KiB; 0 or less keeps the default). The rest is never held in memory.
func WithMaxMessage(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxMessage = n
		}
	})
}

func newConfig(opts []Option) config {
	c := config{maxMessage: xmlsafe.DefaultMaxMessageBytes}
	for _, o := range opts {
		o.apply(&c)
	}
	c.limits = c.limits.WithDefaults()
	return c
}
