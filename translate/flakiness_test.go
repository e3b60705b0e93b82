package translate_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// attrsOf returns the attributes of the test.case event (or, with spans,
// the case span) of id among spans.
func attrsOf(t *testing.T, spans []translate.Span, id string, caseSpan bool) []attribute.KeyValue {
	t.Helper()
	for _, s := range spans {
		if caseSpan {
			if s.Name == id {
				return s.Attrs
			}
			continue
		}
		for _, e := range s.Events {
			if e.Name == semconv.EventTestCase && hasAttr(e.Attrs, semconv.TestCaseNameKey.String(id)) {
				return e.Attrs
			}
		}
	}
	t.Fatalf("no test.case for %s", id)
	return nil
}

func flakinessAttrs(attrs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	out := map[attribute.Key]attribute.Value{}
	for _, kv := range attrs {
		switch kv.Key {
		case semconv.TestFlakinessFailureRateKey, semconv.TestFlakinessEvidenceKey,
			semconv.TestFlakinessFlipRateKey, semconv.TestFlakinessFlipWindowRunsKey:
			out[kv.Key] = kv.Value
		}
	}
	return out
}

// TestFlakinessAttributes: a scored test's test.case event and case span
// carry its score; a rate without evidence behind it is left out; a score
// changes nothing else (the span's attributes and status, the test.run
// event, the other attributes of the event); the map is copied when the
// option is made.
func TestFlakinessAttributes(t *testing.T) {
	run := readRun(t, "testdata/flakiness/run.json")
	const scored, bare, unscored = "tests/test_api.py::test_login_expired_token", "tests/test_db.py::test_migrate", "tests/test_api.py::test_logout"
	scores := map[string]testrun.Flakiness{
		scored: {FailureRate: 0.25, Evidence: 6, Flips: 3, FlipRate: 0.5, FlipWindowRuns: 7},
		bare:   {FailureRate: 0.5, FlipWindowRuns: 1},
	}
	opt := translate.WithFlakiness(scores)
	scores[unscored] = testrun.Flakiness{Evidence: 99, FlipWindowRuns: 99} // after the option: not seen
	opts := []translate.Option{translate.WithClock(fixedClock), translate.WithCaseSpans(translate.CaseSpansFailed)}
	with, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, append(opts, opt)...)
	require.NoError(t, err)
	without, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, opts...)
	require.NoError(t, err)

	for _, caseSpan := range []bool{false, true} {
		got := flakinessAttrs(attrsOf(t, with, scored, caseSpan))
		assert.Equal(t, map[attribute.Key]attribute.Value{
			semconv.TestFlakinessFailureRateKey:    attribute.Float64Value(0.25),
			semconv.TestFlakinessEvidenceKey:       attribute.IntValue(6),
			semconv.TestFlakinessFlipRateKey:       attribute.Float64Value(0.5),
			semconv.TestFlakinessFlipWindowRunsKey: attribute.IntValue(7),
		}, got, "case span %v", caseSpan)
		assert.Equal(t, map[attribute.Key]attribute.Value{
			semconv.TestFlakinessEvidenceKey:       attribute.IntValue(0),
			semconv.TestFlakinessFlipWindowRunsKey: attribute.IntValue(1),
		}, flakinessAttrs(attrsOf(t, with, bare, caseSpan)), "no rate without evidence (case span %v)", caseSpan)
		assert.Empty(t, flakinessAttrs(attrsOf(t, with, unscored, caseSpan)), "a test without a score has none")

		for _, id := range []string{scored, bare, unscored} {
			w, wo := attrsOf(t, with, id, caseSpan), attrsOf(t, without, id, caseSpan)
			assert.Equal(t, wo, w[:len(wo)], "the score only adds, at the end (%s)", id)
		}
	}
	require.Len(t, with, len(without))
	assert.Equal(t, without[0].Attrs, with[0].Attrs, "the span's summary")
	assert.Equal(t, without[0].Status, with[0].Status)
	assert.Equal(t, without[0].Events[0], with[0].Events[0], "the test.run event")
}

// TestCaseIDs: the ids of the test.case events, in their order, each once
// across runs, nil runs passed over.
func TestCaseIDs(t *testing.T) {
	run := readRun(t, "testdata/flakiness/run.json")
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run}, translate.WithClock(fixedClock))
	require.NoError(t, err)
	var want []string
	for _, e := range spans[0].Events {
		for _, kv := range e.Attrs {
			if e.Name == semconv.EventTestCase && kv.Key == semconv.TestCaseNameKey {
				want = append(want, kv.Value.AsString())
			}
		}
	}
	require.NotEmpty(t, want)
	assert.Equal(t, want, translate.CaseIDs(run, nil, run))
	assert.Empty(t, translate.CaseIDs())
}
