package testrun

import (
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExcuseByEntries: an entry excuses a failure only when it was on the
// list before the job started; on a red base only the new failures are
// looked up; the entries come back for the answer's detail.
func TestExcuseByEntries(t *testing.T) {
	after := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""))
	after.ID = "r"
	base := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomePassed, ""), exec("s", "c", OutcomePassed, ""))
	base.ID = "base"
	jobStart := t0.Add(time.Hour)
	entry := func(id string, at time.Time) FlakyEntry {
		e := FlakyEntry{TestID: id}
		e.Add(FlakySeen{How: FlakyRunnerRetry, At: at})
		return e
	}
	list := map[string]FlakyEntry{"a": entry("a", t0), "b": entry("b", jobStart.Add(time.Minute))}
	var asked []string
	lookup := func(ids []string) (map[string]FlakyEntry, error) {
		asked = ids
		out := map[string]FlakyEntry{}
		for _, id := range ids {
			if e, ok := list[id]; ok {
				out[id] = e
			}
		}
		return out, nil
	}

	e, entries, err := ExcuseByEntries(after, nil, jobStart, lookup)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, asked)
	assert.Equal(t, []string{"a"}, e.Excused(), "b was listed only after the job started")
	assert.False(t, e.Transient)
	assert.Len(t, entries, 2, "both entries come back, the late one too")

	e, entries, err = ExcuseByEntries(after, base, jobStart, lookup)
	require.NoError(t, err)
	assert.Equal(t, []string{"b"}, asked, "on a red base only the new failure is looked up")
	assert.True(t, e.NewOnly)
	assert.Empty(t, e.Excused())
	assert.Contains(t, entries, "b")

	boom := errors.New("boom")
	_, _, err = ExcuseByEntries(after, nil, jobStart, func([]string) (map[string]FlakyEntry, error) { return nil, boom })
	require.ErrorIs(t, err, boom)
}

// TestScoreEntries: one question a repository and environment, each test
// once, in the order of the entries; the same test in two environments is
// scored by each one's answer; an entry the answer leaves out has no score.
func TestScoreEntries(t *testing.T) {
	entries := []FlakyEntry{
		{Repository: "r1", Environment: "linux", TestID: "a"},
		{Repository: "r2", Environment: "linux", TestID: "a"},
		{Repository: "r1", Environment: "mac", TestID: "a"},
		{Repository: "r1", Environment: "linux", TestID: "b"},
		{Repository: "r1", Environment: "linux", TestID: "a"},
	}
	var calls []string
	asked := map[string][]string{}
	scores, err := ScoreEntries(entries, func(repo, env string, ids []string) (map[string]Flakiness, error) {
		calls = append(calls, repo+"/"+env)
		asked[repo+"/"+env] = ids
		switch repo + "/" + env {
		case "r2/linux":
			return map[string]Flakiness{}, nil
		case "r1/mac":
			return map[string]Flakiness{"a": {FailureRate: 0.75}}, nil
		}
		return map[string]Flakiness{"a": {FailureRate: 0.25}, "b": {FailureRate: 0.5}}, nil
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"r1/linux", "r2/linux", "r1/mac"}, calls)
	assert.Equal(t, []string{"a", "b"}, asked["r1/linux"], "a test listed twice is asked once")
	assert.Equal(t, []string{"a"}, asked["r1/mac"])
	require.Len(t, scores, 5)
	assert.InDelta(t, 0.25, scores[0].FailureRate, 0)
	assert.Nil(t, scores[1], "r2 had no score for a")
	assert.InDelta(t, 0.75, scores[2].FailureRate, 0, "mac's score, not linux's")
	assert.InDelta(t, 0.5, scores[3].FailureRate, 0)
	assert.InDelta(t, 0.25, scores[4].FailureRate, 0)

	boom := errors.New("boom")
	_, err = ScoreEntries(entries, func(string, string, []string) (map[string]Flakiness, error) { return nil, boom })
	require.ErrorIs(t, err, boom)
}
