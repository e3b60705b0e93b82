package testrun

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunJSONUnknownIsNull(t *testing.T) {
	r := NewBuilder().Build()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for _, k := range []string{"id", "kind", "grade", "command", "status", "exit_code", "commit", "tree", "agent_run_id", "started_at", "ended_at", "counts", "coverage", "cases", "failures", "flaky"} {
		v, ok := m[k]
		assert.True(t, ok, "field %s present", k)
		assert.Nil(t, v, "field %s is null", k)
	}
	for _, k := range []string{"reports", "incomplete_reasons"} {
		assert.IsType(t, []any{}, m[k], "field %s is a list", k)
	}
	assert.Equal(t, false, m["complete"])
	assert.Equal(t, false, m["trusted"])
	assert.Equal(t, false, m["counted"])
	assert.Len(t, m, 21)
}

func TestRunJSONRoundTrip(t *testing.T) {
	b := NewBuilder(WithRedactor(NewRedactor(nil)))
	b.AddReport(ReportInfo{Path: "r.xml", Dialect: "pytest-xunit2", Bytes: 10, SHA256: "ab", Tests: ntests(2)}, []Execution{
		exec("s", "t::a", OutcomePassed, ""), exec("s", "t::b", OutcomeFailed, "bad"),
	}, nil)
	b.AddReport(ReportInfo{Path: "coverage.xml", Dialect: "cobertura", Bytes: 5, SHA256: "cd"}, nil, &CoverageReport{LineRate: f64(0.5)})
	r := b.Build()
	code := 1
	r.ID, r.Kind, r.Command, r.Status, r.ExitCode = "run-1", KindAfterTurn, "pytest -q", StatusFailure, &code
	r.Commit, r.Tree, r.AgentRunID = "abc123", "tree1", "agent-7"
	r.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)

	data, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	assert.Contains(t, string(data), `"trusted": true`)
	assert.Contains(t, string(data), `"counted": true`)
	assert.Contains(t, string(data), `"error": null`)
	assert.Contains(t, string(data), `"tests": null`)

	var back Run
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, *r, back)
}

func TestRunJSONTrustIsRecomputed(t *testing.T) {
	in := `{"id":"x","kind":"gate","trusted":true,"counted":true,"complete":true,
	        "counts":{"total":1,"passed":1,"failed":0,"errors":0,"skipped":0,"flaky":0}}`
	var r Run
	require.NoError(t, json.Unmarshal([]byte(in), &r))
	assert.False(t, r.Trusted())
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"trusted":false`)
	assert.Contains(t, string(out), `"counted":false`)
}

func TestRunJSONRejectsInvalid(t *testing.T) {
	for name, in := range map[string]string{
		"kind":         `{"kind":"nightly"}`,
		"status":       `{"status":"maybe"}`,
		"counts":       `{"counts":{"total":5,"passed":1,"failed":0,"errors":0,"skipped":0,"flaky":0}}`,
		"negative":     `{"counts":{"total":-1,"passed":-1,"failed":0,"errors":0,"skipped":0,"flaky":0}}`,
		"case outcome": `{"cases":{"a":"great"}}`,
		"failure kind": `{"failures":[{"id":"a","outcome":"passed"}]}`,
	} {
		t.Run(name, func(t *testing.T) {
			var r Run
			err := json.Unmarshal([]byte(in), &r)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrInvalidRun))
		})
	}
	var r Run
	assert.Error(t, json.Unmarshal([]byte(`{"kind":`), &r))
}
