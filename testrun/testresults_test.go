package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resultsPair is a base and an after run with a new failure, a fixed test
// and a flaky one, and their comparison.
func resultsPair(t *testing.T) (*Run, *Comparison) {
	t.Helper()
	base := buildRun(t, exec("s", "a", OutcomeFailed, "was broken"), exec("s", "b", OutcomePassed, ""), exec("s", "f", OutcomePassed, ""))
	base.ID, base.Kind = "base-1", KindBase
	after := buildRun(t, exec("s", "a", OutcomePassed, ""), exec("s", "b", OutcomeFailed, "want 2, got 3"),
		exec("s", "f", OutcomeFailed, "once"), exec("s", "f", OutcomePassed, ""))
	after.ID, after.Kind = "after-1", KindAfterTurn
	require.Equal(t, []string{"f"}, after.Flaky)
	c := Compare(base, after, WithFlakyList([]string{"f"}), WithOutput(nil, []byte{}))
	require.True(t, c.Available, c.Unavailable)
	return after, &c
}

// TestTestResultsRunPartIsTheRun: with or without a comparison, the run's
// keys come first, in the run's order and with the run's bytes; the
// comparison's keys follow in one order.
func TestTestResultsRunPartIsTheRun(t *testing.T) {
	run, cmp := resultsPair(t)
	rb, err := run.MarshalJSON()
	require.NoError(t, err)

	alone, err := TestResults{Run: run}.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(rb), string(alone), "without a base the results are the run")

	with, err := TestResults{Run: run, Comparison: cmp}.MarshalJSON()
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(with, rb[:len(rb)-1]), "the run's bytes open the results:\n%s", with)
	assert.Equal(t, append(runKeys(), comparisonKeys...), topKeys(t, with))

	transient := true
	rerun, err := TestResults{Run: run, Comparison: cmp, RerunOf: &RerunLink{ID: "x", Dir: "d", Status: StatusFailure, Excused: []string{"f"}},
		Rerun: &RerunLink{ID: "y", Dir: "d-rerun", Status: StatusSuccess, Excused: []string{"f"}}, Transient: &transient}.MarshalJSON()
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(rerun, with[:len(with)-1]))
	assert.Equal(t, append(append(runKeys(), comparisonKeys...), "rerun_of", "rerun", "transient"), topKeys(t, rerun))
}

// runKeys are the run's top-level keys in the order MarshalJSON writes
// them, for a run without durations or not_run.
func runKeys() []string {
	var keys []string
	for _, f := range runSpec.fields {
		if !runSpec.optional[f] {
			keys = append(keys, f)
		}
	}
	return keys
}

func topKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var v json.RawMessage
		require.NoError(t, dec.Decode(&v))
	}
	return keys
}

// TestReadTestResults: what MarshalJSON writes reads back whole; a run
// alone reads as results without a comparison.
func TestReadTestResults(t *testing.T) {
	run, cmp := resultsPair(t)
	b, err := TestResults{Run: run, Comparison: cmp}.MarshalJSON()
	require.NoError(t, err)
	got, err := ReadTestResults(bytes.NewReader(b))
	require.NoError(t, err)
	assert.Equal(t, run, got.Run)
	require.NotNil(t, got.Comparison)
	want := *cmp
	want.err = nil
	assert.Equal(t, want, *got.Comparison)
	again, err := got.MarshalJSON()
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again))

	rb, err := run.MarshalJSON()
	require.NoError(t, err)
	got, err = ReadTestResults(bytes.NewReader(rb))
	require.NoError(t, err)
	assert.Equal(t, run, got.Run)
	assert.Nil(t, got.Comparison)
}

