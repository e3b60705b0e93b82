package testresultsprocessor

import (
	"context"
	"testing"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// TestTrustTable runs every row of the trust table through the processor,
// from a trusted source, and compares the whole output with the input plus
// the expected flags on the event and on the span.
func TestTrustTable(t *testing.T) {
	for _, tt := range trustRows() {
		t.Run(tt.name, func(t *testing.T) {
			in := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{runEvent(tt.attrs...)}})
			got := consume(t, context.Background(), verifierConfig(), in)

			want := ptrace.NewTraces()
			in.CopyTo(want)
			wantSpan := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			setFlags(wantSpan.Events().At(0).Attributes(), tt.trusted, tt.counted)
			setFlags(wantSpan.Attributes(), tt.trusted, tt.counted)
			require.NoError(t, ptracetest.CompareTraces(want, got))

			// Exactly one value of each flag is left, whatever the sender wrote.
			gotEvent := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0)
			assert.Equal(t, []any{tt.trusted}, flagsOf(gotEvent.Attributes(), keyTrusted))
			assert.Equal(t, []any{tt.counted}, flagsOf(gotEvent.Attributes(), keyCounted))

			// The counts the telemetry reports for this run.
			var st stats
			ev := ptrace.NewTraces()
			in.CopyTo(ev)
			processRun(ev.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0).Attributes(), senderTrusted, &st)
			assert.Equal(t, tt.stats(), st)
		})
	}
}

// trustRow is one row of the trust table: a run's attributes as sent by a
// trusted source, and what the processor makes of them.
type trustRow struct {
	name        string
	attrs       []attr
	trusted     bool
	counted     bool
	malformed   bool
	overwritten int64
}

// stats are the counts the telemetry reports for the row's run.
func (tt *trustRow) stats() stats {
	st := stats{seen: 1, overwritten: tt.overwritten}
	if tt.trusted {
		st.trusted = 1
	}
	if tt.counted {
		st.counted = 1
	}
	if tt.malformed {
		st.malformed = 1
	}
	return st
}

