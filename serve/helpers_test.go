package serve

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/teststore"
	"github.com/hangar-dev/testresults/store"
	"github.com/hangar-dev/testresults/testrun"
)

type backend struct {
	name     string
	location func(t testing.TB) string
}

// backends are SQLite and PostgreSQL (see package teststore).
var backends = []backend{
	{"sqlite", teststore.SQLiteLocation},
	{"postgres", teststore.PostgresLocation},
}

func forEach(t *testing.T, fn func(t *testing.T, st store.Store)) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			// As testresults serve opens it: listening for writes.
			st, err := store.Open(context.Background(), b.location(t), store.WithWatch())
			require.NoError(t, err)
			t.Cleanup(func() { st.Close() })
			fn(t, st)
		})
	}
}

var t0 = time.Date(2026, 11, 30, 10, 0, 0, 0, time.UTC)

// mkRun builds a complete run; failing cases get message "<id> broke" or
// msgs[id], and rate (when not nil) is its line coverage.
func mkRun(id string, kind testrun.Kind, at int, outcomes map[string]testrun.Outcome, msgs map[string]string, rate *float64, flaky ...string) *testrun.Run {
	var execs []testrun.Execution
	// In id order, as a report lists them: the run's failures keep that order.
	for _, tid := range slices.Sorted(maps.Keys(outcomes)) {
		o := outcomes[tid]
		msg := ""
		if o.Failing() {
			msg = tid + " broke"
			if m, ok := msgs[tid]; ok {
				msg = m
			}
		}
		// Failing cases state a time, passing ones none.
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: o, Message: msg, Duration: 250 * time.Millisecond, Timed: o.Failing()})
	}
	for _, tid := range flaky {
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true})
	}
	n := len(execs)
	b := testrun.NewBuilder()
	var cov *testrun.CoverageReport
	if rate != nil {
		valid := int64(1000)
		covered := int64(*rate * 1000)
		cov = &testrun.CoverageReport{LineRate: rate, LinesCovered: &covered, LinesValid: &valid}
	}
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n, SHA256: fmt.Sprintf("%064d", 0), Bytes: 1}, execs, nil)
	if cov != nil {
		b.AddReport(testrun.ReportInfo{Path: "coverage.xml", Dialect: "cobertura", SHA256: fmt.Sprintf("%064d", 1), Bytes: 1}, nil, cov)
	}
	r := b.Build()
	r.ID, r.Kind, r.Tree = id, kind, "tree-"+id
	r.Command = "go test ./..."
	code := 0
	r.Status = testrun.StatusSuccess
	if r.Counts != nil && r.Counts.Failed+r.Counts.Errors > 0 {
		code, r.Status = 1, testrun.StatusFailure
	}
	r.ExitCode = &code
	r.StartedAt = t0.Add(time.Duration(at) * time.Minute)
	r.EndedAt = r.StartedAt.Add(30 * time.Second)
	return r
}

func ptr[T any](v T) *T { return &v }

// testDeadline is when a wait of test t gives up: a little before the
// test binary's -timeout, so that the failure says what was waited for;
// an hour from now without one. No wait is bounded by a guess of how fast
// a loaded machine is.
func testDeadline(t *testing.T) time.Time {
	if d, ok := t.Deadline(); ok {
		return d.Add(-10 * time.Second)
	}
	return time.Now().Add(time.Hour)
}

// nextLink is the target of the rel="next" link of a Link header, "" when
// there is none.
func nextLink(h string) string {
	for _, l := range strings.Split(h, ",") {
		target, params, ok := strings.Cut(strings.TrimSpace(l), ";")
		if ok && strings.Contains(params, `rel="next"`) {
			return strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(target), "<"), ">")
		}
	}
	return ""
}
