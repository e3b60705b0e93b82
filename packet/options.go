package packet

import (
	"maps"

	"github.com/hangar-dev/testresults/testrun"
)

// Defaults of the limits a packet applies to what it shows.
const (
	// DefaultMaxItems is how many entries each list shows (new failures,
	// fixed, flaky, incomplete reasons, expected tests that never ran); the
	// rest are counted as left out.
	DefaultMaxItems = 50
	// DefaultMaxMessage is the length, in characters, a failure message is
	// clipped to when shown.
	DefaultMaxMessage = 2000
	// DefaultMaxID is the length, in characters, a test id is clipped to
	// when shown.
	DefaultMaxID = 500
	// MaxMarkdownBytes bounds the Markdown a packet writes: entries that
	// would go beyond it are counted as left out. GitHub refuses comments
	// over 65,536 characters.
	MaxMarkdownBytes = 60000
)

type config struct {
	maxItems   int
	maxMessage int
	maxID      int
	scores     map[string]testrun.Flakiness
}

func newConfig(opts []Option) config {
	c := config{maxItems: DefaultMaxItems, maxMessage: DefaultMaxMessage, maxID: DefaultMaxID}
	for _, o := range opts {
		c = o.apply(c)
	}
	return c
}

// Option configures a rendering.
type Option interface {
	apply(config) config
}

type optionFunc func(config) config

func (f optionFunc) apply(c config) config { return f(c) }

// WithMaxItems sets how many entries each list shows (default
// DefaultMaxItems); n <= 0 keeps the default.
func WithMaxItems(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxItems = n
		}
		return c
	})
}

// WithMaxMessage sets the length, in characters, messages are clipped to
// (default DefaultMaxMessage); n <= 0 keeps the default.
func WithMaxMessage(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxMessage = n
		}
		return c
	})
}

// WithScores gives the flakiness score of failing tests by test id (as
// store.Scores returns them): each failing test shown with a score has it
// beside it. A score informs; it excuses no failure.
func WithScores(scores map[string]testrun.Flakiness) Option {
	return optionFunc(func(c config) config {
		c.scores = maps.Clone(scores)
		return c
	})
}
