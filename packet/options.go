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
		if o != nil {
			o(&c)
		}
	}
	return c
}

// Option configures a rendering.
type Option func(*config)

// WithMaxItems sets how many entries each list shows (default
// DefaultMaxItems); n <= 0 keeps the default.
func WithMaxItems(n int) Option {
	return func(c *config) { c.maxItems = positiveOr(n, c.maxItems) }
}

// WithMaxMessage sets the length, in characters, messages are clipped to
// (default DefaultMaxMessage); n <= 0 keeps the default.
func WithMaxMessage(n int) Option {
	return func(c *config) { c.maxMessage = positiveOr(n, c.maxMessage) }
}

// positiveOr is n when it is positive, else def.
func positiveOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}

// WithScores gives the flakiness score of failing tests by test id (as
// store.Scores returns them): each failing test shown with a score has it
// beside it. A score informs; it excuses no failure.
func WithScores(scores map[string]testrun.Flakiness) Option {
	scores = maps.Clone(scores)
	return func(c *config) { c.scores = scores }
}
