package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"
)

// jsonRun is the exact JSON form of a Run: what MarshalJSON encodes and,
// read off it by specOf, what UnmarshalJSON's walker accepts (runSpec). A
// pointer is null when unknown, never 0 or ""; an omitempty field is
// absent when empty; a list or map tagged run:"null" is null when the run
// has no counts.
type jsonRun struct {
	ID                *string            `json:"id"`
	Kind              *Kind              `json:"kind"`
	Grade             *string            `json:"grade"`
	Command           *string            `json:"command"`
	Status            *Status            `json:"status"`
	ExitCode          *int               `json:"exit_code"`
	Commit            *string            `json:"commit"`
	Tree              *string            `json:"tree"`
	AgentRunID        *string            `json:"agent_run_id"`
	StartedAt         *time.Time         `json:"started_at"`
	EndedAt           *time.Time         `json:"ended_at"`
	Counts            *Counts            `json:"counts"`
	Complete          bool               `json:"complete"`
	IncompleteReasons []string           `json:"incomplete_reasons"`
	Trusted           bool               `json:"trusted"`
	Counted           bool               `json:"counted"`
	Failures          []Failure          `json:"failures" run:"null"`
	Cases             map[string]Outcome `json:"cases" run:"null"`
	Durations         map[string]float64 `json:"durations,omitempty"`
	Flaky             []string           `json:"flaky" run:"null"`
	NotRun            *[]string          `json:"not_run,omitempty"`
	NotRunCount       *int               `json:"not_run_count,omitempty"`
	Coverage          *Coverage          `json:"coverage"`
	Reports           []jsonReport       `json:"reports"`
}

type jsonReport struct {
	Path    string  `json:"path"`
	Dialect *string `json:"dialect"`
	Bytes   int64   `json:"bytes"`
	SHA256  *string `json:"sha256"`
	Tests   *int    `json:"tests"`
	Error   *string `json:"error"`
	Skipped bool    `json:"skipped,omitempty"`
}

func strPtr[T ~string](s T) *T {
	if s == "" {
		return nil
	}
	return &s
}

func strVal[T ~string](p *T) T {
	if p == nil {
		return ""
	}
	return *p
}

func timePtr(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	return &t
}

// timeVal is the instant p holds, in UTC: an offset (+02:00, or +00:00
// against Z) says nothing more about when the run ran, and reading it in one
// location makes a run read back from its own JSON form equal to itself.
func timeVal(p *time.Time) time.Time {
	if p == nil || p.IsZero() {
		return time.Time{}
	}
	return p.UTC()
}

// MarshalJSON writes the run's exact JSON form. trusted and counted are
// computed by Trusted and Counted. failures, flaky and cases are null when
// the run has no counts, and [] or {} when it has counts but none.
func (r Run) MarshalJSON() ([]byte, error) {
	return r.marshal(true)
}

// MarshalJSONCasesLeftOut writes the run's JSON form with its per-case map
// left out, for views that give the cases apart (paged): "cases" is null,
// unknown here, never {} that would read as a run that kept no case, and
// "durations" is absent. Read back, the run has no cases.
func (r Run) MarshalJSONCasesLeftOut() ([]byte, error) {
	r.Cases, r.Durations = nil, nil
	return r.marshal(false)
}

