package testrun

import (
	"fmt"
	"time"
)

// Defaults of the limits a Run applies to what it keeps.
const (
	// DefaultMaxFailures is how many failing cases a Run lists in Failures.
	DefaultMaxFailures = 200
	// DefaultMaxCasesKept is how many per-case outcomes a Run keeps in Cases
	// (a report may hold more: see report.DefaultMaxCasesPerReport).
	DefaultMaxCasesKept = 20000
	// DefaultMaxMessageRunes is the length, in characters, a failure message
	// is clipped to (a parser reads at most report.DefaultMaxMessageBytes).
	DefaultMaxMessageRunes = 2000
)

// MaxCaseDuration is the longest duration a test case may state (7 days): a
// longer or negative time is not a time a test ran, and is read as unknown.
// It also bounds the sum over a case's executions.
const MaxCaseDuration = 7 * 24 * time.Hour

// DurationResolution is the precision a Run keeps durations at: reports state
// seconds with at most microseconds that mean anything, and the JSON form
// (seconds) reads back to the same value at this precision.
const DurationResolution = time.Microsecond

// Run is one execution of a check: what it ran on, how it ended and what its
// reports say. The zero value of an optional field means unknown and is
// written as JSON null.
type Run struct {
	ID         string
	Kind       Kind
	Grade      string // graders only: GradeIsolated or lower
	Command    string
	Status     Status
	ExitCode   *int
	Commit     string
	Tree       string
	AgentRunID string
	StartedAt  time.Time
	EndedAt    time.Time

	// Counts is nil when no test report was read: absence is never zero.
	Counts *Counts
	// Complete is true when every report found was read whole, within the limits.
	Complete bool
	// IncompleteReasons says why Complete is false.
	IncompleteReasons []string
	// Failures are the first failing cases, in the order the reports list them,
	// with clipped and redacted messages.
	Failures []Failure
	// Cases maps each test id to its outcome (at most DefaultMaxCasesKept entries;
	// failing and flaky ids are kept first).
	Cases map[string]Outcome
	// Durations maps test ids kept in Cases to the time the reports state
	// for them, summed over the id's executions (retries, configurations).
	// An id is absent when some execution of it stated no usable time:
	// absence is never zero. Values are multiples of DurationResolution,
	// at most MaxCaseDuration.
	Durations map[string]time.Duration
	// Flaky lists, sorted, the ids that failed and passed within this run, or
	// that the runner retried and then passed.
	Flaky []string
	// NotRun is nil unless the run was checked against the tests it was
	// expected to run (ExpectIDs): then it lists those no report mentions.
	// nil is also unknown (a run whose cases were capped cannot tell).
	NotRun *NotRun
	// Coverage is nil when no coverage report was read.
	Coverage *Coverage
	// Reports describes every file that was read or refused.
	Reports []ReportInfo
}

// Counts are over distinct test ids. Total = Passed + Failed + Errors + Skipped.
// Flaky counts ids that are also counted under their final outcome.
type Counts struct {
	Total   int `json:"total"`
	Passed  int `json:"passed"`
	Failed  int `json:"failed"`
	Errors  int `json:"errors"`
	Skipped int `json:"skipped"`
	Flaky   int `json:"flaky"`
}

// Failure is one failing test case.
type Failure struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Message string  `json:"message"`
	Flaky   bool    `json:"flaky"`
	// File and Line are where the report says the test case is written
	// (see Execution), absent when it does not say: File is at most
	// MaxFileBytes of valid UTF-8 without control characters, Line is 1 or
	// more, or 0 (absent) when unknown.
	File string `json:"file,omitempty"`
	Line int    `json:"line,omitempty"`
}

// Coverage is the line coverage of a run. A nil field is unknown.
type Coverage struct {
	LineRate     *float64 `json:"line_rate"`
	LinesCovered *int64   `json:"lines_covered"`
	LinesValid   *int64   `json:"lines_valid"`
	// Reason says why the totals are unknown although coverage reports
	// were read whole (a report that states only totals beside others, or
	// more lines than the run keeps); "" (absent) otherwise. Unknown
	// coverage does not make the run incomplete.
	Reason string `json:"reason,omitempty"`
}

// ReportInfo describes one report file the run read, refused or skipped.
type ReportInfo struct {
	Path    string `json:"path"`
	Dialect string `json:"dialect"` // "" (null) when it was not recognised
	Bytes   int64  `json:"bytes"`
	SHA256  string `json:"sha256"` // "" (null) when the file was not read whole
	// Tests is the number of test case elements in the report; nil for
	// coverage reports and refused files.
	Tests *int `json:"tests"`
	// Error is why the report was refused or only partly read ("" when none).
	// A refused report makes the run incomplete.
	Error string `json:"error"`
	// Skipped is true for a file that is not a report at all (a pom.xml, a
	// failsafe-summary.xml): it is listed with its reason in Error but does
	// not make the run incomplete.
	Skipped bool `json:"skipped,omitempty"`
}