// trustRows is the trust table, shared by the traces and the logs tests.
func trustRows() []trustRow {
	return []trustRow{
		{name: "base", attrs: runAttrs(), trusted: true, counted: true},
		{name: "after_turn", attrs: runAttrs(attr{keyKind, "after_turn"}), trusted: true, counted: true},
		{name: "rerun", attrs: runAttrs(attr{keyKind, "rerun"}), trusted: true, counted: true},
		{name: "attempt", attrs: runAttrs(attr{keyKind, "attempt"}), trusted: true, counted: true},
		{name: "setup", attrs: runAttrs(attr{keyKind, "setup"}), trusted: true, counted: true},
		{name: "acceptance", attrs: runAttrs(attr{keyKind, "acceptance"}), trusted: true, counted: true},
		{name: "gate", attrs: runAttrs(attr{keyKind, "gate"})},
		{name: "grader isolated", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, "isolated"}), trusted: true, counted: true},
		{name: "grader lower grade", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, "sandboxed"})},
		{name: "grader empty grade", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, ""})},
		{name: "grader missing grade", attrs: runAttrs(attr{keyKind, "grader"})},
		{name: "grader grade in other case", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, "Isolated"})},
		{name: "grade on a base run is not read", attrs: runAttrs(attr{keyGrade, "lower"}), trusted: true, counted: true},
		{name: "total 0", attrs: runAttrs(attr{keyTotal, int64(0)}, attr{keyPassed, int64(0)}), trusted: true},
		{name: "incomplete", attrs: runAttrs(attr{keyComplete, false}), trusted: true},
		{name: "gate total 0 incomplete", attrs: runAttrs(attr{keyKind, "gate"}, attr{keyTotal, int64(0)}, attr{keyPassed, int64(0)}, attr{keyComplete, false})},
		{name: "missing total", attrs: runAttrs(attr{keyTotal, absent}), malformed: true},
		{name: "missing passed", attrs: runAttrs(attr{keyPassed, absent}), malformed: true},
		{name: "missing flaky", attrs: runAttrs(attr{keyFlaky, absent}), malformed: true},
		{name: "counts do not add up", attrs: runAttrs(attr{keyTotal, int64(5)}), malformed: true},
		{name: "flaky over total", attrs: runAttrs(attr{keyFlaky, int64(4)}), malformed: true},
		{name: "failed negative", attrs: runAttrs(attr{keyFailed, int64(-7)}), malformed: true},
		{name: "passed as string", attrs: runAttrs(attr{keyPassed, "3"}), malformed: true},
		{name: "errors repeated", attrs: runAttrs(attr{dupPrefix + keyErrors, int64(0)}), malformed: true},
		{name: "missing complete", attrs: runAttrs(attr{keyComplete, absent}), malformed: true},
		{name: "missing kind", attrs: runAttrs(attr{keyKind, absent}), malformed: true},
		{name: "missing everything", attrs: nil, malformed: true},
		{name: "unknown kind", attrs: runAttrs(attr{keyKind, "nightly"}), malformed: true},
		{name: "kind in other case", attrs: runAttrs(attr{keyKind, "Base"}), malformed: true},
		{name: "empty kind", attrs: runAttrs(attr{keyKind, ""}), malformed: true},
		{name: "kind as int", attrs: runAttrs(attr{keyKind, int64(1)}), malformed: true},
		{name: "grade as int", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, int64(1)}), malformed: true},
		{name: "grade as bool on base", attrs: runAttrs(attr{keyGrade, true}), malformed: true},
		{name: "total as string", attrs: runAttrs(attr{keyTotal, "3"}), malformed: true},
		{name: "total as double", attrs: runAttrs(attr{keyTotal, 3.0}), malformed: true},
		{name: "total negative", attrs: runAttrs(attr{keyTotal, int64(-1)}), malformed: true},
		{
			name: "counts wrap past int64 to total 1",
			attrs: runAttrs(attr{keyTotal, int64(1)}, attr{keyPassed, int64(1 << 62)}, attr{keyFailed, int64(1 << 62)},
				attr{keyErrors, int64(1 << 62)}, attr{keySkipped, int64(1<<62 + 1)}),
			malformed: true,
		},
		{
			name: "counts wrap past int64 to total 3",
			attrs: runAttrs(attr{keyTotal, int64(3)}, attr{keyPassed, int64(0)}, attr{keyFailed, int64(1 << 62)},
				attr{keyErrors, int64(1 << 62)}, attr{keySkipped, int64(1 << 62)}),
			malformed: true,
		},
		{
			name: "count over the bound",
			attrs: runAttrs(attr{keyTotal, int64(6_400_001)}, attr{keyPassed, int64(6_400_001)}, attr{keyFailed, int64(0)},
				attr{keyErrors, int64(0)}, attr{keySkipped, int64(0)}),
			malformed: true,
		},
		{name: "complete as string", attrs: runAttrs(attr{keyComplete, "true"}), malformed: true},
		{name: "complete as int", attrs: runAttrs(attr{keyComplete, int64(1)}), malformed: true},
		{name: "kind repeated gate then base", attrs: runAttrs(attr{keyKind, "gate"}, attr{dupPrefix + keyKind, "base"}), malformed: true},
		{name: "kind repeated base then gate", attrs: runAttrs(attr{dupPrefix + keyKind, "gate"}), malformed: true},
		{name: "kind repeated same value", attrs: runAttrs(attr{dupPrefix + keyKind, "base"}), malformed: true},
		{name: "total repeated", attrs: runAttrs(attr{dupPrefix + keyTotal, int64(5)}), malformed: true},
		{name: "complete repeated", attrs: runAttrs(attr{dupPrefix + keyComplete, true}), malformed: true},
		{name: "grade repeated", attrs: runAttrs(attr{keyKind, "grader"}, attr{keyGrade, "isolated"}, attr{dupPrefix + keyGrade, "isolated"}), malformed: true},
		{
			name:        "forged flags on gate",
			attrs:       runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true}, attr{keyCounted, true}),
			overwritten: 2,
		},
		{
			name:        "forged counted on total 0",
			attrs:       runAttrs(attr{keyTotal, int64(0)}, attr{keyPassed, int64(0)}, attr{keyTrusted, true}, attr{keyCounted, true}),
			trusted:     true,
			overwritten: 1,
		},
		{
			name:        "forged flags on malformed run",
			attrs:       runAttrs(attr{keyTotal, "1000"}, attr{keyTrusted, true}, attr{keyCounted, true}),
			malformed:   true,
			overwritten: 2,
		},
		{
			name:        "forged flag repeated",
			attrs:       runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, false}, attr{dupPrefix + keyTrusted, true}),
			overwritten: 1,
		},
		{
			name:        "flags as strings",
			attrs:       runAttrs(attr{keyTrusted, "true"}, attr{keyCounted, "true"}),
			trusted:     true,
			counted:     true,
			overwritten: 2,
		},
		{
			name:    "sender's flags already right",
			attrs:   runAttrs(attr{keyTrusted, true}, attr{keyCounted, true}),
			trusted: true,
			counted: true,
		},
		{
			name:    "sender's false flags on a counted run",
			attrs:   runAttrs(attr{keyTrusted, false}, attr{keyCounted, false}),
			trusted: true, counted: true, overwritten: 2,
		},
	}
}

