package translate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// TestEventSize checks EventSize against the protobuf encoding pdata writes.
func TestEventSize(t *testing.T) {
	var sets [][]translate.Event
	for _, c := range goldenCases {
		for _, s := range goldenSpans(t, c) {
			sets = append(sets, s.Events)
		}
	}
	evs, err := translate.RunEvents(manyFailures(300, 700))
	require.NoError(t, err)
	sets = append(sets, evs)
	sets = append(sets, []translate.Event{{
		Name: "every type", Time: fixedClock(),
		Attrs: []attribute.KeyValue{
			attribute.Bool("b", false), attribute.Int64("i", -1), attribute.Int64("z", 0), attribute.Float64("f", 0),
			attribute.String("s", ""), attribute.String("long", strings.Repeat("x", 300)),
			attribute.BoolSlice("bs", []bool{true, false}), attribute.Int64Slice("is", []int64{1, -2, 1 << 40}),
			attribute.Float64Slice("fs", []float64{1.5}), attribute.StringSlice("ss", []string{"a", ""}),
			attribute.StringSlice("empty", nil), attribute.ByteSlice("by", []byte{1, 2, 3}),
			attribute.Slice("sl", attribute.IntValue(1), attribute.StringValue("x")),
			attribute.Map("m", attribute.String("k", "v"), attribute.Int("n", 2)),
		},
	}})
	var m ptrace.ProtoMarshaler
	for i, evs := range sets {
		spanOf := func(s translate.Span) ptrace.Span {
			return translate.Traces([]translate.Span{s}, nil).ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
		}
		bare := m.SpanSize(spanOf(translate.Span{Name: "s"}))
		want := m.SpanSize(spanOf(translate.Span{Name: "s", Events: evs})) - bare
		got := 0
		for _, ev := range evs {
			got += translate.EventSize(ev)
		}
		assert.Equal(t, want, got, "set %d", i)
	}
}

// TestExportFitsGRPCMessage checks that one run's export stays under the
// 4 MiB a collector's OTLP gRPC receiver accepts, for a run with 20,000
// failing tests whose messages are 2,000 characters long.
func TestExportFitsGRPCMessage(t *testing.T) {
	const limit = 4 << 20
	run := manyFailures(testrun.DefaultMaxCasesKept, testrun.DefaultMaxMessageRunes)
	for _, tt := range []struct {
		name string
		opts []translate.Option
		kept int
	}{
		{name: "default cap", kept: translate.DefaultMaxCaseEvents},
		{name: "cap lifted: the byte budget holds", opts: []translate.Option{translate.WithMaxCaseEvents(1 << 30)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			spans, err := translate.JobSpans(translate.Job{ID: "job"}, []*testrun.Run{run}, tt.opts...)
			require.NoError(t, err)
			td := translate.Traces(spans, testResource())
			b, err := ptraceotlp.NewExportRequestFromTraces(td).MarshalProto()
			require.NoError(t, err)
			events := len(spans[0].Events) - 1
			t.Logf("%d test.case events, request %d bytes (%.2f MiB)", events, len(b), float64(len(b))/(1<<20))
			assert.Less(t, len(b), limit)
			if tt.kept > 0 {
				assert.Equal(t, tt.kept, events)
			} else {
				assert.Greater(t, events, translate.DefaultMaxCaseEvents)
			}
		})
	}
}

// TestExportFitsMultibyte is the worst case per character: messages of
// 4-byte characters.
func TestExportFitsMultibyte(t *testing.T) {
	run := manyFailures(5000, 0)
	for i := range run.Failures {
		run.Failures[i].Message = strings.Repeat("😀", testrun.DefaultMaxMessageRunes)
	}
	spans, err := translate.JobSpans(translate.Job{ID: "job"}, []*testrun.Run{run, withID(run, "second"), withID(run, "third")},
		translate.WithMaxCaseEvents(5000))
	require.NoError(t, err)
	b, err := ptraceotlp.NewExportRequestFromTraces(translate.Traces(spans, testResource())).MarshalProto()
	require.NoError(t, err)
	t.Logf("3 runs on one span: %d events, request %d bytes", len(spans[0].Events), len(b))
	assert.Less(t, len(b), 4<<20)
}

func withID(r *testrun.Run, id string) *testrun.Run {
	c := *r
	c.ID = id
	return &c
}

func BenchmarkRunEvents(b *testing.B) {
	for _, n := range []int{1000, 100_000} {
		run := &testrun.Run{
			ID: "bench", Kind: testrun.KindAfterTurn, Command: "pytest", Status: testrun.StatusFailure, Complete: true,
			Counts: &testrun.Counts{Total: n, Failed: n},
			Cases:  make(map[string]testrun.Outcome, n),
		}
		for i := range n {
			id := fmt.Sprintf("tests/test_mod_%03d.py::TestClass::test_case_%06d", i%500, i)
			run.Cases[id] = testrun.OutcomeFailed
			if i < testrun.DefaultMaxFailures {
				run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed, Message: strings.Repeat("m", 600)})
			}
		}
		b.Run(fmt.Sprintf("cases=%d", n), func(b *testing.B) {
			opts := []translate.Option{translate.WithMaxCaseEvents(n), translate.WithMaxEventBytes(1 << 40)}
			b.ReportAllocs()
			events := 0
			bytes := 0
			for b.Loop() {
				evs, err := translate.RunEvents(run, opts...)
				if err != nil {
					b.Fatal(err)
				}
				events += len(evs)
				if bytes == 0 {
					for _, ev := range evs {
						bytes += translate.EventSize(ev)
					}
					b.SetBytes(int64(bytes))
				}
			}
			b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

func BenchmarkTraces(b *testing.B) {
	run := manyFailures(testrun.DefaultMaxCasesKept, 600)
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{run})
	if err != nil {
		b.Fatal(err)
	}
	var m ptrace.ProtoMarshaler
	b.SetBytes(int64(m.TracesSize(translate.Traces(spans, testResource()))))
	b.ReportAllocs()
	for b.Loop() {
		translate.Traces(spans, testResource())
	}
}
