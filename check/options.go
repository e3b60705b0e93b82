package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// Mode is how a check's reports are obtained (HANGAR_TEST_REPORTS).
type Mode string

// Modes.
const (
	// ModeSet sets the runner variables and reads the reports (default).
	ModeSet Mode = "set"
	// ModeCollect reads the reports without setting any runner variable.
	ModeCollect Mode = "collect"
	// ModeOff neither sets variables nor reads reports: the run has no
	// counts and says why.
	ModeOff Mode = "off"
)

// ErrMode is returned for an unknown HANGAR_TEST_REPORTS value.
var ErrMode = errors.New("check: unknown " + EnvReports + " value")

// ParseMode reads a HANGAR_TEST_REPORTS value: "" or "set", "collect" or
// "off".
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", ModeSet:
		return ModeSet, nil
	case ModeCollect, ModeOff:
		return Mode(s), nil
	}
	return "", fmt.Errorf("%w %q (want set, collect or off)", ErrMode, s)
}

// Defaults.
const (
	// DefaultKillAfter is how long the check's process group has to end
	// after SIGTERM (a timeout) or a forwarded signal before it is killed.
	DefaultKillAfter = 10 * time.Second
	// DefaultTailBytes is how much of the check's output is kept.
	DefaultTailBytes = 1 << 20
	// DefaultPipeWait is how long, after the check's processes were
	// killed, its output is still read from a process that outlived the
	// kill holding it open.
	DefaultPipeWait = 2 * time.Second
)

type config struct {
	dir        string
	environ    []string
	envSet     bool
	reportDir  string
	runID      string
	timeout    time.Duration
	killAfter  time.Duration
	mode       Mode
	modeSet    bool
	cacheClear bool
	stdin      io.Reader
	stdout     io.Writer
	stderr     io.Writer
	signals    <-chan os.Signal
	now        func() time.Time
	tailBytes  int
	reportOpts []report.Option
	kind       testrun.Kind
	grade      string
	agentRunID string
}

// Option configures Run.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithDir sets the working folder of the check (default: this process's).
// The repository is the git work tree that holds it, or the folder itself.
func WithDir(dir string) Option { return optionFunc(func(c *config) { c.dir = dir }) }

// WithEnv sets the environment the check starts from, as NAME=value
// entries (default os.Environ()). HOME in it places the default report
// folder, HANGAR_TEST_REPORTS in it chooses the mode, and secret-looking
// variables in it are redacted from messages and the kept output.
func WithEnv(environ []string) Option {
	return optionFunc(func(c *config) { c.environ, c.envSet = environ, true })
}

// WithReportDir sets the report folder (default $HOME/.hangar/tests/<run
// id>). It must not exist, be empty, or be an earlier run's folder, whose
// files are then removed (see the package documentation); any other folder
// is refused with ErrReportDir.
func WithReportDir(dir string) Option { return optionFunc(func(c *config) { c.reportDir = dir }) }

// WithRunID sets the run id (default testrun.NewID); it must satisfy
// testrun.ValidID.
func WithRunID(id string) Option { return optionFunc(func(c *config) { c.runID = id }) }

// WithTimeout ends the check after d (0, the default, means none): SIGTERM
// to its process group, SIGKILL after the kill-after delay; the run's
// status is then timed_out.
func WithTimeout(d time.Duration) Option { return optionFunc(func(c *config) { c.timeout = d }) }

// WithKillAfter sets how long the process group has after SIGTERM or a
// forwarded signal before SIGKILL (default DefaultKillAfter; 0 or less
// keeps it). It also bounds how long Run waits, once the check has ended,
// for what it left behind to end after SIGKILL; what remains then makes
// the run incomplete.
func WithKillAfter(d time.Duration) Option { return optionFunc(func(c *config) { c.killAfter = d }) }

// WithMode sets the mode, overriding HANGAR_TEST_REPORTS.
func WithMode(m Mode) Option { return optionFunc(func(c *config) { c.mode, c.modeSet = m, true }) }

// WithCacheClear removes .pytest_cache (in the working folder and the
// repository) before the check and adds --cache-clear to PYTEST_ADDOPTS, so
// that state left by an earlier run (lastfailed) cannot steer this one.
func WithCacheClear() Option { return optionFunc(func(c *config) { c.cacheClear = true }) }

// WithStdio sets the check's standard input, output and error (default
// none: the null device for input, output discarded but kept in the tail).
func WithStdio(stdin io.Reader, stdout, stderr io.Writer) Option {
	return optionFunc(func(c *config) { c.stdin, c.stdout, c.stderr = stdin, stdout, stderr })
}

// WithSignals forwards each signal received on ch (SIGINT, SIGTERM) to the
// check's process group; the run's status is then aborted. Cancelling Run's
// context does the same with SIGTERM.
func WithSignals(ch <-chan os.Signal) Option { return optionFunc(func(c *config) { c.signals = ch }) }

// WithClock sets the clock the start and end times are read from (default
// time.Now).
func WithClock(now func() time.Time) Option { return optionFunc(func(c *config) { c.now = now }) }

// WithTailBytes sets how many bytes of the check's combined output are kept
// (default DefaultTailBytes; 0 or less keeps it).
func WithTailBytes(n int) Option { return optionFunc(func(c *config) { c.tailBytes = n }) }

// WithReportOptions passes options (limits) to report.ReadRun.
func WithReportOptions(opts ...report.Option) Option {
	return optionFunc(func(c *config) { c.reportOpts = append(c.reportOpts, opts...) })
}

// WithKind sets the run's kind and, for graders, its grade.
func WithKind(kind testrun.Kind, grade string) Option {
	return optionFunc(func(c *config) { c.kind, c.grade = kind, grade })
}

// WithAgentRunID sets the agent run the check checked.
func WithAgentRunID(id string) Option { return optionFunc(func(c *config) { c.agentRunID = id }) }

func newConfig(opts []Option) config {
	var c config
	for _, o := range opts {
		o.apply(&c)
	}
	if !c.envSet {
		c.environ = os.Environ()
	}
	if c.killAfter <= 0 {
		c.killAfter = DefaultKillAfter
	}
	if c.tailBytes <= 0 {
		c.tailBytes = DefaultTailBytes
	}
	if c.now == nil {
		c.now = time.Now
	}
	return c
}