// TestInvalidCounts: a test.run whose counts are not valid (missing,
// mistyped, negative, over testrun.MaxCount, not adding up, flaky over
// total), or whose complete is missing or mistyped, is neither trusted nor
// counted, whatever its kind, from a trusted source: one rule, not one for
// negative counts and another for the rest. Counts at the bounds are valid.
func TestInvalidCounts(t *testing.T) {
	over := int64(testrun.MaxCount + 1)
	tests := []struct {
		name  string
		attrs []attr
		valid bool
	}{
		{name: "at the bound", valid: true, attrs: []attr{{keyTotal, int64(testrun.MaxCount)}, {keyPassed, int64(testrun.MaxCount)}, {keyFlaky, int64(testrun.MaxCount)}}},
		{name: "missing total", attrs: []attr{{keyTotal, absent}}},
		{name: "missing passed", attrs: []attr{{keyPassed, absent}}},
		{name: "missing failed", attrs: []attr{{keyFailed, absent}}},
		{name: "missing errors", attrs: []attr{{keyErrors, absent}}},
		{name: "missing skipped", attrs: []attr{{keySkipped, absent}}},
		{name: "missing flaky", attrs: []attr{{keyFlaky, absent}}},
		{name: "missing every count", attrs: []attr{{keyTotal, absent}, {keyPassed, absent}, {keyFailed, absent}, {keyErrors, absent}, {keySkipped, absent}, {keyFlaky, absent}}},
		{name: "total as string", attrs: []attr{{keyTotal, "3"}}},
		{name: "flaky as double", attrs: []attr{{keyFlaky, 0.0}}},
		{name: "skipped as bool", attrs: []attr{{keySkipped, false}}},
		{name: "passed negative", attrs: []attr{{keyPassed, int64(-3)}, {keyTotal, int64(0)}, {keyFailed, int64(3)}}},
		{name: "flaky negative", attrs: []attr{{keyFlaky, int64(-1)}}},
		{name: "total over the bound", attrs: []attr{{keyTotal, over}, {keyPassed, over}}},
		{name: "flaky over the bound", attrs: []attr{{keyTotal, over}, {keyPassed, over}, {keyFlaky, over}}},
		{name: "skipped over the bound", attrs: []attr{{keyTotal, over}, {keyPassed, int64(0)}, {keySkipped, over}}},
		{name: "total above the sum", attrs: []attr{{keyTotal, int64(4)}}},
		{name: "total below the sum", attrs: []attr{{keyTotal, int64(2)}}},
		{name: "flaky over total", attrs: []attr{{keyFlaky, int64(4)}}},
		{name: "sum wraps past int64", attrs: []attr{{keyTotal, int64(1)}, {keyPassed, int64(1 << 62)}, {keyFailed, int64(1 << 62)}, {keyErrors, int64(1 << 62)}, {keySkipped, int64(1<<62 + 1)}}},
		{name: "missing complete", attrs: []attr{{keyComplete, absent}}},
		{name: "complete as string", attrs: []attr{{keyComplete, "true"}}},
		{name: "complete as int", attrs: []attr{{keyComplete, int64(1)}}},
	}
	kinds := [][]attr{
		{{keyKind, "base"}},
		{{keyKind, "acceptance"}},
		{{keyKind, "grader"}, {keyGrade, "isolated"}},
	}
	for _, tt := range tests {
		for _, kind := range kinds {
			t.Run(tt.name+"/"+kind[0].val.(string), func(t *testing.T) {
				attrs := runAttrs(append(append([]attr{}, kind...), tt.attrs...)...)
				attrs = append(attrs, attr{keyTrusted, true}, attr{keyCounted, true}) // forged
				in := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, events: []event{runEvent(attrs...)}})
				got, st := consumeCounting(t, context.Background(), verifierConfig(), in)

				s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
				for where, m := range map[string]pcommon.Map{"test.run": s.Events().At(0).Attributes(), "span": s.Attributes()} {
					assert.Equal(t, []any{tt.valid}, flagsOf(m, keyTrusted), where)
					assert.Equal(t, []any{tt.valid}, flagsOf(m, keyCounted), where)
				}
				want := stats{seen: 1, malformed: 1, overwritten: 2}
				if tt.valid {
					want = stats{seen: 1, trusted: 1, counted: 1}
				}
				assert.Equal(t, want, st)
			})
		}
	}
}

