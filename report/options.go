package report

import (
	"os"
	"path/filepath"
	"strings"
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
	// ownFolder is the run's own report folder, absolute ("" when none).
	ownFolder string
	// found holds the absolute paths a search found (WithFound).
	found map[string]bool
	// lenientRoot is set while a file found by a search is read: a
	// well-formed file with an unknown root is then skipped, not refused.
	lenientRoot bool
	runOpts     []testrun.Option
	// feed, when set, is handed a JUnit report's (or a go test -json
	// stream's) executions as they are
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
// passed over silently, except in the run's own report folder
// (WithOwnFolder), where an older file is refused. The zero time (default)
// keeps every file.
func WithNewerThan(t time.Time) Option {
	return optionFunc(func(c *config) { c.newerThan = t })
}

// WithOwnFolder names the run's own report folder: the folder made empty
// for the run, where only the run writes. A file in it (found there or
// named) that predates WithNewerThan's time is old evidence copied in (cp
// -p, a restored cache), not the run's: it is refused with ErrStale and
// makes the run incomplete. A well-formed file in it with an unknown root
// element is refused with its root named (ErrUnknownRoot), as when it is
// named directly. A relative dir is taken from the working directory.
func WithOwnFolder(dir string) Option {
	return optionFunc(func(c *config) { c.ownFolder = dir })
}

// WithFound marks paths as found by a search (such as a walk over the
// repository for the usual places) rather than named: a well-formed file
// among them with an unknown root element is skipped (ErrNotReport), as one
// found in a folder is, not refused. The paths must also be given to
// ReadRun or Find.
func WithFound(paths ...string) Option {
	return optionFunc(func(c *config) {
		if c.found == nil {
			c.found = make(map[string]bool, len(paths))
		}
		for _, p := range paths {
			c.found[absPath(p)] = true
		}
	})
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
	if c.ownFolder != "" {
		c.ownFolder = absPath(c.ownFolder)
	}
	return c
}

// absPath is path made absolute and clean (as given when that fails).
func absPath(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return filepath.Clean(path)
}

// inOwnFolder reports whether the absolute path abs is the run's own report
// folder or lies under it.
func (c *config) inOwnFolder(abs string) bool {
	if c.ownFolder == "" {
		return false
	}
	rel, err := filepath.Rel(c.ownFolder, abs)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
