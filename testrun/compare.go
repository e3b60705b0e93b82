package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
)

// ErrComparisonUnavailable is returned when two runs cannot be compared
// exactly: an empty list of new failures would then read as "nothing new".
var ErrComparisonUnavailable = errors.New("testrun: comparison unavailable")

// FailingIDs returns the set of test ids that failed or errored in r. It
// fails with ErrComparisonUnavailable when the set is not known whole: the
// run is incomplete, has no counts, or lists fewer failing ids than it
// counts.
func FailingIDs(r *Run) (map[string]bool, error) {
	if r == nil {
		return nil, fmt.Errorf("%w: no run", ErrComparisonUnavailable)
	}
	if r.Counts == nil {
		return nil, fmt.Errorf("%w: run %q has no counts (no report was read)", ErrComparisonUnavailable, r.ID)
	}
	if !r.Complete {
		return nil, fmt.Errorf("%w: run %q is incomplete", ErrComparisonUnavailable, r.ID)
	}
	set := make(map[string]bool, r.Counts.Failed+r.Counts.Errors)
	for _, f := range r.Failures {
		set[f.ID] = true
	}
	for id, o := range r.Cases {
		if o.Failing() {
			set[id] = true
		}
	}
	if want := r.Counts.Failed + r.Counts.Errors; len(set) != want {
		return nil, fmt.Errorf("%w: run %q lists %d failing ids but counts %d", ErrComparisonUnavailable, r.ID, len(set), want)
	}
	return set, nil
}

// NewFailures returns, sorted, the ids failing in after and not failing in
// base: exactly the set difference, only when both runs are complete and
// their failing ids are known whole. Otherwise it returns an error wrapping
// ErrComparisonUnavailable and no list.
//
// It is the one place the difference is computed: Compare, the span events
// of package translate and the CLI all call it.
func NewFailures(base, after *Run) ([]string, error) {
	ids, _, err := newFailures(base, after)
	return ids, err
}

