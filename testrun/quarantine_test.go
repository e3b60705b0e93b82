package testrun

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// quarantineRun builds a complete run with the given outcomes.
func quarantineRun(t *testing.T, outcomes map[string]Outcome) *Run {
	t.Helper()
	var execs []Execution
	for id, o := range outcomes {
		execs = append(execs, Execution{ID: id, Scope: "s", Outcome: o})
	}
	n := len(execs)
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "r.xml", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID = "r1"
	return r
}

func TestQuarantineExcuses(t *testing.T) {
	start := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	entry := func(test, env string, created, expires time.Duration) QuarantineEntry {
		return QuarantineEntry{Repository: "acme/api", Environment: env, TestID: test, Owner: "ana", Reason: "timing",
			Created: start.Add(created), Expires: start.Add(expires)}
	}
	day := 24 * time.Hour
	tests := []struct {
		name     string
		outcomes map[string]Outcome
		status   Status
		entries  []QuarantineEntry
		env      string
		passes   bool
		excused  []string
		warning  string
	}{
		{name: "every failure quarantined before the job", outcomes: map[string]Outcome{"a": OutcomeFailed, "b": OutcomeError, "c": OutcomePassed},
			entries: []QuarantineEntry{entry("a", "", -day, day), entry("b", "linux", -time.Second, day)}, env: "linux",
			passes: true, excused: []string{"a", "b"}},
		{name: "one failure not quarantined", outcomes: map[string]Outcome{"a": OutcomeFailed, "b": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", -day, day)}, passes: false, excused: []string{"a"}},
		{name: "created after the job started", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", time.Second, day)}, passes: false, warning: "after this job started"},
		{name: "created at the job's start", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", 0, day)}, passes: false, warning: "after this job started"},
		{name: "expired before the job started", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", -2*day, -time.Second)}, passes: false, warning: "expired"},
		{name: "expiring at the job's start", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", -2*day, 0)}, passes: false, warning: "expired"},
		{name: "expiring during the job still counts", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", -day, time.Nanosecond)}, passes: true, excused: []string{"a"}},
		{name: "another environment", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "windows", -day, day)}, env: "linux", passes: false},
		{name: "the environment's own expired entry decides over the repository's", outcomes: map[string]Outcome{"a": OutcomeFailed},
			entries: []QuarantineEntry{entry("a", "", -day, day), entry("a", "linux", -2*day, -day)}, env: "linux", passes: false, warning: "expired"},
		{name: "a passing test's entry changes nothing", outcomes: map[string]Outcome{"a": OutcomePassed},
			entries: []QuarantineEntry{entry("a", "", -day, day)}, passes: false},
		{name: "no failing test", outcomes: map[string]Outcome{"a": OutcomePassed}, passes: false},
		{name: "timed out", outcomes: map[string]Outcome{"a": OutcomeFailed}, status: StatusTimedOut,
			entries: []QuarantineEntry{entry("a", "", -day, day)}, passes: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := quarantineRun(t, tt.outcomes)
			if tt.status != "" {
				r.Status = tt.status
			}
			q := Quarantine(r, tt.entries, tt.env, start)
			assert.Equal(t, tt.passes, q.Passes)
			assert.Equal(t, tt.excused, q.Excused())
			if tt.warning == "" {
				assert.Empty(t, q.Warnings)
			} else {
				require.Len(t, q.Warnings, 1)
				assert.Contains(t, q.Warnings[0], tt.warning)
			}
			assert.Equal(t, q.Passes, q.Reason() == "", q.Reason())
		})
	}
}

func TestQuarantineUnknownFailures(t *testing.T) {
	r := quarantineRun(t, map[string]Outcome{"a": OutcomeFailed})
	r.Complete = false
	q := Quarantine(r, []QuarantineEntry{{TestID: "a", Created: time.Unix(0, 0), Expires: time.Unix(1<<40, 0)}}, "", time.Unix(100, 0))
	assert.False(t, q.Passes)
	assert.NotEmpty(t, q.Unknown)
	assert.Contains(t, q.Reason(), "failures unknown")
	assert.Empty(t, q.Excused())
}

// TestQuarantineSeesTheOutput: a failing test the check's output names and
// its reports miss (a go test that wrote no report for its package) is
// not excused by the quarantine of the failures the reports list.
func TestQuarantineSeesTheOutput(t *testing.T) {
	r := quarantineRun(t, map[string]Outcome{"a": OutcomeFailed})
	entries := []QuarantineEntry{{TestID: "a", Created: time.Unix(0, 0), Expires: time.Unix(1<<40, 0)}}
	explained := []byte("--- FAIL: a (0.00s)\nFAIL\n")
	q := Quarantine(r, entries, "", time.Unix(100, 0), WithOutput(nil, explained))
	assert.True(t, q.Passes, q.Reason())

	missed := []byte("--- FAIL: a (0.00s)\n--- FAIL: TestAdd (0.00s)\nFAIL\texample.com/calc\t0.01s\n")
	q = Quarantine(r, entries, "", time.Unix(100, 0), WithOutput(nil, missed))
	assert.False(t, q.Passes)
	assert.Contains(t, q.Unknown, "the check's output names 2 failing tests and its reports list 1")
	assert.Contains(t, q.Unknown, "TestAdd")
	assert.Contains(t, q.Reason(), "failures unknown")
	assert.Empty(t, q.Excused())

	// jest's lines do not read like jest-junit's default ids; as many
	// named as reported is not a failure the reports miss.
	jest := quarantineRun(t, map[string]Outcome{" fails with a message:: fails with a message": OutcomeFailed, "outer inner fails in inner::outer inner fails in inner": OutcomeFailed})
	jestEntries := []QuarantineEntry{
		{TestID: " fails with a message:: fails with a message", Created: time.Unix(0, 0), Expires: time.Unix(1<<40, 0)},
		{TestID: "outer inner fails in inner::outer inner fails in inner", Created: time.Unix(0, 0), Expires: time.Unix(1<<40, 0)},
	}
	jestOut := []byte("  ● fails with a message\n\n    expect(received).toBe(expected)\n\n  ● outer › inner › fails in inner\n\n    boom\n")
	require.Len(t, ScanOutput(jestOut), 2, "jest's lines are read")
	require.Len(t, unexplained(ScanOutput(jestOut), nil, jest), 2, "and no report id reads like them")
	q = Quarantine(jest, jestEntries, "", time.Unix(100, 0), WithOutput(nil, jestOut))
	assert.True(t, q.Passes, q.Reason())
}

func TestCheckQuarantine(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	ok := QuarantineEntry{Repository: "acme/api", TestID: "pkg::T", Owner: "ana", Reason: "flaky on arm", Expires: now.Add(24 * time.Hour)}
	require.NoError(t, CheckQuarantine(ok, now))
	for name, mut := range map[string]func(*QuarantineEntry){
		"no repository":       func(e *QuarantineEntry) { e.Repository = "" },
		"no test":             func(e *QuarantineEntry) { e.TestID = " " },
		"no owner":            func(e *QuarantineEntry) { e.Owner = "" },
		"no reason":           func(e *QuarantineEntry) { e.Reason = "" },
		"two-line reason":     func(e *QuarantineEntry) { e.Reason = "a\nb" },
		"long owner":          func(e *QuarantineEntry) { e.Owner = strings.Repeat("o", MaxQuarantineOwner+1) },
		"expired already":     func(e *QuarantineEntry) { e.Expires = now },
		"past MaxQuarantine":  func(e *QuarantineEntry) { e.Expires = now.Add(MaxQuarantine + time.Second) },
		"environment newline": func(e *QuarantineEntry) { e.Environment = "x\ny" },
		"no expiry":           func(e *QuarantineEntry) { e.Expires = time.Time{} },
		"owner not UTF-8":     func(e *QuarantineEntry) { e.Owner = "an\xffa" },
		"long test id":        func(e *QuarantineEntry) { e.TestID = strings.Repeat("t", MaxQuarantineTestID+1) },
	} {
		t.Run(name, func(t *testing.T) {
			e := ok
			mut(&e)
			err := CheckQuarantine(e, now)
			require.Error(t, err)
			assert.True(t, errors.Is(err, ErrQuarantine), err)
		})
	}
}

func TestParseExpiry(t *testing.T) {
	now := time.Date(2026, 11, 1, 12, 30, 0, 0, time.UTC)
	for in, want := range map[string]time.Time{
		"2026-11-15":           time.Date(2026, 11, 16, 0, 0, 0, 0, time.UTC),
		"2026-11-15T08:00:00Z": time.Date(2026, 11, 15, 8, 0, 0, 0, time.UTC),
		"72h":                  now.Add(72 * time.Hour),
		"14d":                  now.AddDate(0, 0, 14),
		"2w":                   now.AddDate(0, 0, 14),
	} {
		got, err := ParseExpiry(in, now)
		require.NoError(t, err, in)
		assert.True(t, want.Equal(got), "%s: %s, want %s", in, got, want)
	}
	for _, in := range []string{"", "soon", "-3h", "0s", "3 days", "2026-13-01"} {
		_, err := ParseExpiry(in, now)
		assert.ErrorIs(t, err, ErrQuarantine, in)
	}
}
