package testrun

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fullRun is a run with every field of its JSON form set, optional ones
// included.
func fullRun() *Run {
	code, n := 1, 2
	lr, lc, lv := 0.5, int64(1), int64(2)
	return &Run{
		ID: "run-1", Kind: KindAfterTurn, Grade: GradeIsolated, Command: "pytest", Status: StatusFailure, ExitCode: &code,
		Commit: "c", Tree: "t", AgentRunID: "a",
		StartedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), EndedAt: time.Date(2026, 1, 2, 3, 5, 5, 0, time.UTC),
		Counts:            &Counts{Total: 2, Passed: 1, Failed: 1},
		Complete:          false,
		IncompleteReasons: []string{"why"},
		Failures:          []Failure{{ID: "t::b", Outcome: OutcomeFailed, Message: "m"}},
		Cases:             map[string]Outcome{"t::a": OutcomePassed, "t::b": OutcomeFailed},
		Durations:         map[string]time.Duration{"t::a": time.Second},
		Flaky:             []string{},
		NotRun:            &NotRun{Count: 1, IDs: []string{"t::c"}},
		Coverage:          &Coverage{LineRate: &lr, LinesCovered: &lc, LinesValid: &lv, Reason: "r"},
		Reports:           []ReportInfo{{Path: "r.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: &n, Error: "e", Skipped: true}},
	}
}

// TestRunFormIsTheEncoding checks, from what MarshalJSON actually writes,
// that the walker's description (runSpec, read off jsonRun) is the
// encoding: every key the encoder writes is described, in the order it is
// written; a key the encoder may leave out is the only kind the walker lets
// be absent; and null is accepted exactly where the description allows it.
// A field added to the form with a type or tag that does not match how it
// is encoded fails here.
func TestRunFormIsTheEncoding(t *testing.T) {
	full, err := fullRun().MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, checkJSON(full))
	assert.Equal(t, runSpec.fields, objectKeys(t, full), "every described key is written, in order")

	bare, err := NewBuilder().Build().MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, checkJSON(bare))
	var required []string
	for _, f := range runSpec.fields {
		if !runSpec.optional[f] {
			required = append(required, f)
		}
	}
	assert.Equal(t, required, objectKeys(t, bare), "only optional keys are left out")

	// Each object of the form, with a path into fullRun's encoding.
	for _, obj := range []struct {
		path []string
		spec *spec
	}{
		{nil, runSpec},
		{[]string{"counts"}, runSpec.specs["counts"]},
		{[]string{"coverage"}, runSpec.specs["coverage"]},
		{[]string{"failures", "0"}, runSpec.specs["failures"].elem},
		{[]string{"reports", "0"}, runSpec.specs["reports"].elem},
	} {
		for _, f := range obj.spec.fields {
			where := strings.Join(append(append([]string{}, obj.path...), f), ".")
			err := checkJSON(edit(t, full, obj.path, func(m map[string]any) { delete(m, f) }))
			if obj.spec.optional[f] {
				assert.NoError(t, err, "%s may be absent", where)
			} else {
				assert.ErrorIs(t, err, ErrInvalidRun, "%s may not be absent", where)
			}
			err = checkJSON(edit(t, full, obj.path, func(m map[string]any) { m[f] = nil }))
			if obj.spec.specs[f].null {
				assert.NoError(t, err, "%s may be null", where)
			} else {
				assert.ErrorIs(t, err, ErrInvalidRun, "%s may not be null", where)
			}
		}
		err := checkJSON(edit(t, full, obj.path, func(m map[string]any) { m["extra"] = 1 }))
		assert.ErrorIs(t, err, ErrInvalidRun, "no key beyond the form in %v", obj.path)
	}
}

// edit decodes data, changes the object at path and encodes it again.
func edit(t *testing.T, data []byte, path []string, change func(map[string]any)) []byte {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var root any
	require.NoError(t, dec.Decode(&root))
	v := root
	for _, p := range path {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			v = c[0]
		}
	}
	change(v.(map[string]any))
	out, err := json.Marshal(root)
	require.NoError(t, err)
	return out
}

func objectKeys(t *testing.T, data []byte) []string {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	_, err := dec.Token()
	require.NoError(t, err)
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		require.NoError(t, err)
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		require.NoError(t, dec.Decode(&skip))
	}
	return keys
}

// TestCheckDuplicateKeysWalksAnyValue: the run's walker, given any value,
// refuses a key twice or a case variant at any depth, and nesting beyond
// maxJSONDepth, with plain errors naming the path.
func TestCheckDuplicateKeysWalksAnyValue(t *testing.T) {
	for doc, want := range map[string]string{
		`{"a": 1, "a": 2}`:                    `key "a" given twice`,
		`{"a": [{"b": 1}, {"b": 1, "b": 2}]}`: `key "a[1].b" given twice`,
		`{"x": {"Key": 1, "key": 2}}`:         `keys "Key" and "key" differ only in case`,
		`{"a": 1} {}`:                         `data after the top-level value`,
		strings.Repeat("[", maxJSONDepth+1) + strings.Repeat("]", maxJSONDepth+1): "nested deeper than 64",
		`{"a": `: "unexpected EOF",
	} {
		err := checkDuplicateKeys([]byte(doc))
		if assert.Error(t, err, doc) {
			assert.Contains(t, err.Error(), want, doc)
			assert.NotErrorIs(t, err, ErrInvalidRun, "the caller wraps it in its own")
		}
	}
	for _, doc := range []string{`{"a": [1, "x", null, {"b": {"c": true}}], "A1": 2}`, `[]`, `3`, strings.Repeat("[", maxJSONDepth) + strings.Repeat("]", maxJSONDepth)} {
		assert.NoError(t, checkDuplicateKeys([]byte(doc)), doc)
	}
}
