package testrun

type config struct {
	maxFailures int
	maxCases    int
	maxMessage  int
	redactor    *Redactor
	// expected are the ids of WithExpectedIDs, sorted and distinct;
	// expect is true when it was given (even with none).
	expected []string
	expect   bool
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

// WithExpectedIDs checks the run against the tests it was expected to run
// (ids in any order, each counted once, the empty id passed over): Build sets Run.NotRun to the
// expected ids that no report read mentions, with any outcome, and makes
// the run incomplete when there is one (NotRunReason). Build decides by
// every id the reports mention, before it caps the cases it keeps
// (WithMaxCases), so a run of any size lists exactly the expected tests
// that never ran; more than MaxExpectedIDs ids are not checked (NotRun
// stays nil and the run is incomplete, with that reason). Without this
// option Run.NotRun is nil; with it and no ids, NotRun is empty.
func WithExpectedIDs(ids []string) Option {
	expected := expectedSet(ids)
	return optionFunc(func(c config) config {
		c.expected, c.expect = expected, true
		return c
	})
}
