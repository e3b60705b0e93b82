package testrun

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The comparison in TEST-RESULTS.json carries each new failure's file and
// line (what a CI annotation points at) and reads them back; a location
// that is not one is refused there as in the run.
func TestTestResultsFailureLocation(t *testing.T) {
	base := buildRun(t, exec("s", "b", OutcomePassed, ""))
	base.ID, base.Kind = "base-1", KindBase
	failing := exec("s", "b", OutcomeFailed, "want 2, got 3")
	failing.File, failing.Line = "tests/test_b.py", 12
	after := buildRun(t, failing)
	after.ID, after.Kind = "after-1", KindAfterTurn
	c := Compare(base, after)
	require.True(t, c.Available, c.Unavailable)
	require.Len(t, c.NewFailures, 1)
	assert.Equal(t, "tests/test_b.py", c.NewFailures[0].File)
	assert.Equal(t, 12, c.NewFailures[0].Line)

	b, err := TestResults{Run: after, Comparison: &c}.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(b), `"new_failures":[{"id":"b","outcome":"failed","message":"want 2, got 3","flaky":false,"file":"tests/test_b.py","line":12}]`)
	got, err := ReadTestResults(bytes.NewReader(b))
	require.NoError(t, err)
	require.NotNil(t, got.Comparison)
	assert.Equal(t, c.NewFailures, got.Comparison.NewFailures)

	for name, forged := range map[string]string{
		"control character": strings.Replace(string(b), `"file":"tests/test_b.py"`, `"file":"tests/\u001b[2Jb.py"`, 1),
		"negative line":     strings.Replace(string(b), `"line":12}]`, `"line":-1}]`, 1),
		"line not a number": strings.Replace(string(b), `"line":12}]`, `"line":"12"}]`, 1),
	} {
		t.Run(name, func(t *testing.T) {
			require.NotEqual(t, string(b), forged)
			_, err := ReadTestResults(strings.NewReader(forged))
			assert.Error(t, err)
		})
	}
}
