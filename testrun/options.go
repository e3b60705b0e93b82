package testrun

type config struct {
	maxFailures int
	maxCases    int
	maxMessage  int
	redactor    *Redactor
}

func newConfig(opts []Option) config {
	c := config{
		maxFailures: DefaultMaxFailures,
		maxCases:    DefaultMaxCasesKept,
		maxMessage:  DefaultMaxMessageRunes,
	}
	for _, o := range opts {
		c = o.apply(c)
	}
	if c.redactor == nil {
		c.redactor = DefaultRedactor()
	}
	return c
}

// Option configures a Builder.
type Option interface {
	apply(config) config
}

type optionFunc func(config) config

func (f optionFunc) apply(c config) config { return f(c) }

// WithMaxFailures sets how many failing cases the run lists
// (default DefaultMaxFailures; 0 or less keeps the default).
func WithMaxFailures(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxFailures = n
		}
		return c
	})
}

// WithMaxCases sets how many per-case outcomes the run keeps
// (default DefaultMaxCasesKept; 0 or less keeps the default).
func WithMaxCases(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxCases = n
		}
		return c
	})
}

// WithMaxMessage sets the length in characters failure messages are clipped
// to (default DefaultMaxMessageRunes; 0 or less keeps the default).
func WithMaxMessage(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxMessage = n
		}
		return c
	})
}

// WithRedactor sets the redactor messages pass through (default
// DefaultRedactor, which also hides the values of this process's secret-looking
// environment variables).
func WithRedactor(r *Redactor) Option {
	return optionFunc(func(c config) config {
		if r != nil {
			c.redactor = r
		}
		return c
	})
}
