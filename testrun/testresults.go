package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"unicode/utf8"
)

// TestResults is what TEST-RESULTS.json holds: a run, its comparison with a
// base run when one was given, and how a rerun of the check names the other
// run when there was one. It is one type for the writer (check) and for
// every reader of runs (diff, packet, export, verdict, flaky record), so a
// TEST-RESULTS.json is read wherever a run is.
//
// Its JSON form is the run's exact JSON form (Run.MarshalJSON), key for key
// and byte for byte, followed by the comparison's keys and then the rerun's:
//
//	base_id             the base run's id
//	available           true only when new_failures is the exact answer
//	unavailable_reason  why it is not (null when available)
//	new_failures        failing here and not in the base, with messages;
//	                    null when unavailable
//	base_failures       the base's own failures; null when not known whole
//	fixed               failing in the base, passed here; null when unavailable
//	flaky_on_list       the run's flaky ids, each with on_list (null without
//	                    a flaky list)
//	coverage_delta      this run's line rate minus the base's; null unless both
//	                    are known
//	output_failures     failing tests the check's output names that the
//	                    reports do not explain; null when no output was read
//	rerun_of            (a rerun) the run it reran
//	rerun, transient    (a run that was rerun) the rerun, and whether the
//	                    rerun passed
//
// The run's own flaky (a list of ids) stays the run's: the comparison's
// marks are flaky_on_list. The comparison's keys are there together or not
// at all; so are rerun and transient.
type TestResults struct {
	Run *Run
	// Comparison is the comparison with the base run, nil without one. Its
	// AfterID is Run's id.
	Comparison *Comparison
	// RerunOf is set on a rerun: the run it reran.
	RerunOf *RerunLink
	// Rerun and Transient are set on a run that was rerun: the rerun, and
	// whether the rerun passed (the first run was then transient).
	Rerun     *RerunLink
	Transient *bool
}

// RerunLink is how TEST-RESULTS.json of a run and of its rerun name each
// other.
type RerunLink struct {
	ID       string `json:"id"`
	Dir      string `json:"dir"`
	Status   Status `json:"status"`
	ExitCode *int   `json:"exit_code"`
	// Excused are the failures of the first run that the flaky list
	// excused, which made the rerun.
	Excused []string `json:"excused"`
}

// testResultsTail holds the keys TEST-RESULTS.json adds after the run's.
// Its nil embedded parts are left out when written.
type testResultsTail struct {
	*jsonResultsComparison
	RerunOf *RerunLink `json:"rerun_of,omitempty"`
	*jsonResultsRerun
}

type jsonResultsComparison struct {
	BaseID         *string         `json:"base_id"`
	Available      bool            `json:"available"`
	Unavailable    *string         `json:"unavailable_reason"`
	NewFailures    []jsonFailure   `json:"new_failures"`
	BaseFailures   []jsonFailure   `json:"base_failures"`
	Fixed          []string        `json:"fixed"`
	FlakyOnList    []FlakyMark     `json:"flaky_on_list"`
	CoverageDelta  *float64        `json:"coverage_delta"`
	OutputFailures []OutputFailure `json:"output_failures"`
}

type jsonResultsRerun struct {
	Rerun     *RerunLink `json:"rerun"`
	Transient bool       `json:"transient"`
}

// comparisonKeys and rerunKeys are the keys of the two groups, each there
// whole or not at all.
var (
	comparisonKeys = []string{"base_id", "available", "unavailable_reason", "new_failures", "base_failures",
		"fixed", "flaky_on_list", "coverage_delta", "output_failures"}
	rerunKeys = []string{"rerun", "transient"}
)

// testResultsSpec is the exact JSON form of TestResults: the run's fields,
// then the comparison's and the rerun's, all of them optional here; the
// groups are checked whole after the walk. It is built at first use.
var testResultsSpec = sync.OnceValue(func() *spec {
	failureList := &spec{kind: kindArray, null: true, elem: object(false,
		"id", jsonString, "outcome", jsonString, "message", jsonNullString, "flaky", jsonBool,
		"file?", jsonString, "line?", &spec{kind: kindInt})}
	rerunLink := object(false,
		"id", jsonString,
		"dir", jsonString,
		"status", jsonString,
		"exit_code", jsonNullInt,
		"excused", &spec{kind: kindArray, null: true, elem: jsonString},
	)
	s := object(false,
		"base_id?", jsonString,
		"available?", jsonBool,
		"unavailable_reason?", jsonNullString,
		"new_failures?", failureList,
		"base_failures?", failureList,
		"fixed?", &spec{kind: kindArray, null: true, elem: jsonString},
		"flaky_on_list?", &spec{kind: kindArray, elem: object(false, "id", jsonString, "on_list", &spec{kind: kindBool, null: true})},
		"coverage_delta?", jsonNullNumber,
		"output_failures?", &spec{kind: kindArray, null: true, elem: object(false, "id", jsonString, "runner", jsonString, "line", jsonString)},
		"rerun_of?", rerunLink,
		"rerun?", rerunLink,
		"transient?", jsonBool,
	)
	all := &spec{kind: kindObject, specs: map[string]*spec{}, optional: map[string]bool{}}
	for _, part := range []*spec{runSpec, s} {
		for _, name := range part.fields {
			all.fields = append(all.fields, name)
			all.specs[name] = part.specs[name]
			all.optional[name] = part.optional[name]
		}
	}
	return all
})