// TestUntrustedSource: a sender that matches no trusted source can never get
// a run out as trusted or counted, whatever it wrote.
func TestUntrustedSource(t *testing.T) {
	tests := []struct {
		name     string
		resource []attr
	}{
		{name: "other service", resource: []attr{{string(semconv.ServiceNameKey), "agent"}}},
		{name: "no resource attributes", resource: nil},
		{name: "service name in other case", resource: []attr{{string(semconv.ServiceNameKey), "Hangar-Verifier"}}},
		{name: "service name with another type", resource: []attr{{"service.name", int64(1)}}},
		{
			name:     "service name repeated with another value",
			resource: []attr{{string(semconv.ServiceNameKey), verifier}, {dupPrefix + string(semconv.ServiceNameKey), "agent"}},
		},
		{
			name:     "service name repeated, forged first",
			resource: []attr{{string(semconv.ServiceNameKey), "agent"}, {dupPrefix + string(semconv.ServiceNameKey), verifier}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			forged := runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})
			in := traces(t, tt.resource, span{
				name:   semconv.SpanJobVerify,
				attrs:  []attr{{keyTrusted, true}, {keyCounted, true}},
				events: []event{runEvent(forged...), runEvent(runAttrs(attr{keyKind, "acceptance"})...)},
			})
			got := consume(t, context.Background(), verifierConfig(), in)

			want := ptrace.NewTraces()
			in.CopyTo(want)
			wantSpan := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			setFlags(wantSpan.Events().At(0).Attributes(), false, false)
			setFlags(wantSpan.Events().At(1).Attributes(), false, false)
			setFlags(wantSpan.Attributes(), false, false)
			require.NoError(t, ptracetest.CompareTraces(want, got))

			var st stats
			in2 := ptrace.NewTraces()
			in.CopyTo(in2)
			processSpan(in2.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0), senderUntrusted, &st)
			assert.Equal(t, stats{seen: 2, untrustedSource: 2, overwritten: 4}, st)
		})
	}
}