// TestReadTestResultsRefuses: the keys beside the run are read as strictly
// as the run's: unknown, twice, in another case, of the wrong type, in
// part, or contradicting the run, the file is refused; and the run part is
// still read as a run (a forged flag is refused).
func TestReadTestResultsRefuses(t *testing.T) {
	run, cmp := resultsPair(t)
	b, err := TestResults{Run: run, Comparison: cmp}.MarshalJSON()
	require.NoError(t, err)
	s := string(b)
	replace := func(old, new string) string {
		t.Helper()
		require.Contains(t, s, old)
		return strings.Replace(s, old, new, 1)
	}
	tests := []struct {
		name, data, want string
	}{
		{"unknown key", replace(`"base_id":`, `"verdict":"pass","base_id":`), `unknown field "verdict"`},
		{"the old flaky marks", replace(`"flaky_on_list":[{"id":"f","on_list":true}]`, `"flaky_on_list":[{"id":"f","on_list":true}],"flaky":[{"id":"f","on_list":true}]`), `"flaky" given twice`},
		{"a key twice", replace(`"fixed":["a"]`, `"fixed":["a"],"fixed":[]`), `"fixed" given twice`},
		{"a case variant", replace(`"available":true`, `"available":true,"Available":false`), "differs only in case"},
		{"wrong type", replace(`"available":true`, `"available":"yes"`), "want true or false"},
		{"a group in part", replace(`,"coverage_delta":null`, ``), "given together or not at all"},
		{"available with a reason", replace(`"unavailable_reason":null`, `"unavailable_reason":"no"`), "available is true"},
		{"a new failure the run does not have", replace(`"new_failures":[{"id":"b"`, `"new_failures":[{"id":"zz"`), `new failure "zz" does not fail`},
		{"flaky marks of other tests", replace(`"flaky_on_list":[{"id":"f"`, `"flaky_on_list":[{"id":"g"`), "flaky_on_list holds"},
		{"a forged trust flag", replace(`"trusted":true`, `"trusted":false`), "forged"},
		{"unknown key in a failure", s[:strings.LastIndex(s, `"flaky":false}`)] + `"flaky":false,"x":1}` + s[strings.LastIndex(s, `"flaky":false}`)+len(`"flaky":false}`):], `unknown field "base_failures[0].x"`},
		{"data after", s + "{}", "data after"},
		{"rerun without transient", replace(`"output_failures":[]`, `"output_failures":[],"rerun":{"id":"y","dir":"d","status":"success","exit_code":0,"excused":[]}`), "given together or not at all"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadTestResults(strings.NewReader(tt.data))
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidRun), "%v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestTestResultsMarshalRefuses: what no reader would take is not written.
func TestTestResultsMarshalRefuses(t *testing.T) {
	run, cmp := resultsPair(t)
	_, err := TestResults{}.MarshalJSON()
	assert.ErrorIs(t, err, ErrInvalidRun)
	other := *cmp
	other.AfterID = "someone-else"
	_, err = TestResults{Run: run, Comparison: &other}.MarshalJSON()
	assert.ErrorIs(t, err, ErrInvalidRun)
	tr := true
	_, err = TestResults{Run: run, Transient: &tr}.MarshalJSON()
	assert.ErrorIs(t, err, ErrInvalidRun)
}

// TestTestResultsKeysDisjoint: no key of the comparison or the rerun is
// one of the run's, so the run part is never shadowed.
func TestTestResultsKeysDisjoint(t *testing.T) {
	run := map[string]bool{}
	for _, f := range runSpec.fields {
		run[f] = true
	}
	for _, k := range append(append(comparisonKeys, rerunKeys...), "rerun_of") {
		assert.False(t, run[k], k)
		assert.Contains(t, testResultsSpec().fields, k)
	}
}

// FuzzReadTestResults: no input panics the reader, and what it accepts is
// written back in the one form, which it reads again to the same results.
func FuzzReadTestResults(f *testing.F) {
	run, cmp := resultsPair(&testing.T{})
	for _, tr := range []TestResults{{Run: run}, {Run: run, Comparison: cmp}} {
		b, err := tr.MarshalJSON()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id":"x","base_id":"y"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ReadTestResults(bytes.NewReader(data))
		if err != nil {
			if !errors.Is(err, ErrInvalidRun) {
				t.Fatalf("error does not wrap ErrInvalidRun: %v", err)
			}
			return
		}
		b, err := got.MarshalJSON()
		if err != nil {
			t.Fatalf("accepted results cannot be written: %v", err)
		}
		again, err := ReadTestResults(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("written results are refused: %v\n%s", err, b)
		}
		b2, err := again.MarshalJSON()
		if err != nil || !bytes.Equal(b, b2) {
			t.Fatalf("not stable: %v\n%s\n%s", err, b, b2)
		}
	})
}