// Execution is one test case element as a runner wrote it, the input of a
// Builder. Executions with the same ID and Scope are retries of one another;
// executions with the same ID in different scopes ran in different
// configurations.
type Execution struct {
	// ID is classname::name as the runner wrote them (or name alone).
	ID string
	// Scope names the suite instance the case was written in (for example
	// the report path and the suite's position in it).
	Scope string
	// Outcome is this execution's result.
	Outcome Outcome
	// Message is the failure or error message as read (not yet clipped or
	// redacted); parsers bound its length.
	Message string
	// Duration is the time the report states for this execution, valid
	// only when Timed is true (between 0 and MaxCaseDuration).
	Duration time.Duration
	// RunnerFlaky is true when the runner itself retried the case and it
	// passed in the end (surefire/nextest flakyFailure, flakyError).
	RunnerFlaky bool
	Timed       bool
	// File and Line are where the report says the test case is written
	// (a path as the report gives it, and a line counted from 1; "" and 0
	// when it does not say); a failure message's file:line is never read
	// as it. A Builder keeps, per test id, the first File that is valid
	// (see MaxFileBytes), with its Line.
	File string
	Line int
}

// CoverageReport is what one coverage file states.
type CoverageReport struct {
	// LineRate, LinesCovered and LinesValid are the totals as the file states
	// them (Cobertura's root attributes); nil when absent.
	LineRate     *float64
	LinesCovered *int64
	LinesValid   *int64
	// Files holds per-source-file line data (Cobertura <line> elements per
	// class filename, lcov DA records per SF), keyed by the source file's
	// path relative to the repository. Nil for a Cobertura report without
	// any <line> element, which states only its totals.
	Files map[string]*FileCoverage
}

// OnlyTotals reports whether some of what c states cannot be merged line
// by line: it has no per-file line data (Cobertura without <line>
// elements), or a file stated only by its totals (an lcov record with
// LF/LH and no DA).
func (c *CoverageReport) OnlyTotals() bool {
	if c.Files == nil {
		return true
	}
	for _, f := range c.Files {
		if f != nil && f.Lines == nil {
			return true
		}
	}
	return false
}

// FileCoverage is the line data of one source file.
type FileCoverage struct {
	// Lines maps a line number to whether any record covered it (Cobertura
	// <line hits>, lcov DA). Non-nil, possibly empty, when the file was
	// stated line by line; nil when it was stated only by totals.
	Lines map[int64]bool
	// Found and Hit are the LF/LH totals of lcov records without DA lines.
	Found, Hit int64
}

// MaxCount bounds every count of a valid run: 64 reports of at most 100,000
// test cases each. No honest run holds more, and bounding each count before
// adding them keeps the sum far from wrapping.
const MaxCount = 6_400_000

// Valid reports whether the counts are consistent: each is between 0 and
// MaxCount, total is passed + failed + errors + skipped, and flaky (ids also
// counted under their final outcome) is at most total. Each count is checked
// against its bound before any is added, so no sum can wrap around.
func (c Counts) Valid() bool {
	return ValidCounts(int64(c.Total), int64(c.Passed), int64(c.Failed), int64(c.Errors), int64(c.Skipped), int64(c.Flaky))
}

// ValidCounts is Counts.Valid for counts read as int64 (span attributes),
// checked before any conversion or sum.
func ValidCounts(total, passed, failed, errors, skipped, flaky int64) bool {
	for _, n := range [...]int64{total, passed, failed, errors, skipped, flaky} {
		if n < 0 || n > MaxCount {
			return false
		}
	}
	return total == passed+failed+errors+skipped && flaky <= total
}

// Valid reports whether the coverage is consistent: a line rate between 0
// and 1, no negative line count, and no more lines covered than valid.
func (c Coverage) Valid() bool {
	if c.LineRate != nil && !(*c.LineRate >= 0 && *c.LineRate <= 1) {
		return false
	}
	if (c.LinesCovered != nil && *c.LinesCovered < 0) || (c.LinesValid != nil && *c.LinesValid < 0) {
		return false
	}
	return c.LinesCovered == nil || c.LinesValid == nil || *c.LinesCovered <= *c.LinesValid
}