// MarshalJSON writes the JSON form of TestResults (see TestResults): the
// run's bytes exactly as Run.MarshalJSON writes them, then the other keys.
func (t TestResults) MarshalJSON() ([]byte, error) {
	if t.Run == nil {
		return nil, fmt.Errorf("%w: no run", ErrInvalidRun)
	}
	if (t.Rerun == nil) != (t.Transient == nil) {
		return nil, fmt.Errorf("%w: rerun and transient are given together or not at all", ErrInvalidRun)
	}
	rb, err := t.Run.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var tail testResultsTail
	if c := t.Comparison; c != nil {
		if c.BaseID == "" {
			return nil, fmt.Errorf("%w: the comparison names no base run", ErrInvalidRun)
		}
		if c.AfterID != "" && c.AfterID != t.Run.ID {
			return nil, fmt.Errorf("%w: the comparison is of run %q, not of %q", ErrInvalidRun, c.AfterID, t.Run.ID)
		}
		tail.jsonResultsComparison = &jsonResultsComparison{
			BaseID:         strPtr(c.BaseID),
			Available:      c.Available,
			Unavailable:    strPtr(c.Unavailable),
			NewFailures:    jsonFailures(c.NewFailures),
			BaseFailures:   jsonFailures(c.BaseFailures),
			Fixed:          c.Fixed,
			FlakyOnList:    nonNil(c.Flaky),
			CoverageDelta:  c.CoverageDelta,
			OutputFailures: c.OutputFailures,
		}
	}
	tail.RerunOf = t.RerunOf
	if t.Rerun != nil {
		tail.jsonResultsRerun = &jsonResultsRerun{Rerun: t.Rerun, Transient: *t.Transient}
	}
	tb, err := marshalNoEscape(tail)
	if err != nil {
		return nil, err
	}
	if string(tb) == "{}" {
		return rb, nil
	}
	// Two objects with disjoint keys (testResultsSpec holds both sets, and
	// a key in both would make it refuse every file) become one: the run's
	// keys first, in the run's order, then the tail's in its struct order.
	out := make([]byte, 0, len(rb)+len(tb))
	out = append(out, rb[:len(rb)-1]...)
	out = append(out, ',')
	out = append(out, tb[1:]...)
	return out, nil
}

// ReadTestResults reads a TEST-RESULTS.json from r, or a run's JSON form
// alone (a TEST-RESULTS.json without a base), at most MaxJSONBytes. The run
// is read exactly as strictly as ReadRun reads one; the keys beside it must
// be TestResults' own, each given once, spelled exactly and of its type,
// in whole groups, and they must agree with the run (the comparison is of
// this run: its flaky_on_list holds the run's flaky ids, its new failures
// fail in it, an available comparison has its lists and no reason). Every
// refusal wraps ErrInvalidRun.
func ReadTestResults(r io.Reader) (*TestResults, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("testrun: read results: %w", err)
	}
	var t TestResults
	if err := t.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return &t, nil
}

// UnmarshalJSON reads the JSON form of TestResults as ReadTestResults does.
func (t *TestResults) UnmarshalJSON(data []byte) error {
	if len(data) > MaxJSONBytes {
		return invalidf("larger than %d MiB", MaxJSONBytes>>20)
	}
	if !utf8.Valid(data) {
		return invalidf("not valid UTF-8")
	}
	seen, err := walkTestResults(data)
	if err != nil {
		return err
	}
	if err := wholeGroup(seen, comparisonKeys); err != nil {
		return err
	}
	if err := wholeGroup(seen, rerunKeys); err != nil {
		return err
	}
	var j struct {
		jsonRun
		jsonResultsComparison
		RerunOf *RerunLink `json:"rerun_of"`
		jsonResultsRerun
	}
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRun, err)
	}
	// The run part is read by the run's own reader, from its own form: the
	// walk above refused every key that is neither the run's nor ours, so
	// what jsonRun holds is all the file said of the run.
	rb, err := marshalNoEscape(j.jsonRun)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidRun, err)
	}
	var run Run
	if err := run.UnmarshalJSON(rb); err != nil {
		return err
	}
	out := TestResults{Run: &run, RerunOf: j.RerunOf}
	if seen["rerun"] {
		out.Rerun, out.Transient = j.Rerun, &j.Transient
	}
	if seen["base_id"] {
		c, err := comparisonOf(&run, &j.jsonResultsComparison)
		if err != nil {
			return err
		}
		out.Comparison = c
	}
	*t = out
	return nil
}