// marshal writes the run's JSON form; withCases false leaves cases null.
func (r Run) marshal(withCases bool) ([]byte, error) {
	j := jsonRun{
		ID:                strPtr(r.ID),
		Kind:              strPtr(r.Kind),
		Grade:             strPtr(r.Grade),
		Command:           strPtr(r.Command),
		Status:            strPtr(r.Status),
		ExitCode:          r.ExitCode,
		Commit:            strPtr(r.Commit),
		Tree:              strPtr(r.Tree),
		AgentRunID:        strPtr(r.AgentRunID),
		StartedAt:         timePtr(r.StartedAt),
		EndedAt:           timePtr(r.EndedAt),
		Counts:            r.Counts,
		Complete:          r.Complete,
		IncompleteReasons: nonNil(r.IncompleteReasons),
		Trusted:           r.Trusted(),
		Counted:           r.Counted(),
		Failures:          r.Failures,
		Cases:             r.Cases,
		Durations:         durationsJSON(r.Durations),
		Flaky:             r.Flaky,
		Coverage:          r.Coverage,
		Reports:           make([]jsonReport, len(r.Reports)),
	}
	// With counts, an empty list means none; without, the lists are
	// unknown and null like the counts: "failures": [] must never read as
	// "no failures" for a run that read nothing.
	if r.Counts != nil {
		j.Failures, j.Flaky = nonNil(r.Failures), nonNil(r.Flaky)
		if j.Cases == nil && withCases {
			j.Cases = map[string]Outcome{}
		}
	}
	// not_run and not_run_count are there only when the run was checked
	// against the tests it was expected to run, and then together.
	if nr := r.NotRun; nr != nil {
		ids, n := nonNil(nr.IDs), nr.Count
		j.NotRun, j.NotRunCount = &ids, &n
	}
	for i, rep := range r.Reports {
		j.Reports[i] = jsonReport{
			Path:    rep.Path,
			Dialect: strPtr(rep.Dialect),
			Bytes:   rep.Bytes,
			SHA256:  strPtr(rep.SHA256),
			Tests:   rep.Tests,
			Error:   strPtr(rep.Error),
			Skipped: rep.Skipped,
		}
	}
	// Test ids and messages hold <, > and & often (vitest "a > b"): keep
	// them readable rather than \u003e.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(j); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// durationsJSON writes durations in seconds, the unit reports state them in.
func durationsJSON(d map[string]time.Duration) map[string]float64 {
	if len(d) == 0 {
		return nil
	}
	out := make(map[string]float64, len(d))
	for id, v := range d {
		out[id] = v.Seconds()
	}
	return out
}

// durationsOf reads durations in seconds back at DurationResolution; a value
// out of range is kept out of range (not clamped) for Validate to refuse.
func durationsOf(s map[string]float64) map[string]time.Duration {
	if len(s) == 0 {
		return nil
	}
	out := make(map[string]time.Duration, len(s))
	for id, v := range s {
		out[id] = secondsDuration(v)
	}
	return out
}

// secondsDuration converts seconds to a Duration rounded to
// DurationResolution; a value beyond MaxCaseDuration either way becomes
// -(MaxCaseDuration+1) or MaxCaseDuration+1, never a wrapped value.
func secondsDuration(v float64) time.Duration {
	switch {
	case v < -MaxCaseDuration.Seconds():
		return -MaxCaseDuration - 1
	case v > MaxCaseDuration.Seconds():
		return MaxCaseDuration + 1
	}
	return time.Duration(math.Round(v*1e6)) * DurationResolution
}

// MarshalDurations writes durations as the run's JSON form does: an object
// of test id to seconds.
func MarshalDurations(d map[string]time.Duration) ([]byte, error) {
	return json.Marshal(durationsJSON(d))
}

// UnmarshalDurations reads what MarshalDurations writes, at
// DurationResolution. Values out of range are refused (ErrInvalidRun).
func UnmarshalDurations(data []byte) (map[string]time.Duration, error) {
	var s map[string]float64
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("%w: durations: %w", ErrInvalidRun, err)
	}
	d := durationsOf(s)
	for id, v := range d {
		if v < 0 || v > MaxCaseDuration {
			return nil, fmt.Errorf("%w: duration of %q is %s, want 0 to %s", ErrInvalidRun, id, v, MaxCaseDuration)
		}
	}
	return d, nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// ErrInvalidRun is wrapped by every error of UnmarshalJSON, ReadRun and
// Validate: the input is not a run's exact JSON form, or the run it
// describes is invalid or contradicts itself.
var ErrInvalidRun = errors.New("testrun: invalid run")

// UnmarshalJSON reads a run's exact JSON form, strictly (see the package
// documentation): the form is checked token by token before it is decoded,
// the run must pass Validate, and its trusted and counted fields must equal
// what Trusted and Counted compute, else the file is refused as forged.
// Every error wraps ErrInvalidRun.
func (r *Run) UnmarshalJSON(data []byte) error {
	if err := checkJSON(data); err != nil {
		return err
	}
	var j jsonRun
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRun, err)
	}
	out := Run{
		ID:                strVal(j.ID),
		Kind:              strVal(j.Kind),
		Grade:             strVal(j.Grade),
		Command:           strVal(j.Command),
		Status:            strVal(j.Status),
		ExitCode:          j.ExitCode,
		Commit:            strVal(j.Commit),
		Tree:              strVal(j.Tree),
		AgentRunID:        strVal(j.AgentRunID),
		StartedAt:         timeVal(j.StartedAt),
		EndedAt:           timeVal(j.EndedAt),
		Counts:            j.Counts,
		Complete:          j.Complete,
		IncompleteReasons: nilIfEmpty(j.IncompleteReasons),
		Failures:          nilIfEmpty(j.Failures),
		Cases:             j.Cases,
		Flaky:             nilIfEmpty(j.Flaky),
		Coverage:          j.Coverage,
	}
	if len(out.Cases) == 0 {
		out.Cases = nil // {} and null are both no cases, as [] and null are no failures
	}
	out.Durations = durationsOf(j.Durations)
	switch {
	case (j.NotRun == nil) != (j.NotRunCount == nil):
		return fmt.Errorf("%w: not_run and not_run_count are given together or not at all", ErrInvalidRun)
	case j.NotRun != nil:
		out.NotRun = &NotRun{Count: *j.NotRunCount, IDs: nilIfEmpty(*j.NotRun)}
	}
	for _, rep := range j.Reports {
		out.Reports = append(out.Reports, ReportInfo{
			Path:    rep.Path,
			Dialect: strVal(rep.Dialect),
			Bytes:   rep.Bytes,
			SHA256:  strVal(rep.SHA256),
			Tests:   rep.Tests,
			Error:   strVal(rep.Error),
			Skipped: rep.Skipped,
		})
	}
	if err := out.Validate(); err != nil {
		return err
	}
	// The flags are part of the form but never believed: a file that
	// claims other values than the rules give is refused, not corrected.
	if t := out.Trusted(); j.Trusted != t {
		return fmt.Errorf("%w: trusted is %t but the rules give %t for kind %q grade %q: forged",
			ErrInvalidRun, j.Trusted, t, out.Kind, out.Grade)
	}
	if c := out.Counted(); j.Counted != c {
		return fmt.Errorf("%w: counted is %t but the rules give %t (trusted %t, counts %s, complete %t): forged",
			ErrInvalidRun, j.Counted, c, out.Trusted(), countsTotal(out.Counts), out.Complete)
	}
	*r = out
	return nil
}

func countsTotal(c *Counts) string {
	if c == nil {
		return "null"
	}
	return fmt.Sprintf("total %d", c.Total)
}
