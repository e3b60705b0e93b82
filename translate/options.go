package translate

import (
	"maps"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/testrun"
)

const (
	// DefaultMaxCaseEvents is how many test.case events one run exports at
	// most. The number left out is recorded on its test.run event as
	// hangar.test.case_events.omitted.
	DefaultMaxCaseEvents = 1000

	// DefaultMaxEventBytes is the budget, in bytes of the OTLP protobuf
	// encoding, of the events on one span. The test.run events always fit;
	// the runs share the rest in turns, each adding its test.case events in
	// order while they fit, and the rest are counted as omitted. With the default, one span stays well under the
	// 4 MiB a collector's OTLP gRPC receiver accepts in one message.
	DefaultMaxEventBytes = 3 << 20

	// MaxEventMessageRunes is how many characters of a failure's (clipped,
	// redacted) message hangar.test.message carries.
	MaxEventMessageRunes = 512
)

type config struct {
	base          *testrun.Run
	maxCaseEvents int
	// capCases is true when WithMaxCaseEvents set maxCaseEvents: the
	// log records then stop at it too.
	capCases      bool
	maxEventBytes int
	events        Events
	parent        trace.SpanContext
	now           func() time.Time
	redactor      *testrun.Redactor
	caseSpans     CaseSpans
	flakiness     map[string]testrun.Flakiness
}

func newConfig(opts []Option) config {
	c := config{
		maxCaseEvents: DefaultMaxCaseEvents,
		maxEventBytes: DefaultMaxEventBytes,
		now:           time.Now,
	}
	for _, o := range opts {
		c = o.apply(c)
	}
	if c.redactor == nil {
		c.redactor = testrun.DefaultRedactor()
	}
	return c
}

// Option configures a translation.
type Option interface {
	apply(config) config
}

type optionFunc func(config) config

func (f optionFunc) apply(c config) config { return f(c) }

// WithBase compares the exported runs with base: each test.case event then
// carries hangar.test.new_failure, true for a test that fails here and did
// not fail in base. When either run is incomplete, lacks counts, or the
// base's failing ids are not all known, the comparison is unavailable and
// the attribute is omitted (never a false that reads as "nothing new").
func WithBase(base *testrun.Run) Option {
	return optionFunc(func(c config) config {
		c.base = base
		return c
	})
}

// WithRedactor sets the redactor that failure messages pass through before
// they are exported (default testrun.DefaultRedactor). A run's messages were
// redacted when it was built; a run file may have been written by anything,
// so the export redacts (and clips) again: both are idempotent.
func WithRedactor(r *testrun.Redactor) Option {
	return optionFunc(func(c config) config {
		if r != nil {
			c.redactor = r
		}
		return c
	})
}

// WithMaxCaseEvents sets how many test.case events one run exports at most.
// The rule of every export limit: a positive n is the limit and 0 keeps the
// default (DefaultMaxCaseEvents); a negative n is refused by the exporter
// (exporter.ErrConfig) and the CLI before it reaches here, and is ignored.
// The default bounds the span events only; a limit given here bounds the
// log records too (see WithEvents).
func WithMaxCaseEvents(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxCaseEvents = n
			c.capCases = true
		}
		return c
	})
}

// WithMaxEventBytes sets the budget of the encoded events on one span
// (default DefaultMaxEventBytes; 0 or less keeps the default). Log
// records are not bound by it: each is a message of its own.
func WithMaxEventBytes(n int) Option {
	return optionFunc(func(c config) config {
		if n > 0 {
			c.maxEventBytes = n
		}
		return c
	})
}

// WithParent attaches the exported spans under a remote parent (for example
// one read from TRACEPARENT): they take its trace id, trace state and trace
// flags. Span ids stay derived from the exported ids. An invalid span
// context is ignored.
func WithParent(sc trace.SpanContext) Option {
	return optionFunc(func(c config) config {
		if sc.IsValid() {
			c.parent = sc
		}
		return c
	})
}

// WithClock sets the clock read once per translation for runs whose end and
// start times are both unknown (default time.Now).
func WithClock(now func() time.Time) Option {
	return optionFunc(func(c config) config {
		if now != nil {
			c.now = now
		}
		return c
	})
}

// WithFlakiness gives the flakiness score of tests by test id (as
// store.Scores returns them): the test.case event of a test with a score,
// its log record and its case span carry it as the
// hangar.test.flakiness.* attributes (see package semconv). A score
// informs; it changes no status, count or flag, and excuses nothing. The
// map is read, not kept: later changes to it do not reach the export.
func WithFlakiness(scores map[string]testrun.Flakiness) Option {
	scores = maps.Clone(scores)
	return optionFunc(func(c config) config {
		c.flakiness = scores
		return c
	})
}