// TestSourceMatching covers auth subjects, request metadata and combined
// criteria, with the client information the receiver puts in the context.
func TestSourceMatching(t *testing.T) {
	subjectSource := TrustedSource{AuthSubjects: []string{"verifier@ci", "grader@ci"}}
	metadataSource := TrustedSource{Metadata: map[string]string{"X-Hangar-Source": "verifier"}}
	combined := TrustedSource{
		ResourceAttributes: map[string]string{"service.name": verifier},
		AuthSubjects:       []string{"verifier@ci"},
	}
	withAuth := func(a authData) context.Context {
		return client.NewContext(context.Background(), client.Info{Auth: a})
	}
	withMetadata := func(md map[string][]string) context.Context {
		return client.NewContext(context.Background(), client.Info{Metadata: client.NewMetadata(md)})
	}
	agent := []attr{{"service.name", "agent"}}

	tests := []struct {
		name          string
		sources       []TrustedSource
		authAttribute string
		ctx           context.Context
		resource      []attr
		trusted       bool
	}{
		{name: "subject listed", sources: []TrustedSource{subjectSource}, ctx: withAuth(authData{"subject": "verifier@ci"}), resource: agent, trusted: true},
		{name: "second subject listed", sources: []TrustedSource{subjectSource}, ctx: withAuth(authData{"subject": "grader@ci"}), resource: agent, trusted: true},
		{name: "subject not listed", sources: []TrustedSource{subjectSource}, ctx: withAuth(authData{"subject": "agent@ci"})},
		{name: "subject not a string", sources: []TrustedSource{subjectSource}, ctx: withAuth(authData{"subject": []string{"verifier@ci"}})},
		{name: "no subject attribute", sources: []TrustedSource{subjectSource}, ctx: withAuth(authData{"user": "verifier@ci"})},
		{name: "no auth data", sources: []TrustedSource{subjectSource}, ctx: context.Background()},
		{name: "no auth, trusted resource", sources: []TrustedSource{subjectSource}, ctx: context.Background(), resource: verifierResource()},
		{
			name: "custom auth attribute", sources: []TrustedSource{subjectSource}, authAttribute: "username",
			ctx: withAuth(authData{"username": "verifier@ci", "subject": "agent@ci"}), trusted: true,
		},
		{
			name: "custom auth attribute, only subject set", sources: []TrustedSource{subjectSource}, authAttribute: "username",
			ctx: withAuth(authData{"subject": "verifier@ci"}),
		},
		{name: "metadata matches", sources: []TrustedSource{metadataSource}, ctx: withMetadata(map[string][]string{"x-hangar-source": {"verifier"}}), trusted: true},
		{name: "metadata key case differs", sources: []TrustedSource{metadataSource}, ctx: withMetadata(map[string][]string{"X-HANGAR-SOURCE": {"verifier"}}), trusted: true},
		{name: "metadata other value", sources: []TrustedSource{metadataSource}, ctx: withMetadata(map[string][]string{"x-hangar-source": {"agent"}})},
		{name: "metadata second value forged", sources: []TrustedSource{metadataSource}, ctx: withMetadata(map[string][]string{"x-hangar-source": {"verifier", "agent"}})},
		{name: "metadata missing", sources: []TrustedSource{metadataSource}, ctx: withMetadata(map[string][]string{"other": {"verifier"}})},
		{name: "combined, both match", sources: []TrustedSource{combined}, ctx: withAuth(authData{"subject": "verifier@ci"}), resource: verifierResource(), trusted: true},
		{name: "combined, resource only", sources: []TrustedSource{combined}, ctx: withAuth(authData{"subject": "agent@ci"}), resource: verifierResource()},
		{name: "combined, subject only", sources: []TrustedSource{combined}, ctx: withAuth(authData{"subject": "verifier@ci"}), resource: agent},
		{
			name: "several resource attributes, all match", ctx: context.Background(), trusted: true,
			sources:  []TrustedSource{{ResourceAttributes: map[string]string{"service.name": verifier, "deployment.environment.name": "ci"}}},
			resource: []attr{{"deployment.environment.name", "ci"}, {"service.name", verifier}},
		},
		{
			name: "several resource attributes, one missing", ctx: context.Background(),
			sources:  []TrustedSource{{ResourceAttributes: map[string]string{"service.name": verifier, "deployment.environment.name": "ci"}}},
			resource: verifierResource(),
		},
		{
			name: "second entry matches", ctx: withAuth(authData{"subject": "verifier@ci"}), resource: agent, trusted: true,
			sources: []TrustedSource{{ResourceAttributes: map[string]string{"service.name": verifier}}, subjectSource},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.TrustedSources = tt.sources
			if tt.authAttribute != "" {
				cfg.AuthAttribute = tt.authAttribute
			}
			in := traces(t, tt.resource, span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}})
			got := consume(t, tt.ctx, cfg, in)
			s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			assert.Equal(t, []any{tt.trusted}, flagsOf(s.Events().At(0).Attributes(), keyTrusted))
			assert.Equal(t, []any{tt.trusted}, flagsOf(s.Events().At(0).Attributes(), keyCounted))
			assert.Equal(t, []any{tt.trusted}, flagsOf(s.Attributes(), keyTrusted))
		})
	}
}

