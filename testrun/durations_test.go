package testrun

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func timed(scope, id string, o Outcome, d time.Duration) Execution {
	return Execution{ID: id, Scope: scope, Outcome: o, Duration: d, Timed: true}
}

func TestBuilderDurations(t *testing.T) {
	tests := []struct {
		name  string
		execs []Execution
		want  map[string]time.Duration
	}{
		{
			name:  "one execution each",
			execs: []Execution{timed("s", "a", OutcomePassed, 1500*time.Millisecond), timed("s", "b", OutcomeFailed, 0)},
			want:  map[string]time.Duration{"a": 1500 * time.Millisecond, "b": 0},
		},
		{
			name:  "retries and configurations add up",
			execs: []Execution{timed("s", "a", OutcomeFailed, time.Second), timed("s", "a", OutcomePassed, 2*time.Second), timed("t", "a", OutcomePassed, 3*time.Second)},
			want:  map[string]time.Duration{"a": 6 * time.Second},
		},
		{
			name:  "an execution without a time makes the id's time unknown",
			execs: []Execution{timed("s", "a", OutcomeFailed, time.Second), exec("s", "a", OutcomePassed, ""), timed("s", "b", OutcomePassed, time.Second)},
			want:  map[string]time.Duration{"b": time.Second},
		},
		{
			name:  "no time at all is nil, not zero",
			execs: []Execution{exec("s", "a", OutcomePassed, "")},
		},
		{
			name:  "out of range is unknown",
			execs: []Execution{timed("s", "neg", OutcomePassed, -time.Second), timed("s", "long", OutcomePassed, MaxCaseDuration+time.Second), timed("s", "ok", OutcomePassed, MaxCaseDuration)},
			want:  map[string]time.Duration{"ok": MaxCaseDuration},
		},
		{
			name:  "a sum past the bound is unknown, never wrapped",
			execs: []Execution{timed("s", "a", OutcomePassed, MaxCaseDuration), timed("t", "a", OutcomePassed, MaxCaseDuration), timed("u", "a", OutcomePassed, MaxCaseDuration)},
		},
		{
			name:  "kept at microseconds",
			execs: []Execution{timed("s", "a", OutcomePassed, 1234567*time.Nanosecond)},
			want:  map[string]time.Duration{"a": 1235 * time.Microsecond},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder()
			b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(tt.execs))}, tt.execs, nil)
			r := b.Build()
			require.NoError(t, r.Validate())
			assert.Equal(t, tt.want, r.Durations)
		})
	}
}

// TestBuilderDurationsFollowKeptCases: durations are kept only for the ids
// Cases keeps, so the two stay bounded together.
func TestBuilderDurationsFollowKeptCases(t *testing.T) {
	b := NewBuilder(WithMaxCases(2))
	execs := []Execution{
		timed("s", "a", OutcomePassed, time.Second),
		timed("s", "b", OutcomeFailed, time.Second),
		timed("s", "c", OutcomePassed, time.Second),
	}
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(3)}, execs, nil)
	r := b.Build()
	require.Len(t, r.Cases, 2)
	require.Len(t, r.Durations, 2)
	for id := range r.Durations {
		assert.Contains(t, r.Cases, id)
	}
	assert.Contains(t, r.Durations, "b", "the failing id is kept first")
}

func TestRunJSONDurations(t *testing.T) {
	in := strings.Replace(validRunJSON, `"flaky":["t::a"]`, `"durations":{"t::a":0.000123,"t::b":2.5},"flaky":["t::a"]`, 1)
	var r Run
	require.NoError(t, json.Unmarshal([]byte(in), &r))
	assert.Equal(t, map[string]time.Duration{"t::a": 123 * time.Microsecond, "t::b": 2500 * time.Millisecond}, r.Durations)
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))

	// Without durations the field is left out, and older files read.
	r.Durations = nil
	out, err = json.Marshal(r)
	require.NoError(t, err)
	assert.NotContains(t, string(out), "durations")
	assert.JSONEq(t, validRunJSON, string(out))
}

// TestRunJSONDurationsRoundTrip: every value at DurationResolution reads
// back equal through the seconds of the JSON form.
func TestRunJSONDurationsRoundTrip(t *testing.T) {
	r := bigRun()
	r.Durations = map[string]time.Duration{}
	step := MaxCaseDuration / time.Duration(len(r.Cases)+1)
	i := time.Duration(0)
	for id := range r.Cases {
		i++
		r.Durations[id] = (i*step + i*7*time.Microsecond).Truncate(DurationResolution)
	}
	for id := range r.Cases {
		r.Durations[id] = MaxCaseDuration // the largest too
		break
	}
	require.NoError(t, r.Validate())
	b, err := json.Marshal(r)
	require.NoError(t, err)
	var back Run
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, r.Durations, back.Durations)
}

func TestRunJSONRefusesHostileDurations(t *testing.T) {
	tests := []struct {
		name, durations, want string
	}{
		{"null", `null`, `durations is null, want an object`},
		{"a list", `[1]`, `durations is a list, want an object`},
		{"a string value", `{"t::a":"1"}`, `durations["t::a"] is a string, want a number`},
		{"a null value", `{"t::a":null}`, `durations["t::a"] is null`},
		{"negative", `{"t::a":-1}`, `duration of "t::a" is -1s, want 0 to 168h0m0s`},
		{"past the bound", `{"t::a":604801}`, `duration of "t::a"`},
		{"huge", `{"t::a":1e300}`, `duration of "t::a"`},
		{"beyond float64", `{"t::a":1e400}`, `invalid run`},
		{"an id not in cases", `{"t::z":1}`, `duration of "t::z", which is not in cases`},
		{"duplicate id", `{"t::a":1,"t::a":2}`, `key durations["t::a"] given twice`},
		{"case variant of the field", ``, `differs only in case from "durations"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			field := `"durations":` + tt.durations
			if tt.durations == "" {
				field = `"Durations":{"t::a":1}`
			}
			in := strings.Replace(validRunJSON, `"flaky":["t::a"]`, field+`,"flaky":["t::a"]`, 1)
			var r Run
			err := json.Unmarshal([]byte(in), &r)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidRun)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	// Durations without any case contradict the run.
	r := Run{Durations: map[string]time.Duration{"a": time.Second}}
	assert.ErrorContains(t, r.Validate(), "durations are given without cases")
}
