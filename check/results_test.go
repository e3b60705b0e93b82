package check

import (
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func resultsRuns(t *testing.T) (base, after *testrun.Run) {
	t.Helper()
	build := func(id string, kind testrun.Kind, outcomes ...testrun.Outcome) *testrun.Run {
		b := testrun.NewBuilder()
		var execs []testrun.Execution
		for i, o := range outcomes {
			msg := ""
			if o.Failing() {
				msg = "broke"
			}
			execs = append(execs, testrun.Execution{ID: string(rune('a' + i)), Scope: "s", Outcome: o, Message: msg})
		}
		n := len(execs)
		b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, execs, nil)
		r := b.Build()
		r.ID, r.Kind = id, kind
		return r
	}
	return build("base", testrun.KindBase, testrun.OutcomeFailed, testrun.OutcomePassed),
		build("after", testrun.KindAfterTurn, testrun.OutcomePassed, testrun.OutcomeFailed)
}

// TestWriteTestResultsRunPartSameWithOrWithoutBase: TEST-RESULTS.json of a
// run opens with the same bytes whether or not it holds a comparison, in
// the run's key order; run.json beside it is the run alone; every reader of
// runs reads both.
func TestWriteTestResultsRunPartSameWithOrWithoutBase(t *testing.T) {
	base, after := resultsRuns(t)
	alone := t.TempDir()
	_, err := WriteResults(alone, after)
	require.NoError(t, err)
	plain, err := os.ReadFile(filepath.Join(alone, ResultsFile))
	require.NoError(t, err)
	assert.NoFileExists(t, filepath.Join(alone, RunFile), "nothing beside the run: no run.json")

	with := t.TempDir()
	cmp := testrun.Compare(base, after)
	_, err = WriteTestResults(with, testrun.TestResults{Run: after, Comparison: &cmp})
	require.NoError(t, err)
	full, err := os.ReadFile(filepath.Join(with, ResultsFile))
	require.NoError(t, err)
	runJSON, err := os.ReadFile(filepath.Join(with, RunFile))
	require.NoError(t, err)
	assert.Equal(t, string(plain), string(runJSON))
	runPart := strings.TrimSuffix(string(plain), "\n}\n")
	require.True(t, strings.HasPrefix(string(full), runPart+",\n  \"base_id\": \"base\",\n  \"available\": true,"), "%s", full)

	got, err := testrun.ReadTestResults(bytes.NewReader(full))
	require.NoError(t, err)
	assert.Equal(t, after, got.Run)
	require.NotNil(t, got.Comparison)
	assert.Equal(t, []string{"b"}, []string{got.Comparison.NewFailures[0].ID})
}

// TestWriteResultsJSONWritesTheOneForm: the older writer's merged object
// (keys sorted, the comparison's flaky marks in place of the run's ids) is
// written in TestResults' one form, which the strict reader takes.
func TestWriteResultsJSONWritesTheOneForm(t *testing.T) {
	base, after := resultsRuns(t)
	cmp := testrun.Compare(base, after, testrun.WithFlakyList(nil))
	want := t.TempDir()
	_, err := WriteTestResults(want, testrun.TestResults{Run: after, Comparison: &cmp})
	require.NoError(t, err)
	wb, err := os.ReadFile(filepath.Join(want, ResultsFile))
	require.NoError(t, err)

	// The older writer: the run's and the comparison's objects merged as
	// maps, keys sorted, the comparison's flaky marks over the run's ids.
	var fields, cfields map[string]json.RawMessage
	rb, err := after.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(rb, &fields))
	cb, err := cmp.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(cb, &cfields))
	delete(cfields, "after_id")
	maps.Copy(fields, cfields)
	legacy, err := json.Marshal(fields)
	require.NoError(t, err)

	for name, in := range map[string][]byte{"older writer": legacy, "one form": wb} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			_, err = WriteResultsJSON(dir, after, in)
			require.NoError(t, err)
			got, err := os.ReadFile(filepath.Join(dir, ResultsFile))
			require.NoError(t, err)
			assert.Equal(t, string(wb), string(got))
			_, err = testrun.ReadTestResults(bytes.NewReader(got))
			require.NoError(t, err)
		})
	}
}