func TestTrustAllSources(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.TrustAllSources = true
	in := traces(t, nil, span{name: semconv.SpanJobVerify, events: []event{
		runEvent(runAttrs()...),
		runEvent(runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})...),
	}})
	got := consume(t, context.Background(), cfg, in)
	s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assert.Equal(t, []any{true}, flagsOf(s.Events().At(0).Attributes(), keyCounted))
	assert.Equal(t, []any{false}, flagsOf(s.Events().At(1).Attributes(), keyTrusted))
}

// TestSpanFlags: the span's flags are true only when every test.run on it is.
func TestSpanFlags(t *testing.T) {
	counted := runAttrs()
	trustedOnly := runAttrs(attr{keyComplete, false})
	gate := runAttrs(attr{keyKind, "gate"})
	tests := []struct {
		name      string
		spanAttrs []attr
		events    []event
		trusted   []any // nil: absent
		counted   []any
	}{
		{name: "all counted", events: []event{runEvent(counted...), runEvent(counted...)}, trusted: []any{true}, counted: []any{true}},
		{name: "one not counted", events: []event{runEvent(counted...), runEvent(trustedOnly...)}, trusted: []any{true}, counted: []any{false}},
		{name: "one gate", events: []event{runEvent(counted...), runEvent(gate...), runEvent(trustedOnly...)}, trusted: []any{false}, counted: []any{false}},
		{name: "one malformed", events: []event{runEvent(counted...), runEvent(runAttrs(attr{keyTotal, 1.5})...)}, trusted: []any{false}, counted: []any{false}},
		{
			name:      "forged span flags over a gate run",
			spanAttrs: []attr{{keyTrusted, true}, {keyCounted, true}},
			events:    []event{runEvent(gate...)},
			trusted:   []any{false}, counted: []any{false},
		},
		{name: "no runs, no flags", events: []event{{name: semconv.EventTestCase}}},
		{
			name:      "no runs, forged flags",
			spanAttrs: []attr{{keyTrusted, true}, {keyCounted, "yes"}},
			events:    []event{{name: "exception"}},
			trusted:   []any{false}, counted: []any{false},
		},
		{
			name:      "no runs, repeated forged flag",
			spanAttrs: []attr{{keyTrusted, false}, {dupPrefix + keyTrusted, true}},
			trusted:   []any{false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := traces(t, verifierResource(), span{name: semconv.SpanJobVerify, attrs: tt.spanAttrs, events: tt.events})
			got := consume(t, context.Background(), verifierConfig(), in)
			s := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			assert.Equal(t, tt.trusted, flagsOf(s.Attributes(), keyTrusted))
			assert.Equal(t, tt.counted, flagsOf(s.Attributes(), keyCounted))
			assert.Equal(t, in.SpanCount(), got.SpanCount())
			assert.Equal(t, len(tt.events), s.Events().Len())
		})
	}
}

