package testrun

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// A quarantine entry is the one excuse a person makes: a test that still
// runs and is still reported, whose failure does not fail a run that asks
// for quarantine (run --quarantine). It names its owner and why, and it
// expires: nothing renews it but a person adding it again. Nothing adds one
// by itself — not a score, not a trend, not a run that fails every time; a
// test that fails on every run is broken, and no command quarantines it for
// anyone.
//
// Like the flaky list, an entry counts for a job only when it was there
// before the job started: it was created before the job's start and had
// not expired by then (QuarantineEntry.Excuses).

// MaxQuarantine bounds how long a quarantine entry lasts from its creation:
// a person looks at it again within that time, or it stops counting.
const MaxQuarantine = 90 * 24 * time.Hour

// Bounds of a quarantine entry's text fields, in bytes.
const (
	MaxQuarantineOwner  = 200
	MaxQuarantineReason = 1000
)

// ErrQuarantine is wrapped by every error about a quarantine entry's
// fields (CheckQuarantine) or an expiry that does not parse
// (ParseExpiry).
var ErrQuarantine = errors.New("testrun: quarantine")

// QuarantineEntry is one test a person quarantined in a repository.
type QuarantineEntry struct {
	Repository string `json:"repository"`
	// Environment is the one environment it applies to; "" applies to
	// every environment of the repository.
	Environment string `json:"environment"`
	TestID      string `json:"test_id"`
	// Owner is who answers for it; Reason why it is quarantined.
	Owner  string `json:"owner"`
	Reason string `json:"reason"`
	// Created is when it was added (a store stamps it); it stops counting
	// at Expires.
	Created time.Time `json:"created"`
	Expires time.Time `json:"expires"`
}

// Expired reports whether e no longer counts at t.
func (e QuarantineEntry) Expired(t time.Time) bool { return !t.Before(e.Expires) }

// Excuses reports whether e excuses a failure of its test in a job that
// started at jobStart: it was created before the job started and had not
// expired by then.
func (e QuarantineEntry) Excuses(jobStart time.Time) bool {
	return e.Created.Before(jobStart) && !e.Expired(jobStart)
}

// AppliesTo reports whether e applies in environment env.
func (e QuarantineEntry) AppliesTo(env string) bool {
	return e.Environment == "" || e.Environment == env
}

// CheckQuarantine checks an entry about to be added at now: what names it
// (CheckQuarantineKey), owner and reason given (within their bounds, one
// line each, UTF-8), and an expiry given, after now and at most
// MaxQuarantine later. It is the one rule of an entry, whoever adds it
// (flaky quarantine add, the query API, a store).
func CheckQuarantine(e QuarantineEntry, now time.Time) error {
	if err := CheckQuarantineKey(e.Repository, e.Environment, e.TestID); err != nil {
		return err
	}
	if err := checkQuarantineField("the owner", e.Owner, MaxQuarantineOwner); err != nil {
		return err
	}
	if err := checkQuarantineField("the reason", e.Reason, MaxQuarantineReason); err != nil {
		return err
	}
	switch {
	case e.Expires.IsZero():
		return fmt.Errorf("%w: the expiry is required", ErrQuarantine)
	case !e.Expires.After(now):
		return fmt.Errorf("%w: it expires at %s, not after now (%s)", ErrQuarantine, e.Expires.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339))
	case e.Expires.Sub(now) > MaxQuarantine:
		return fmt.Errorf("%w: it expires at %s, more than %d days from now: quarantine is for a test someone is fixing", ErrQuarantine, e.Expires.UTC().Format(time.RFC3339), int(MaxQuarantine/(24*time.Hour)))
	}
	return nil
}

// Bounds of what names a quarantine entry, in bytes.
const (
	MaxQuarantineRepository = MaxIDLength * 4
	MaxQuarantineTestID     = 4096
)

// CheckQuarantineKey checks what names an entry, to add or to remove one:
// a repository and a test id given (within MaxQuarantineRepository and
// MaxQuarantineTestID, one line each, UTF-8), and an environment of one
// line ("" is every environment).
func CheckQuarantineKey(repo, env, testID string) error {
	if err := CheckQuarantineRepository(repo); err != nil {
		return err
	}
	if err := checkQuarantineField("the test id", testID, MaxQuarantineTestID); err != nil {
		return err
	}
	switch {
	case len(env) > MaxQuarantineRepository:
		return fmt.Errorf("%w: the environment is %d bytes, over %d", ErrQuarantine, len(env), MaxQuarantineRepository)
	case !utf8.ValidString(env):
		return fmt.Errorf("%w: the environment is not UTF-8", ErrQuarantine)
	case strings.ContainsAny(env, "\r\n\x00"):
		return fmt.Errorf("%w: the environment must be one line", ErrQuarantine)
	}
	return nil
}

// CheckQuarantineRepository checks the repository of entries: given,
// within MaxQuarantineRepository, one line, UTF-8.
func CheckQuarantineRepository(repo string) error {
	return checkQuarantineField("the repository", repo, MaxQuarantineRepository)
}

// checkQuarantineField checks a required text field of an entry: given,
// within max bytes, UTF-8, one line.
func checkQuarantineField(name, v string, max int) error {
	switch {
	case strings.TrimSpace(v) == "":
		return fmt.Errorf("%w: %s is required", ErrQuarantine, name)
	case len(v) > max:
		return fmt.Errorf("%w: %s is %d bytes, over %d", ErrQuarantine, name, len(v), max)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not UTF-8", ErrQuarantine, name)
	case strings.ContainsAny(v, "\r\n\x00"):
		return fmt.Errorf("%w: %s must be one line", ErrQuarantine, name)
	}
	return nil
}

