package testrun

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuarantineListing: a listed entry is the entry's keys and expired,
// judged at the listing's time; an empty listing is [] in JSON.
func TestQuarantineListing(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	live := QuarantineEntry{Repository: "acme/api", TestID: `pkg::T<"a">`, Owner: "ana", Reason: "r", Created: now.Add(-time.Hour), Expires: now.Add(time.Hour)}
	gone := live
	gone.TestID, gone.Expires = "pkg::Old", now
	got := QuarantineListing([]QuarantineEntry{live, gone}, now)
	require.Len(t, got, 2)
	assert.False(t, got[0].Expired)
	assert.True(t, got[1].Expired, "an entry stops counting at its expiry")
	data, err := json.Marshal(got[0])
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(data, &keys))
	assert.ElementsMatch(t, []string{"repository", "environment", "test_id", "owner", "reason", "created", "expires", "expired"}, slices.Collect(maps.Keys(keys)))
	assert.Equal(t, `pkg::T<"a">`, keys["test_id"], "the id as given, escaped by JSON")
	empty, err := json.Marshal(QuarantineListing(nil, now))
	require.NoError(t, err)
	assert.Equal(t, "[]", string(empty))
}

// TestQuarantineRequestKeys: the request's keys are a listed entry's keys
// but created and expired, so the two forms cannot drift apart.
func TestQuarantineRequestKeys(t *testing.T) {
	listed, err := json.Marshal(ListedQuarantine{})
	require.NoError(t, err)
	var keys map[string]any
	require.NoError(t, json.Unmarshal(listed, &keys))
	delete(keys, "created")
	delete(keys, "expired")
	assert.ElementsMatch(t, slices.Collect(maps.Keys(keys)), quarantineRequestSpec.fields)
	assert.True(t, quarantineRequestSpec.optional["environment"], "environment may be absent")
}

func TestReadQuarantineRequest(t *testing.T) {
	good := `{"repository":"acme/api","test_id":"pkg::T","owner":"ana","reason":"flaky on arm","expires":"2026-12-01T00:00:00Z"}`
	e, err := ReadQuarantineRequest(strings.NewReader(good))
	require.NoError(t, err)
	assert.Equal(t, QuarantineEntry{Repository: "acme/api", TestID: "pkg::T", Owner: "ana", Reason: "flaky on arm",
		Expires: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}, e)
	withEnv := strings.Replace(good, `"owner"`, `"environment":"linux","owner"`, 1)
	e, err = ReadQuarantineRequest(strings.NewReader(withEnv))
	require.NoError(t, err)
	assert.Equal(t, "linux", e.Environment)
	offset := strings.Replace(good, "2026-12-01T00:00:00Z", "2026-12-01T02:00:00.5+02:00", 1)
	e, err = ReadQuarantineRequest(strings.NewReader(offset))
	require.NoError(t, err)
	assert.True(t, e.Expires.Equal(time.Date(2026, 12, 1, 0, 0, 0, 5e8, time.UTC)))

	for name, tc := range map[string]struct{ body, says string }{
		"unknown field":   {strings.Replace(good, `"owner"`, `"bogus":1,"owner"`, 1), `unknown field "entry.bogus"`},
		"created given":   {strings.Replace(good, `"owner"`, `"created":"2026-11-01T00:00:00Z","owner"`, 1), `unknown field "entry.created"`},
		"expired given":   {strings.Replace(good, `"owner"`, `"expired":false,"owner"`, 1), `unknown field "entry.expired"`},
		"case variant":    {strings.Replace(good, `"owner"`, `"Owner"`, 1), "differs only in case"},
		"twice":           {strings.Replace(good, `"owner":"ana"`, `"owner":"ana","owner":"bo"`, 1), "given twice"},
		"two objects":     {good + good, "data after the entry's object"},
		"a list":          {"[" + good + "]", "entry is a list, want an object"},
		"null":            {"null", "entry is null"},
		"empty":           {"", "unexpected EOF"},
		"no owner":        {strings.Replace(good, `"owner":"ana",`, "", 1), `missing "owner"`},
		"null owner":      {strings.Replace(good, `"ana"`, "null", 1), "entry.owner is null"},
		"number owner":    {strings.Replace(good, `"ana"`, "7", 1), "entry.owner is 7, want a string"},
		"null env":        {strings.Replace(good, `"owner"`, `"environment":null,"owner"`, 1), "entry.environment is null"},
		"bad expires":     {strings.Replace(good, "2026-12-01T00:00:00Z", "14d", 1), `expires "14d" is not an RFC 3339 time`},
		"date expires":    {strings.Replace(good, "2026-12-01T00:00:00Z", "2026-12-01", 1), "not an RFC 3339 time"},
		"not UTF-8":       {strings.Replace(good, "ana", "an\xffa", 1), "not valid UTF-8"},
		"syntax":          {`{"repository":}`, "invalid character"},
		"too big":         {strings.Replace(good, "flaky on arm", strings.Repeat("r", MaxQuarantineRequest), 1), "larger than 64 KiB"},
		"trailing text":   {good + " x", "data after the entry's object"},
		"nested too deep": {strings.Repeat("[", 100), "entry is a list"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadQuarantineRequest(strings.NewReader(tc.body))
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrQuarantine)
			assert.ErrorIs(t, err, ErrQuarantineForm)
			assert.Contains(t, err.Error(), tc.says)
		})
	}
	// Trailing white space is not data.
	_, err = ReadQuarantineRequest(strings.NewReader(good + "\n"))
	assert.NoError(t, err)
}

func TestCheckQuarantineKey(t *testing.T) {
	require.NoError(t, CheckQuarantineKey("acme/api", "", "pkg::T"))
	require.NoError(t, CheckQuarantineKey("acme/api", "linux", strings.Repeat("t", MaxQuarantineTestID)))
	for name, k := range map[string][3]string{
		"no repository":   {"", "", "t"},
		"no test":         {"r", "", " "},
		"long test":       {"r", "", strings.Repeat("t", MaxQuarantineTestID+1)},
		"long repository": {strings.Repeat("r", MaxQuarantineRepository+1), "", "t"},
		"test not UTF-8":  {"r", "", "t\xff"},
		"env not UTF-8":   {"r", "\xff", "t"},
		"env two lines":   {"r", "a\rb", "t"},
		"test NUL":        {"r", "", "a\x00b"},
	} {
		err := CheckQuarantineKey(k[0], k[1], k[2])
		assert.ErrorIs(t, err, ErrQuarantine, name)
		assert.NotErrorIs(t, err, ErrQuarantineForm, name)
	}
}