// TestPassThrough: spans not named in span_names, and events other than
// test.run on our spans, come out as they went in, in order, except that
// every flag the sender put on them is removed; spans and events without
// flags come out byte for byte.
func TestPassThrough(t *testing.T) {
	forged := runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true}, attr{keyCounted, true})
	caseAttrs := []attr{
		{string(semconv.TestCaseNameKey), "pkg.TestX"},
		{string(semconv.TestCaseResultStatusKey), "fail"},
		{keyTrusted, true},
	}
	in := traces(t, []attr{{"service.name", "agent"}},
		span{name: "HTTP GET", attrs: []attr{{keyTrusted, true}, {"http.route", "/items"}}, events: []event{runEvent(forged...)}},
		span{name: semconv.SpanJobVerify, events: []event{
			{name: "exception", attrs: []attr{{"exception.message", "boom"}, {keyTrusted, true}}},
			runEvent(forged...),
			{name: semconv.EventTestCase, attrs: caseAttrs},
			{name: "test.runs", attrs: forged},
			{name: "message", attrs: []attr{{"message.id", int64(1)}}},
		}},
		span{name: "job.verify ", events: []event{runEvent(forged...)}},
		span{name: "JOB.VERIFY", events: []event{runEvent(forged...)}},
		span{name: semconv.SpanTurn, events: []event{runEvent(forged...)}},
		span{name: "", events: []event{runEvent(forged...)}},
		span{name: "GET /health", attrs: []attr{{"http.route", "/health"}}, events: []event{{name: "message"}}},
	)
	// A second resource and scope, both foreign and without flags.
	rs := in.ResourceSpans().AppendEmpty()
	rs.Resource().Attributes().PutStr("service.name", verifier)
	ss := rs.ScopeSpans().AppendEmpty()
	ss.Spans().AppendEmpty().SetName("db.query")
	ss.Spans().AppendEmpty().SetName("session")

	got := consume(t, context.Background(), verifierConfig(), in)

	want := ptrace.NewTraces()
	in.CopyTo(want)
	spans := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for _, i := range []int{0, 2, 3, 4, 5} {
		removeCanonical(spans.At(i).Attributes())
		for j := 0; j < spans.At(i).Events().Len(); j++ {
			removeCanonical(spans.At(i).Events().At(j).Attributes())
		}
	}
	verify := spans.At(1)
	for _, j := range []int{0, 2, 3} {
		removeCanonical(verify.Events().At(j).Attributes())
	}
	setFlags(verify.Events().At(1).Attributes(), false, false)
	setFlags(verify.Attributes(), false, false)
	assertSameTraces(t, want, got)

	// What carried no flag is byte-identical.
	m := ptrace.ProtoMarshaler{}
	gotSpans := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	inSpans := in.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	assert.Equal(t, spanBytes(t, m, inSpans.At(6)), spanBytes(t, m, gotSpans.At(6)))
	assert.Equal(t, eventBytes(t, m, inSpans.At(1).Events().At(4)), eventBytes(t, m, gotSpans.At(1).Events().At(4)))
	a, err := m.MarshalTraces(tracesOf(in.ResourceSpans().At(1)))
	require.NoError(t, err)
	b, err := m.MarshalTraces(tracesOf(got.ResourceSpans().At(1)))
	require.NoError(t, err)
	assert.Equal(t, a, b)
}

// removeCanonical removes the canonical flag keys, as the processor does on
// what is not its own.
func removeCanonical(m pcommon.Map) {
	m.RemoveIf(func(k string, _ pcommon.Value) bool { return k == keyTrusted || k == keyCounted })
}

