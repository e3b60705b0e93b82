package report

import (
	"os"
	"path/filepath"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

type config struct {
	limits      Limits
	maxFiles    int
	maxRunBytes int64
	maxMessage  int
	newerThan   time.Time
	workDir     string
	runOpts     []testrun.Option
	// feed, when set, is handed a JUnit report's executions as they are
	// read, on the hasher's goroutine (see testrun.Feed).
	feed *testrun.Feed
}

// Option configures Find, Parse, ParseFile and ReadRun.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithMaxBytes sets the largest report file read (default DefaultMaxBytes).
func WithMaxBytes(n int64) Option {
	return optionFunc(func(c *config) { c.limits.MaxBytes = n })
}

// WithMaxElements sets the largest number of XML elements in a report
// (default DefaultMaxElements).
func WithMaxElements(n int64) Option {
	return optionFunc(func(c *config) { c.limits.MaxElements = n })
}

// WithMaxDepth sets the deepest XML nesting in a report (default
// DefaultMaxDepth).
func WithMaxDepth(n int64) Option {
	return optionFunc(func(c *config) { c.limits.MaxDepth = n })
}

// WithMaxCases sets the largest number of test cases in a report (default
// DefaultMaxCasesPerReport).
func WithMaxCases(n int64) Option {
	return optionFunc(func(c *config) { c.limits.MaxCases = n })
}

// WithMaxRecords sets the largest number of lines in an lcov file (default
// DefaultMaxRecords).
func WithMaxRecords(n int64) Option {
	return optionFunc(func(c *config) { c.limits.MaxRecords = n })
}

// WithMaxFiles sets how many report files a run reads (default
// DefaultMaxFiles).
func WithMaxFiles(n int) Option {
	return optionFunc(func(c *config) { c.maxFiles = n })
}

// WithMaxRunBytes sets the largest total size of a run's report files
// (default DefaultMaxRunBytes).
func WithMaxRunBytes(n int64) Option {
	return optionFunc(func(c *config) { c.maxRunBytes = n })
}

// WithMaxMessage sets how many bytes of a failure message a parser keeps
// (default DefaultMaxMessageBytes).
func WithMaxMessage(n int) Option {
	return optionFunc(func(c *config) { c.maxMessage = n })
}

// WithNewerThan keeps only files modified at or after t: the reports a run
// wrote, not stale ones from an earlier run. A file named explicitly that is
// older is listed as skipped (ErrStale); older files found in a folder are
// passed over silently. The zero time (default) keeps every file.
func WithNewerThan(t time.Time) Option {
	return optionFunc(func(c *config) { c.newerThan = t })
}

// WithWorkDir names the check's working directory, the folder coverage
// paths are made relative to: an absolute source path under it (Cobertura
// class filename, lcov SF) is kept relative to it, so that the lines of one
// file written by several reports merge. A relative dir is taken from the
// process's working directory. Default: the process's working directory.
func WithWorkDir(dir string) Option {
	return optionFunc(func(c *config) { c.workDir = dir })
}

// WithRunOptions passes options to the testrun.Builder ReadRun uses (for
// example testrun.WithRedactor).
func WithRunOptions(opts ...testrun.Option) Option {
	return optionFunc(func(c *config) { c.runOpts = append(c.runOpts, opts...) })
}

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	c.limits = c.limits.WithDefaults()
	if c.maxFiles <= 0 {
		c.maxFiles = DefaultMaxFiles
	}
	if c.maxRunBytes <= 0 {
		c.maxRunBytes = DefaultMaxRunBytes
	}
	if c.maxMessage <= 0 {
		c.maxMessage = DefaultMaxMessageBytes
	}
	if c.workDir == "" {
		c.workDir, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(c.workDir); err == nil {
		c.workDir = abs
	}
	return c
}
