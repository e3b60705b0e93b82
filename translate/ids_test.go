package translate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

func TestIDs(t *testing.T) {
	a := &testrun.Run{ID: "run-a"}
	b := &testrun.Run{ID: "run-b"}
	job := func(j translate.Job, runs ...*testrun.Run) translate.Span {
		spans, err := translate.JobSpans(j, runs, translate.WithClock(fixedClock))
		require.NoError(t, err)
		return spans[0]
	}
	verify := job(translate.Job{ID: "j1"}, a)
	again := job(translate.Job{ID: "j1"}, b)
	provision := job(translate.Job{ID: "j1", Provision: true}, a)
	other := job(translate.Job{ID: "j2"}, a)
	byRuns := job(translate.Job{}, a, b)
	byRunsSwapped := job(translate.Job{}, b, a)

	assert.Equal(t, verify.TraceID, again.TraceID, "a job's trace depends on the job, not on its runs")
	assert.NotEqual(t, verify.SpanID, again.SpanID, "two exports of different runs never share a span id")
	assert.Equal(t, verify.SpanID, job(translate.Job{ID: "j1"}, a).SpanID, "the same export gives the same ids")
	assert.Equal(t, verify.TraceID, provision.TraceID, "the provisioning span joins the job's trace")
	assert.NotEqual(t, verify.SpanID, provision.SpanID)
	assert.NotEqual(t, verify.TraceID, other.TraceID)
	assert.NotEqual(t, byRuns.TraceID, byRunsSwapped.TraceID, "without a job id, the run ids in order")
	assert.NotEqual(t, verify.TraceID, byRuns.TraceID)

	// "job" + "j1" and a run list must never collide with each other.
	j := job(translate.Job{}, &testrun.Run{ID: "job"}, &testrun.Run{ID: "j1"})
	assert.NotEqual(t, verify.TraceID, j.TraceID)

	session := func(id string, turns ...int) []translate.Span {
		s := translate.Session{ID: id}
		for _, n := range turns {
			s.Turns = append(s.Turns, translate.Turn{Number: n, Runs: []*testrun.Run{a}})
		}
		spans, err := translate.SessionSpans(s, translate.WithClock(fixedClock))
		require.NoError(t, err)
		return spans
	}
	s1 := session("s1", 1, 2, 3)
	s1again := session("s1", 2)
	seen := map[trace.SpanID]bool{}
	for _, s := range s1 {
		assert.True(t, s.TraceID.IsValid())
		assert.True(t, s.SpanID.IsValid())
		assert.Equal(t, s1[0].TraceID, s.TraceID)
		assert.False(t, seen[s.SpanID], "span ids are unique")
		seen[s.SpanID] = true
	}
	assert.Equal(t, s1[0].TraceID, s1again[0].TraceID, "a session's exports share its trace")
	assert.NotEqual(t, s1[0].SpanID, s1again[0].SpanID, "a session span that differs has another id")
	assert.Equal(t, s1[0].SpanID, session("s1", 1, 2, 3)[0].SpanID, "the same export gives the same ids")
	assert.Equal(t, s1[2].SpanID, s1again[1].SpanID, "turn 2 with the same runs keeps its id across exports")
	assert.NotEqual(t, s1[0].TraceID, session("s2", 1)[0].TraceID)
}

func TestParentIDs(t *testing.T) {
	p := testParent(t)
	run := &testrun.Run{ID: "r"}
	plain, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, translate.WithClock(fixedClock))
	require.NoError(t, err)
	under, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, translate.WithClock(fixedClock), translate.WithParent(p))
	require.NoError(t, err)
	assert.Equal(t, p.TraceID(), under[0].TraceID, "the trace of the parent")
	assert.Equal(t, p.SpanID(), under[0].ParentSpanID)
	assert.True(t, under[0].RemoteParent)
	assert.Equal(t, plain[0].SpanID, under[0].SpanID, "span ids stay derived")
	assert.Equal(t, "vendor=abc", under[0].TraceState.String())

	unsampled := trace.NewSpanContext(trace.SpanContextConfig{TraceID: p.TraceID(), SpanID: p.SpanID(), Remote: true})
	under, err = translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, translate.WithParent(unsampled))
	require.NoError(t, err)
	assert.True(t, under[0].TraceFlags.IsSampled(), "results are always sampled")

	sess, err := translate.SessionSpans(translate.Session{ID: "s", Turns: []translate.Turn{{Number: 1, Runs: []*testrun.Run{run}}}},
		translate.WithParent(p))
	require.NoError(t, err)
	assert.Equal(t, p.SpanID(), sess[0].ParentSpanID)
	assert.Equal(t, sess[0].SpanID, sess[1].ParentSpanID)
	assert.False(t, sess[1].RemoteParent)
	assert.Equal(t, p.TraceID(), sess[1].TraceID)
}