// dayCount matches a whole number of days or weeks: 14d, 2w.
var dayCount = regexp.MustCompile(`^([0-9]{1,4})([dw])$`)

// ParseExpiry reads an expiry given at now: a date (2026-12-31: the entry
// counts through that day, UTC, and expires at the next midnight UTC), a
// time (RFC 3339), or a duration from now (Go's form, 72h, 90m; or whole
// days or weeks, 14d, 2w).
func ParseExpiry(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t.AddDate(0, 0, 1), nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if m := dayCount.FindStringSubmatch(s); m != nil {
		n, _ := strconv.Atoi(m[1])
		if m[2] == "w" {
			n *= 7
		}
		return now.AddDate(0, 0, n), nil
	}
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return now.Add(d), nil
	}
	return time.Time{}, fmt.Errorf("%w: expiry %q: want a date (2006-01-02), a time (RFC 3339) or a duration (72h, 14d, 2w)", ErrQuarantine, s)
}

// QuarantinedFailure is one failure and the entry that excuses it (nil
// when none does).
type QuarantinedFailure struct {
	ID    string           `json:"id"`
	Entry *QuarantineEntry `json:"entry,omitempty"`
}

// Quarantined is what quarantine excuses of a run.
type Quarantined struct {
	// Failures are the run's failing tests, sorted by id, each with the
	// entry that excuses it.
	Failures []QuarantinedFailure `json:"failures"`
	// Unknown says why the failing tests are not known whole ("" when
	// they are); nothing is then excused.
	Unknown string `json:"unknown_reason,omitempty"`
	// Warnings name the entries of failing tests that did not count: expired
	// by the job's start, or created after it.
	Warnings []string `json:"warnings,omitempty"`
	// Passes is true when the run failed only by quarantined tests: there
	// is at least one failing test, they are known whole, and an entry
	// excuses every one.
	Passes bool `json:"passes"`
}

// Excused lists the ids of the failures quarantine excuses.
func (q Quarantined) Excused() []string {
	var ids []string
	for _, f := range q.Failures {
		if f.Entry != nil {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// NotExcused lists the ids of the failures no entry excuses.
func (q Quarantined) NotExcused() []string {
	var ids []string
	for _, f := range q.Failures {
		if f.Entry == nil {
			ids = append(ids, f.ID)
		}
	}
	return ids
}

// Quarantine is the one rule for which failures of run r quarantine
// excuses in environment env for a job that started at jobStart: every
// failing test of r (ExcusableFailures without a base), each excused by an
// entry for its test that applies to env (QuarantineEntry.AppliesTo) and
// excuses at jobStart (QuarantineEntry.Excuses). Entries of other tests are
// ignored. An entry of a failing test that does not count adds a warning.
// A run that timed out or was aborted has nothing excused.
// Where an entry for env and one for every environment both apply, the one
// for env decides. With WithOutput (its after output: the check's kept
// output), an output that names more failing tests than the reports list,
// some of which no report id matches, leaves the failures unknown:
// quarantine cannot excuse what it cannot see. (The counts decide, not the
// names alone: jest-junit's default ids do not read like jest's lines.)
func Quarantine(r *Run, entries []QuarantineEntry, env string, jobStart time.Time, opts ...CompareOption) Quarantined {
	var cfg compareConfig
	for _, o := range opts {
		cfg = o.applyCompare(cfg)
	}
	q := Quarantined{Failures: []QuarantinedFailure{}}
	if r != nil && (r.Status == StatusTimedOut || r.Status == StatusAborted) {
		// A check ended by a timeout or a signal did not fail only by
		// its tests.
		q.Unknown = fmt.Sprintf("run %q ended %s", r.ID, r.Status)
		return q
	}
	ids, err := ExcusableFailures(r, nil)
	if err != nil {
		q.Unknown = err.Error()
		return q
	}
	if cfg.hasOutput {
		named := ScanOutput(cfg.afterOut)
		if missed := unexplained(named, nil, r); len(missed) > 0 && distinctNamed(named) > len(ids) {
			q.Unknown = fmt.Sprintf("the check's output names %d failing tests and its reports list %d; not in the reports: %s",
				distinctNamed(named), len(ids), namedList(missed))
			return q
		}
	}
	byTest := map[string]QuarantineEntry{}
	for _, e := range entries {
		if !e.AppliesTo(env) {
			continue
		}
		if old, ok := byTest[e.TestID]; ok && old.Environment != "" {
			continue // the environment's own entry decides
		}
		byTest[e.TestID] = e
	}
	q.Passes = len(ids) > 0
	for _, id := range ids {
		f := QuarantinedFailure{ID: id}
		if e, ok := byTest[id]; ok {
			switch {
			case e.Excuses(jobStart):
				f.Entry = &e
			case !e.Created.Before(jobStart):
				q.Warnings = append(q.Warnings, fmt.Sprintf("%s: quarantined at %s, after this job started: it counts from the next job", id, e.Created.UTC().Format(time.RFC3339)))
			default:
				q.Warnings = append(q.Warnings, fmt.Sprintf("%s: the quarantine by %s expired at %s: it no longer counts", id, e.Owner, e.Expires.UTC().Format(time.RFC3339)))
			}
		}
		q.Passes = q.Passes && f.Entry != nil
		q.Failures = append(q.Failures, f)
	}
	sort.Strings(q.Warnings)
	return q
}

// Reason says why q does not let the run pass, for people ("" when it
// does).
func (q Quarantined) Reason() string {
	switch {
	case q.Passes:
		return ""
	case q.Unknown != "":
		return "failures unknown: " + q.Unknown
	case len(q.Failures) == 0:
		return "the check failed without a failing test"
	}
	return "not quarantined before the job started: " + strings.Join(q.NotExcused(), ", ")
}