// walkTestResults checks data against testResultsSpec and returns the
// top-level keys of the two groups that it holds.
func walkTestResults(data []byte) (map[string]bool, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := &checker{dec: dec}
	if err := c.value(testResultsSpec()); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, invalidf("data after the results' object")
	}
	// The walk has refused duplicates, case variants and unknown keys; a
	// key that is there holds a value (null too), one that is not holds
	// nothing.
	var p struct {
		BaseID         json.RawMessage `json:"base_id"`
		Available      json.RawMessage `json:"available"`
		Unavailable    json.RawMessage `json:"unavailable_reason"`
		NewFailures    json.RawMessage `json:"new_failures"`
		BaseFailures   json.RawMessage `json:"base_failures"`
		Fixed          json.RawMessage `json:"fixed"`
		FlakyOnList    json.RawMessage `json:"flaky_on_list"`
		CoverageDelta  json.RawMessage `json:"coverage_delta"`
		OutputFailures json.RawMessage `json:"output_failures"`
		Rerun          json.RawMessage `json:"rerun"`
		Transient      json.RawMessage `json:"transient"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidRun, err)
	}
	values := []json.RawMessage{p.BaseID, p.Available, p.Unavailable, p.NewFailures, p.BaseFailures,
		p.Fixed, p.FlakyOnList, p.CoverageDelta, p.OutputFailures, p.Rerun, p.Transient}
	seen := make(map[string]bool, len(values))
	for i, k := range append(slices.Clone(comparisonKeys), rerunKeys...) {
		seen[k] = values[i] != nil
	}
	return seen, nil
}

// comparisonOf rebuilds the comparison of run from its JSON form and
// refuses one that contradicts itself or the run.
func comparisonOf(run *Run, j *jsonResultsComparison) (*Comparison, error) {
	c := &Comparison{
		BaseID:         strVal(j.BaseID),
		AfterID:        run.ID,
		Available:      j.Available,
		Unavailable:    strVal(j.Unavailable),
		NewFailures:    failuresFromJSON(j.NewFailures),
		BaseFailures:   failuresFromJSON(j.BaseFailures),
		Fixed:          j.Fixed,
		Flaky:          j.FlakyOnList,
		CoverageDelta:  j.CoverageDelta,
		OutputFailures: j.OutputFailures,
	}
	switch {
	case c.BaseID == "":
		return nil, invalidf("base_id is empty")
	case c.Available && (j.Unavailable != nil || j.NewFailures == nil || j.Fixed == nil):
		return nil, invalidf("available is true but unavailable_reason is given or new_failures or fixed is null")
	case !c.Available && (j.Unavailable == nil || j.NewFailures != nil || j.Fixed != nil):
		return nil, invalidf("available is false but unavailable_reason is null or new_failures or fixed is given")
	}
	for _, f := range slices.Concat(c.NewFailures, c.BaseFailures) {
		if !ValidFile(f.File) || f.Line < 0 {
			return nil, invalidf("failure %q: file or line is not a location", f.ID)
		}
	}
	var marks []string
	for _, m := range c.Flaky {
		marks = append(marks, m.ID)
	}
	ids := slices.Clone(run.Flaky)
	slices.Sort(ids)
	if !slices.Equal(marks, ids) {
		return nil, invalidf("flaky_on_list holds %q but the run's flaky tests are %q", marks, ids)
	}
	if len(c.NewFailures) > 0 {
		failing, err := FailingIDs(run)
		if err != nil {
			return nil, invalidf("new_failures given but the run's failing ids are not known whole")
		}
		for _, f := range c.NewFailures {
			if !failing[f.ID] {
				return nil, invalidf("new failure %q does not fail in run %q", f.ID, run.ID)
			}
		}
	}
	return c, nil
}

func failuresFromJSON(fs []jsonFailure) []Failure {
	if fs == nil {
		return nil
	}
	out := make([]Failure, len(fs))
	for i, f := range fs {
		out[i] = Failure{ID: f.ID, Outcome: f.Outcome, Message: strVal(f.Message), Flaky: f.Flaky, File: f.File, Line: f.Line}
	}
	return out
}

// wholeGroup refuses a group of keys given in part.
func wholeGroup(seen map[string]bool, keys []string) error {
	var have, missing []string
	for _, k := range keys {
		if seen[k] {
			have = append(have, k)
		} else {
			missing = append(missing, k)
		}
	}
	if len(have) > 0 && len(missing) > 0 {
		return invalidf("%q without %q: these keys are given together or not at all", have, missing)
	}
	return nil
}