func tracesOf(rs ptrace.ResourceSpans) ptrace.Traces {
	td := ptrace.NewTraces()
	rs.CopyTo(td.ResourceSpans().AppendEmpty())
	return td
}

func spanBytes(t *testing.T, m ptrace.ProtoMarshaler, s ptrace.Span) []byte {
	t.Helper()
	td := ptrace.NewTraces()
	s.CopyTo(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty())
	b, err := m.MarshalTraces(td)
	require.NoError(t, err)
	return b
}

func eventBytes(t *testing.T, m ptrace.ProtoMarshaler, e ptrace.SpanEvent) []byte {
	t.Helper()
	td := ptrace.NewTraces()
	e.CopyTo(td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().Events().AppendEmpty())
	b, err := m.MarshalTraces(td)
	require.NoError(t, err)
	return b
}

// TestOrderAndCountsPreserved: several resources, scopes and spans, ours and
// foreign, come out in the same order and number, with every event.
func TestOrderAndCountsPreserved(t *testing.T) {
	in := ptrace.NewTraces()
	for r := 0; r < 3; r++ {
		part := traces(t, verifierResource(),
			span{name: "a", events: []event{{name: "e1"}}},
			span{name: semconv.SpanJobProvision, events: []event{runEvent(runAttrs()...)}},
			span{name: "b"},
			span{name: semconv.SpanJobVerify, events: []event{{name: "x"}, runEvent(runAttrs(attr{keyKind, "after_turn"})...), {name: "y"}}},
		)
		part.ResourceSpans().MoveAndAppendTo(in.ResourceSpans())
	}
	got := consume(t, context.Background(), verifierConfig(), in)

	want := ptrace.NewTraces()
	in.CopyTo(want)
	for r := 0; r < 3; r++ {
		spans := want.ResourceSpans().At(r).ScopeSpans().At(0).Spans()
		setFlags(spans.At(1).Events().At(0).Attributes(), true, true)
		setFlags(spans.At(1).Attributes(), true, true)
		setFlags(spans.At(3).Events().At(1).Attributes(), true, true)
		setFlags(spans.At(3).Attributes(), true, true)
	}
	require.NoError(t, ptracetest.CompareTraces(want, got))
	assert.Equal(t, 12, got.SpanCount())
}

// TestSpanNames: only the configured names are processed; the flags of the
// others are removed.
func TestSpanNames(t *testing.T) {
	cfg := verifierConfig()
	cfg.SpanNames = []string{"check", "a-very-long-span-name-that-is-longer-than-sixty-four-bytes-in-total"}
	forged := runAttrs(attr{keyKind, "gate"}, attr{keyTrusted, true})
	in := traces(t, verifierResource(),
		span{name: "check", events: []event{runEvent(forged...)}},
		span{name: semconv.SpanJobVerify, events: []event{runEvent(forged...)}},
		span{name: cfg.SpanNames[1], events: []event{runEvent(forged...)}},
		span{name: cfg.SpanNames[1] + "!", events: []event{runEvent(forged...)}},
	)
	got := consume(t, context.Background(), cfg, in)
	spans := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i, want := range [][]any{{false}, nil, {false}, nil} {
		assert.Equal(t, want, flagsOf(spans.At(i).Events().At(0).Attributes(), keyTrusted), "span %d", i)
	}
}

func TestNameSet(t *testing.T) {
	long := "x123456789012345678901234567890123456789012345678901234567890123456789"
	s := newNameSet([]string{"job.verify", "job.provision", long})
	for name, want := range map[string]bool{
		"job.verify": true, "job.provision": true, long: true,
		"job.verifx": false, "": false, "job": false, long + "x": false, long[:63]: false, long[:64]: false,
	} {
		assert.Equal(t, want, s.has(name), name)
	}
	short := newNameSet([]string{"a"})
	assert.False(t, short.has(long))
}
