package translate

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

func TestVerdictEvent(t *testing.T) {
	broken := make([]testrun.TestVerdict, 25)
	for i := range broken {
		broken[i] = testrun.TestVerdict{ID: fmt.Sprintf("t%02d", i), Verdict: testrun.VerdictBroken}
	}
	tests := []struct {
		name    string
		paired  *testrun.Paired
		want    map[attribute.Key]attribute.Value
		wantIDs []string
		err     bool
	}{
		{
			name: "reject lists the first broken ids",
			paired: &testrun.Paired{Decision: testrun.DecisionReject, Broken: broken,
				Repaired: []testrun.TestVerdict{{ID: "r"}}, Frozen: []testrun.TestVerdict{{ID: "f1"}, {ID: "f2"}}, Unchanged: 7},
			want: map[attribute.Key]attribute.Value{
				semconv.TestVerdictDecisionKey:     attribute.StringValue("reject"),
				semconv.TestVerdictBrokenKey:       attribute.IntValue(25),
				semconv.TestVerdictRepairedKey:     attribute.IntValue(1),
				semconv.TestVerdictFrozenKey:       attribute.IntValue(2),
				semconv.TestVerdictUnchangedKey:    attribute.IntValue(7),
				semconv.TestVerdictInconclusiveKey: attribute.IntValue(0),
			},
			wantIDs: []string{"t00", "t01", "t02", "t03", "t04", "t05", "t06", "t07", "t08", "t09",
				"t10", "t11", "t12", "t13", "t14", "t15", "t16", "t17", "t18", "t19"},
		},
		{
			name:   "invalid carries its reason",
			paired: &testrun.Paired{Decision: testrun.DecisionInvalid, Invalid: "a fixture pin changed"},
			want: map[attribute.Key]attribute.Value{
				semconv.TestVerdictDecisionKey: attribute.StringValue("invalid"),
				semconv.TestVerdictReasonKey:   attribute.StringValue("a fixture pin changed"),
				semconv.TestVerdictBrokenKey:   attribute.IntValue(0),
			},
			wantIDs: []string{},
		},
		{name: "unknown decision", paired: &testrun.Paired{Decision: "maybe"}, err: true},
		{name: "nil", paired: nil, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ev, err := VerdictEvent(tt.paired)
			if tt.err {
				require.Error(t, err)
				assert.True(t, errors.Is(err, ErrInvalid))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, semconv.EventTestVerdict, ev.Name)
			got := map[attribute.Key]attribute.Value{}
			for _, kv := range ev.Attrs {
				got[kv.Key] = kv.Value
			}
			for k, v := range tt.want {
				assert.Equal(t, v, got[k], "%s", k)
			}
			_, hasReason := got[semconv.TestVerdictReasonKey]
			assert.Equal(t, tt.paired.Decision == testrun.DecisionInvalid, hasReason)
			assert.Equal(t, tt.wantIDs, got[semconv.TestVerdictBrokenIDsKey].AsStringSlice())
		})
	}
}

func TestAddVerdictAfterEvents(t *testing.T) {
	end := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := Span{End: end, Events: []Event{{Name: "test.run", Time: end}, {Name: "test.case", Time: end.Add(EventStep)}}}
	require.NoError(t, AddVerdict(&s, &testrun.Paired{Decision: testrun.DecisionAllow}))
	require.Len(t, s.Events, 3)
	assert.Equal(t, end.Add(2*EventStep), s.Events[2].Time)
	assert.Equal(t, s.Events[2].Time, s.End, "the span contains its events")
}