// newFailures is NewFailures that also returns after's failing ids.
func newFailures(base, after *Run) (ids []string, afterFailing map[string]bool, err error) {
	baseFailing, err := FailingIDs(base)
	if err != nil {
		return nil, nil, fmt.Errorf("base: %w", err)
	}
	// A failure in the base excuses the same failure after: a base the
	// rules do not trust (a gate run, the agent's own; no kind) could
	// excuse anything, and so could the after run given as its own base.
	if !base.Trusted() {
		return nil, nil, fmt.Errorf("base: %w: run %q (kind %q, grade %q) is not trusted, so it is no baseline", ErrComparisonUnavailable, base.ID, base.Kind, base.Grade)
	}
	if after != nil && (base == after || base.ID != "" && base.ID == after.ID) {
		return nil, nil, fmt.Errorf("%w: the base and the after run are the same run (%q)", ErrComparisonUnavailable, base.ID)
	}
	afterFailing, err = FailingIDs(after)
	if err != nil {
		return nil, nil, fmt.Errorf("after: %w", err)
	}
	if after.Counts.Total == 0 {
		// A run that ran nothing has no new failure to show: "none"
		// would read as a pass.
		return nil, nil, fmt.Errorf("after: %w: run %q ran no test", ErrComparisonUnavailable, after.ID)
	}
	ids = []string{}
	for id := range afterFailing {
		if !baseFailing[id] {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	return ids, afterFailing, nil
}

// Comparison is what a run after a change says against its base run. Its
// JSON form holds the fields that TEST-RESULTS.json adds to a run when a
// base is given:
//
//	base_id, after_id    the two runs' ids
//	available            true only when new_failures is the exact answer
//	unavailable_reason   why it is not (null when available)
//	new_failures         failing in after and not in base, with after's
//	                     messages; null when unavailable
//	base_failures        the base's own failures; null when not known whole
//	fixed                failing in base, passed in after; null when unavailable
//	flaky                after's flaky ids, each with on_list (true or false
//	                     against the flaky list given, null without a list)
//	coverage_delta       after's line rate minus base's, rounded to 6 decimals;
//	                     null unless both are known
//	output_failures      failing tests the check's output names that the
//	                     reports do not explain; null when no output was given
//
// Lists are sorted by test id. An empty list is an exact "none"; null is
// "not known".
type Comparison struct {
	BaseID, AfterID string
	// Available is true when NewFailures is the exact answer. When false,
	// Unavailable says why and NewFailures and Fixed are nil.
	Available   bool
	Unavailable string
	// NewFailures fail in after and not in base; each carries after's
	// outcome and message (message "" when after lists the id only among
	// its cases).
	NewFailures []Failure
	// BaseFailures are the base's own failures, nil when the base's failing
	// ids are not known whole.
	BaseFailures []Failure
	// Fixed failed in base and passed in after; nil (unknown) when after
	// does not list the case of a base failure that does not fail in it.
	Fixed []string
	// Flaky are after's flaky ids.
	Flaky []FlakyMark
	// CoverageDelta is after's line rate minus base's, nil unless both are
	// known.
	CoverageDelta *float64
	// OutputFailures are the failing tests that the check's output names
	// and that neither the reports nor the base's output explain; nil when
	// no output was given.
	OutputFailures []OutputFailure

	err error
}

// FlakyMark is one flaky test of a run and whether the flaky list holds it.
type FlakyMark struct {
	ID string `json:"id"`
	// OnList is nil when no flaky list was given.
	OnList *bool `json:"on_list"`
}

// CompareOption configures Compare.
type CompareOption interface {
	applyCompare(compareConfig) compareConfig
}

type compareConfig struct {
	flakyList         map[string]bool
	hasList           bool
	baseOut, afterOut []byte
	hasOutput         bool
	afterCasesKnown   bool
}

type compareOptionFunc func(compareConfig) compareConfig

func (f compareOptionFunc) applyCompare(c compareConfig) compareConfig { return f(c) }

// WithAfterCasesKnown tells Compare that the after run's Cases holds the
// outcome of every base failure the run ran, though it may hold fewer
// cases than the run counts (a run read back with only the outcomes a
// summary needs): a base failure it does not list did not run, and is not
// fixed. Without it, a base failure that after neither fails nor lists
// makes Fixed unknown unless after lists all its cases.
func WithAfterCasesKnown() CompareOption {
	return compareOptionFunc(func(c compareConfig) compareConfig {
		c.afterCasesKnown = true
		return c
	})
}

// WithFlakyList marks which of after's flaky tests are on the flaky list:
// ids holds the test ids the list held (for a job, those on it before the
// job started). Without it, on_list is null.
func WithFlakyList(ids []string) CompareOption {
	return compareOptionFunc(func(c compareConfig) compareConfig {
		c.flakyList = make(map[string]bool, len(ids))
		for _, id := range ids {
			c.flakyList[id] = true
		}
		c.hasList = true
		return c
	})
}

// WithOutput gives the kept output of both checks (the last MaxOutputBytes
// of each; only that much of the end is read). When the reports show
// nothing new but after's output names a failing test that base's output
// does not and that after's reports do not list as failing, the comparison
// is unavailable and says which test and which runner line named it.
// base may be nil when the base's output was not kept.
func WithOutput(base, after []byte) CompareOption {
	return compareOptionFunc(func(c compareConfig) compareConfig {
		c.baseOut, c.afterOut, c.hasOutput = base, after, true
		return c
	})
}

// Compare compares the run after a change with its base run. It never
// returns an empty NewFailures that is not exact: when either run is
// incomplete, has no counts, or does not list its failing ids whole, or
// when the check's output names a failing test the reports miss, Available
// is false and Unavailable says why.
func Compare(base, after *Run, opts ...CompareOption) Comparison {
	var cfg compareConfig
	for _, o := range opts {
		cfg = o.applyCompare(cfg)
	}
	c := Comparison{}
	if base != nil {
		c.BaseID = base.ID
	}
	if after != nil {
		c.AfterID = after.ID
		c.Flaky = make([]FlakyMark, 0, len(after.Flaky))
		for _, id := range after.Flaky {
			m := FlakyMark{ID: id}
			if cfg.hasList {
				on := cfg.flakyList[id]
				m.OnList = &on
			}
			c.Flaky = append(c.Flaky, m)
		}
		sort.Slice(c.Flaky, func(i, j int) bool { return c.Flaky[i].ID < c.Flaky[j].ID })
	}
	if base != nil && after != nil && base.Coverage != nil && after.Coverage != nil &&
		base.Coverage.LineRate != nil && after.Coverage.LineRate != nil {
		d := math.Round((*after.Coverage.LineRate-*base.Coverage.LineRate)*1e6) / 1e6
		if d == 0 {
			d = 0 // no -0 in JSON
		}
		c.CoverageDelta = &d
	}
	if baseFailing, err := FailingIDs(base); err == nil {
		c.BaseFailures = failuresOf(base, baseFailing)
	}
	if cfg.hasOutput {
		var baseNames []OutputFailure
		if cfg.baseOut != nil {
			baseNames = ScanOutput(cfg.baseOut)
		}
		c.OutputFailures = []OutputFailure{}
		if after != nil {
			c.OutputFailures = unexplained(ScanOutput(cfg.afterOut), baseNames, after)
		}
	}

	ids, afterFailing, err := newFailures(base, after)
	if err != nil {
		c.err, c.Unavailable = err, err.Error()
		return c
	}
	set := make(map[string]bool, len(ids))
	for _, id := range ids {
		set[id] = true
	}
	c.NewFailures = failuresOf(after, set)
	c.Fixed = fixed(c.BaseFailures, after, afterFailing, cfg.afterCasesKnown || len(after.Cases) >= after.Counts.Total)
	if len(ids) == 0 && len(c.OutputFailures) > 0 {
		c.NewFailures, c.Fixed = nil, nil
		c.err = fmt.Errorf("%w: the reports show no new failure, but the check's output names %s",
			ErrComparisonUnavailable, describeOutput(c.OutputFailures))
		c.Unavailable = c.err.Error()
		return c
	}
	c.Available = true
	return c
}

// fixed returns the ids of baseFailures that passed in after, or nil
// (unknown) when one of them neither fails in after nor is listed in its
// cases and whole is false: a run whose cases were dropped (retention) or
// cut (the cases a run keeps) cannot tell a fixed test from one that did
// not run. whole tells that an id after does not list did not run;
// afterFailing are after's failing ids, known whole (see FailingIDs).
func fixed(baseFailures []Failure, after *Run, afterFailing map[string]bool, whole bool) []string {
	out := []string{}
	for _, f := range baseFailures {
		o, listed := after.Cases[f.ID]
		switch {
		case afterFailing[f.ID]:
		case !listed && !whole:
			return nil
		case o == OutcomePassed:
			out = append(out, f.ID)
		}
	}
	return out
}

// Err returns nil when the comparison is available, and otherwise an error
// wrapping ErrComparisonUnavailable with the reason.
func (c Comparison) Err() error {
	switch {
	case c.Available:
		return nil
	case c.err != nil:
		return c.err
	}
	return fmt.Errorf("%w: %s", ErrComparisonUnavailable, c.Unavailable)
}

// failuresOf lists r's failures whose ids are in set, sorted by id, with
// r's message when r.Failures holds it and the outcome from r.Cases
// otherwise.
func failuresOf(r *Run, set map[string]bool) []Failure {
	out := make([]Failure, 0, len(set))
	seen := make(map[string]bool, len(set))
	for _, f := range r.Failures {
		if set[f.ID] && !seen[f.ID] {
			seen[f.ID] = true
			out = append(out, f)
		}
	}
	flaky := make(map[string]bool, len(r.Flaky))
	for _, id := range r.Flaky {
		flaky[id] = true
	}
	for id := range set {
		if !seen[id] {
			out = append(out, Failure{ID: id, Outcome: r.Cases[id], Flaky: flaky[id]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

type jsonComparison struct {
	BaseID         *string         `json:"base_id"`
	AfterID        *string         `json:"after_id"`
	Available      bool            `json:"available"`
	Unavailable    *string         `json:"unavailable_reason"`
	NewFailures    []jsonFailure   `json:"new_failures"`
	BaseFailures   []jsonFailure   `json:"base_failures"`
	Fixed          []string        `json:"fixed"`
	Flaky          []FlakyMark     `json:"flaky"`
	CoverageDelta  *float64        `json:"coverage_delta"`
	OutputFailures []OutputFailure `json:"output_failures"`
}

// jsonFailure is a Failure whose unknown message is null.
type jsonFailure struct {
	ID      string  `json:"id"`
	Outcome Outcome `json:"outcome"`
	Message *string `json:"message"`
	Flaky   bool    `json:"flaky"`
	File    string  `json:"file,omitempty"`
	Line    int     `json:"line,omitempty"`
}

func jsonFailures(fs []Failure) []jsonFailure {
	if fs == nil {
		return nil
	}
	out := make([]jsonFailure, len(fs))
	for i, f := range fs {
		out[i] = jsonFailure{ID: f.ID, Outcome: f.Outcome, Message: strPtr(f.Message), Flaky: f.Flaky, File: f.File, Line: f.Line}
	}
	return out
}

// MarshalJSON writes the comparison's stable JSON form (see Comparison).
func (c Comparison) MarshalJSON() ([]byte, error) {
	j := jsonComparison{
		BaseID:         strPtr(c.BaseID),
		AfterID:        strPtr(c.AfterID),
		Available:      c.Available,
		Unavailable:    strPtr(c.Unavailable),
		NewFailures:    jsonFailures(c.NewFailures),
		BaseFailures:   jsonFailures(c.BaseFailures),
		Fixed:          c.Fixed,
		Flaky:          c.Flaky,
		CoverageDelta:  c.CoverageDelta,
		OutputFailures: c.OutputFailures,
	}
	if j.Flaky == nil {
		j.Flaky = []FlakyMark{}
	}
	return marshalNoEscape(j)
}

// marshalNoEscape encodes v keeping <, > and & readable: test ids hold
// them often.
func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// MarshalTestResults writes TEST-RESULTS.json of run and, when cmp is not
// nil, its comparison: TestResults' one form, the run's exact JSON form
// followed by the comparison's keys (its flaky marks as flaky_on_list,
// beside the run's own flaky ids).
//
// Deprecated: use TestResults{Run: run, Comparison: cmp}.MarshalJSON.
func MarshalTestResults(run *Run, cmp *Comparison) ([]byte, error) {
	return TestResults{Run: run, Comparison: cmp}.MarshalJSON()
}
