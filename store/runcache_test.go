package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// fullRun is a valid run with every field of Run set.
func fullRun(t *testing.T) *testrun.Run {
	t.Helper()
	r := run("full", "tree", testrun.KindAfterTurn, map[string]testrun.Outcome{"a": pass, "b": fail}, "a")
	code, tests, rate, covered, valid := 1, 2, 0.5, int64(1), int64(2)
	r.Grade, r.Command, r.Status, r.ExitCode = "", "go test ./...", testrun.StatusFailure, &code
	r.Commit, r.AgentRunID = "abc", "agent-1"
	r.StartedAt, r.EndedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), time.Date(2026, 1, 2, 3, 5, 5, 0, time.UTC)
	r.Complete, r.IncompleteReasons = false, []string{"r.xml: too large", testrun.NotRunReason(1)}
	r.NotRun = &testrun.NotRun{Count: 1, IDs: []string{"c"}}
	r.Coverage = &testrun.Coverage{LineRate: &rate, LinesCovered: &covered, LinesValid: &valid, Reason: "stated"}
	r.Reports = []testrun.ReportInfo{
		{Path: "r.xml", Dialect: "junit", Bytes: 10, SHA256: "ab", Tests: &tests},
		{Path: "old.xml", Error: "stale", Skipped: true},
	}
	require.NoError(t, r.Validate())
	v := reflect.ValueOf(*r)
	for i := range v.NumField() {
		switch v.Field(i).Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Map:
			require.False(t, v.Field(i).IsNil(), "the fixture sets %s: a new field of Run that refers to memory needs a line in cloneRun", v.Type().Field(i).Name)
		}
	}
	return r
}

// TestCloneRunIsDeep: the clone equals the run and shares no memory with
// it, down to every pointer, slice and map.
func TestCloneRunIsDeep(t *testing.T) {
	r := fullRun(t)
	c := cloneRun(r)
	require.Equal(t, r, c)
	var walk func(path string, a, b reflect.Value)
	walk = func(path string, a, b reflect.Value) {
		switch a.Kind() {
		case reflect.Pointer:
			if !a.IsNil() {
				assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s is shared", path)
				walk(path+".*", a.Elem(), b.Elem())
			}
		case reflect.Slice:
			if a.Len() > 0 {
				assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s is shared", path)
				for i := range a.Len() {
					walk(fmt.Sprintf("%s[%d]", path, i), a.Index(i), b.Index(i))
				}
			}
		case reflect.Map:
			if !a.IsNil() {
				assert.NotEqual(t, a.Pointer(), b.Pointer(), "%s is shared", path)
			}
		case reflect.Struct:
			if a.Type() == reflect.TypeOf(time.Time{}) {
				return
			}
			for i := range a.NumField() {
				walk(path+"."+a.Type().Field(i).Name, a.Field(i), b.Field(i))
			}
		}
	}
	walk("Run", reflect.ValueOf(r).Elem(), reflect.ValueOf(c).Elem())
}

func TestRunCache(t *testing.T) {
	r := fullRun(t)
	r.IncompleteReasons, r.NotRun = nil, nil
	r.Complete = true
	require.NoError(t, r.Validate())
	b, err := json.Marshal(r)
	require.NoError(t, err)
	form := string(b)

	c := newRunCache(4 * len(form))
	first, err := c.read(form)
	require.NoError(t, err)
	assert.Equal(t, r.ID, first.ID)
	first.Failures[0].Message = "changed by a caller"
	first.Counts.Failed = 99
	second, err := c.read(form)
	require.NoError(t, err)
	assert.NotEqual(t, "changed by a caller", second.Failures[0].Message, "callers cannot change the cache")
	assert.Equal(t, r.Counts, second.Counts)
	want, err := testrun.ReadRun(strings.NewReader(form))
	require.NoError(t, err)
	assert.Equal(t, want, second, "the cached run is what ReadRun gives")

	// Other bytes are other runs: never the cached one.
	other := strings.Replace(form, `"go test ./..."`, `"pytest -q"`, 1)
	o, err := c.read(other)
	require.NoError(t, err)
	assert.Equal(t, "pytest -q", o.Command)

	// A refused form is refused every time and not kept.
	bad := strings.Replace(form, `"trusted":true`, `"trusted":false`, 1)
	for range 2 {
		_, err = c.read(bad)
		assert.ErrorIs(t, err, testrun.ErrInvalidRun)
	}

	// Bounded: many forms keep at most max bytes.
	for i := range 20 {
		f := strings.Replace(form, `"id":"full"`, fmt.Sprintf(`"id":"full-%02d"`, i), 1)
		_, err := c.read(f)
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, c.size, c.max)
	assert.Len(t, c.byForm, c.order.Len())
	assert.LessOrEqual(t, len(c.byForm), 4)
}
