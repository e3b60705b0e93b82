package testrun

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// locationReports are two reports of one run: a retried case whose first
// attempt names no file, a case whose file is not valid, then a later
// report that names other places for every case.
func locationReports() []feedReport {
	long := strings.Repeat("a", MaxFileBytes+1)
	return []feedReport{
		{info: ReportInfo{Path: "a.xml", Tests: ntests(4)}, execs: []Execution{
			{ID: "t::retried", Scope: "a#1", Outcome: OutcomeFailed, Message: "m"},
			{ID: "t::retried", Scope: "a#1", Outcome: OutcomeFailed, Message: "m", File: "tests/t.py", Line: 12},
			{ID: "t::long", Scope: "a#1", Outcome: OutcomeFailed, File: long, Line: 3},
			{ID: "t::bad", Scope: "a#1", Outcome: OutcomeError, File: "t\x00.py", Line: 4},
			{ID: "t::unknown-line", Scope: "a#1", Outcome: OutcomeFailed, File: "u.py", Line: -5},
		}},
		{info: ReportInfo{Path: "b.xml", Tests: ntests(4)}, execs: []Execution{
			{ID: "t::retried", Scope: "b#1", Outcome: OutcomeFailed, File: "other.py", Line: 1},
			{ID: "t::long", Scope: "b#1", Outcome: OutcomeFailed, File: "long.py", Line: 30},
			{ID: "t::bad", Scope: "b#1", Outcome: OutcomeError, File: "\xff.py", Line: 40},
			{ID: "t::new", Scope: "b#1", Outcome: OutcomeFailed, File: "new.py", Line: 7},
		}},
	}
}

// TestBuilderKeepsTheFirstValidLocation: a failure carries the first valid
// file any execution of its id names, with that execution's line, whether
// the reports are added whole or fed; an invalid file (too long, a control
// character, not UTF-8) is passed over, and a line below 1 is unknown.
func TestBuilderKeepsTheFirstValidLocation(t *testing.T) {
	want := map[string][2]any{
		"t::retried":      {"tests/t.py", 12},
		"t::long":         {"long.py", 30},
		"t::bad":          {"", 0},
		"t::unknown-line": {"u.py", 0},
		"t::new":          {"new.py", 7},
	}
	for _, feed := range []bool{false, true} {
		b := NewBuilder()
		for _, rep := range locationReports() {
			if feed {
				f := b.Feed()
				f.Add(slices.Values(ptrs(rep.execs)))
				f.End(rep.info, nil)
			} else {
				b.AddReport(rep.info, rep.execs, nil)
			}
		}
		r := b.Build()
		require.NoError(t, r.Validate())
		got := map[string][2]any{}
		for _, f := range r.Failures {
			got[f.ID] = [2]any{f.File, f.Line}
		}
		assert.Equal(t, want, got, "fed: %v", feed)
	}
}

// failingRun is a valid run with one failure, t::b, which names no file.
func failingRun() *Run {
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(2)}, []Execution{
		{ID: "t::a", Scope: "r#1", Outcome: OutcomePassed},
		{ID: "t::b", Scope: "r#1", Outcome: OutcomeFailed, Message: "m"},
	}, nil)
	return b.Build()
}

func ptrs(execs []Execution) []*Execution {
	out := make([]*Execution, len(execs))
	for i := range execs {
		out[i] = &execs[i]
	}
	return out
}

// TestFailureLocationForm: a failure's file and line are optional keys of
// the run's JSON form, written only when known, of their own type, never
// null; read back they are the same.
func TestFailureLocationForm(t *testing.T) {
	run := failingRun()
	run.Failures[0].File, run.Failures[0].Line = "tests/t.py", 12
	data, err := run.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, checkJSON(data))
	assert.Contains(t, string(data), `"message":"m","flaky":false,"file":"tests/t.py","line":12}`)
	back, err := ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, run.Failures, back.Failures)

	bare, err := failingRun().MarshalJSON()
	require.NoError(t, err)
	assert.NotContains(t, string(bare), `"file"`, "no file, no key")
	assert.NotContains(t, string(bare), `"line"`)

	for name, bad := range map[string]any{"file": nil, "line": nil} {
		err := checkJSON(edit(t, data, []string{"failures", "0"}, func(m map[string]any) { m[name] = bad }))
		assert.ErrorIs(t, err, ErrInvalidRun, "%s may not be null", name)
	}
	for _, bad := range []struct {
		name  string
		value any
	}{{"file", 3}, {"line", "12"}, {"line", 1.5}} {
		err := checkJSON(edit(t, data, []string{"failures", "0"}, func(m map[string]any) { m[bad.name] = bad.value }))
		assert.ErrorIs(t, err, ErrInvalidRun, "%s = %v has the wrong type", bad.name, bad.value)
	}
}

// TestValidateRefusesAFailureLocationOutOfBounds: a failure's file is at
// most MaxFileBytes of UTF-8 without control characters, and its line is
// not negative.
func TestValidateRefusesAFailureLocationOutOfBounds(t *testing.T) {
	for name, f := range map[string]Failure{
		"too long":     {File: strings.Repeat("a", MaxFileBytes+1)},
		"not UTF-8":    {File: "\xff.py"},
		"a newline":    {File: "a\nb.py"},
		"an escape":    {File: "a\x1b[31m.py"},
		"a C1 control": {File: "a\u0085.py"},
		"line":         {File: "a.py", Line: -1},
	} {
		t.Run(name, func(t *testing.T) {
			run := failingRun()
			run.Failures[0].File, run.Failures[0].Line = f.File, f.Line
			assert.ErrorIs(t, run.Validate(), ErrInvalidRun)
			if !utf8.ValidString(f.File) {
				return // JSON cannot carry it: the encoder writes U+FFFD
			}
			data, err := run.MarshalJSON()
			if err == nil {
				_, err = ReadRun(strings.NewReader(string(data)))
			}
			assert.ErrorIs(t, err, ErrInvalidRun, "the JSON form refuses it too")
		})
	}
	run := failingRun()
	run.Failures[0].File, run.Failures[0].Line = strings.Repeat("é", MaxFileBytes/2), 0
	assert.NoError(t, run.Validate(), "%d bytes of UTF-8 and an unknown line are valid", MaxFileBytes)
}
