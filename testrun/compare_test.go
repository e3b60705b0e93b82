package testrun

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func buildRun(t *testing.T, execs ...Execution) *Run {
	t.Helper()
	b := NewBuilder(WithRedactor(NewRedactor(nil)))
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(execs))}, execs, nil)
	return b.Build()
}

func TestNewFailures(t *testing.T) {
	base := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomePassed, ""), exec("s", "c", OutcomeError, ""))
	after := buildRun(t, exec("s", "a", OutcomeFailed, ""), exec("s", "b", OutcomeError, ""), exec("s", "c", OutcomePassed, ""), exec("s", "d", OutcomeFailed, ""))

	got, err := NewFailures(base, after)
	require.NoError(t, err)
	assert.Equal(t, []string{"b", "d"}, got)

	got, err = NewFailures(after, after)
	require.NoError(t, err)
	assert.Equal(t, []string{}, got, "an exact comparison with nothing new is an empty list, not nil")

	incomplete := buildRun(t, exec("s", "a", OutcomePassed, ""))
	incomplete.Complete = false
	for name, pair := range map[string][2]*Run{
		"base incomplete":     {incomplete, after},
		"after incomplete":    {base, incomplete},
		"base without counts": {NewBuilder().Build(), after},
		"nil base":            {nil, after},
	} {
		t.Run(name, func(t *testing.T) {
			got, err := NewFailures(pair[0], pair[1])
			assert.Nil(t, got)
			assert.True(t, errors.Is(err, ErrComparisonUnavailable), "%v", err)
		})
	}

	t.Run("failing ids not listed whole", func(t *testing.T) {
		r := buildRun(t, exec("s", "a", OutcomeFailed, ""))
		r.Failures, r.Cases = nil, map[string]Outcome{}
		_, err := FailingIDs(r)
		assert.True(t, errors.Is(err, ErrComparisonUnavailable))
	})
}
