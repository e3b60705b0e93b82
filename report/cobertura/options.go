package cobertura

type config struct {
	limits Limits
}

// Option configures Parse.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithLimits sets the limits of the report (default: every default limit of
// package report; a zero field keeps its default).
func WithLimits(l Limits) Option {
	return optionFunc(func(c *config) { c.limits = l })
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	c.limits = c.limits.WithDefaults()
	return c
}