// Validate reports, wrapping ErrInvalidRun, what makes r unusable: an
// unknown kind or status, counts that do not add up, coverage out of range,
// an unknown case outcome, a failure that is not failing or whose file or
// line is out of bounds (see ValidFile; a line below 0), a negative report
// size, a duration out of range or of an id not in cases, not_run ids that
// are not sorted and distinct, or a run that contradicts itself. A run
// contradicts itself when it is complete beside incomplete reasons, beside
// a refused report (one with an error that is not skipped) or beside
// expected tests that never ran; when failures, cases or flaky are not
// empty but counts are unknown; when failures or cases hold more distinct
// failing ids than failed + errors, or flaky more ids than the flaky
// count; when a failure's outcome differs from its case's; when not_run
// names an id that is in cases or counts fewer ids than it lists; or when
// a report entry that was not read (refused or skipped) states tests or a
// digest, or a skipped one gives no reason. Every
// reader of a run (its JSON form, the export, the processor) checks it the
// same way. A run without id is valid here; readers that need one check it.
func (r *Run) Validate() error {
	switch {
	case r == nil:
		return fmt.Errorf("%w: no run", ErrInvalidRun)
	case r.Kind != "" && !r.Kind.Valid():
		return fmt.Errorf("%w: unknown kind %q", ErrInvalidRun, r.Kind)
	case r.Status != "" && !r.Status.Valid():
		return fmt.Errorf("%w: unknown status %q", ErrInvalidRun, r.Status)
	}
	if c := r.Counts; c != nil && !c.Valid() {
		return fmt.Errorf("%w: counts do not add up (total %d = passed %d + failed %d + errors %d + skipped %d, flaky %d)",
			ErrInvalidRun, c.Total, c.Passed, c.Failed, c.Errors, c.Skipped, c.Flaky)
	}
	if c := r.Coverage; c != nil && !c.Valid() {
		return fmt.Errorf("%w: coverage out of range (line_rate between 0 and 1, lines_covered <= lines_valid)", ErrInvalidRun)
	}
	failing, ok := r.scanCases()
	if !ok {
		if err := r.validateCases(); err != nil {
			return err
		}
	}
	for _, f := range r.Failures {
		if !f.Outcome.Failing() {
			return fmt.Errorf("%w: failure %q has outcome %q", ErrInvalidRun, f.ID, f.Outcome)
		}
		if o, ok := r.Cases[f.ID]; ok && o != f.Outcome {
			return fmt.Errorf("%w: failure %q has outcome %q but cases say %q", ErrInvalidRun, f.ID, f.Outcome, o)
		}
		if err := f.validateLocation(); err != nil {
			return err
		}
	}
	for _, rep := range r.Reports {
		if rep.Bytes < 0 || (rep.Tests != nil && *rep.Tests < 0) {
			return fmt.Errorf("%w: report %q has a negative bytes or tests", ErrInvalidRun, rep.Path)
		}
	}
	if err := r.validateNotRun(); err != nil {
		return err
	}
	return r.validateAgreement(failing)
}

// scanCases walks the cases once, the durations with them, and returns
// how many cases are failing and whether cases and durations are valid
// (what validateCases checks). A run of thousands of cases is walked once
// rather than once for cases, once for durations (each looked up in
// cases) and once more to count: validateCases, which says what is wrong,
// runs only when something is.
func (r *Run) scanCases() (failing int, ok bool) {
	if len(r.Durations) > len(r.Cases) {
		return 0, false
	}
	timed := 0
	for id, o := range r.Cases {
		switch o {
		case OutcomeFailed, OutcomeError:
			failing++
		case OutcomePassed, OutcomeSkipped:
		default:
			return 0, false
		}
		if len(r.Durations) == 0 {
			continue
		}
		if d, ok := r.Durations[id]; ok {
			if d < 0 || d > MaxCaseDuration {
				return 0, false
			}
			timed++
		}
	}
	// Durations' ids are distinct: when as many cases have one, every
	// duration is of a case.
	return failing, timed == len(r.Durations)
}

// validateCases reports an unknown case outcome, or a duration out of
// range or of an id not in cases.
func (r *Run) validateCases() error {
	for id, o := range r.Cases {
		if !o.Valid() {
			return fmt.Errorf("%w: case %q has unknown outcome %q", ErrInvalidRun, id, o)
		}
	}
	if len(r.Durations) > 0 && len(r.Cases) == 0 {
		return fmt.Errorf("%w: durations are given without cases", ErrInvalidRun)
	}
	for id, d := range r.Durations {
		if _, ok := r.Cases[id]; !ok {
			return fmt.Errorf("%w: duration of %q, which is not in cases", ErrInvalidRun, id)
		}
		if d < 0 || d > MaxCaseDuration {
			return fmt.Errorf("%w: duration of %q is %s, want 0 to %s", ErrInvalidRun, id, d, MaxCaseDuration)
		}
	}
	return nil
}

// Merge adds o's line data to f, for the same source file: a line is
// covered when either covers it, and records without DA lines keep the
// larger LF/LH (the same file stated twice is one file).
func (f *FileCoverage) Merge(o *FileCoverage) {
	if o.Lines != nil && f.Lines == nil {
		f.Lines = make(map[int64]bool, len(o.Lines))
	}
	for line, hit := range o.Lines {
		f.Lines[line] = f.Lines[line] || hit
	}
	f.Found = max(f.Found, o.Found)
	f.Hit = max(f.Hit, o.Hit)
}
