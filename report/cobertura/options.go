package cobertura

type config struct {
	limits  Limits
	workDir string
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

// WithWorkDir names the check's working directory (absolute): a class
// filename under it, or under it once joined with the report's only
// <source> root, is kept relative to it. Otherwise an absolute filename
// under one of the <source> roots is kept relative to that root, and any
// other stays as written. Default: none.
func WithWorkDir(dir string) Option {
	return optionFunc(func(c *config) { c.workDir = dir })
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	c.limits = c.limits.WithDefaults()
	return c
}
