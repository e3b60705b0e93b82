package testresultsprocessor

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/semconv"
)

// flagSpellings are keys that a loose reader would take for one of the two
// flags: the canonical keys and keys that differ from them only in case or in
// white space around them.
var flagSpellings = []string{
	keyTrusted,
	keyCounted,
	"Hangar.Test.Run.Trusted",
	"HANGAR.TEST.RUN.COUNTED",
	" hangar.test.run.trusted",
	"hangar.test.run.counted ",
	"\thangar.test.run.trusted\n",
	"\u00a0Hangar.Test.Run.Counted\u3000", // no-break space, ideographic space
	"hangar.te\u017ft.run.trusted",        // LATIN SMALL LETTER LONG S folds to s
	"hangar.test.run.trusteD",
}

// notFlags are keys close to the flags that are not spellings of them; they
// pass through untouched.
var notFlags = []string{
	"hangar.test.run.trusted.by",
	"hangar.test.run.trustedx",
	"hangar_test_run_trusted",
	"hangar.test.run",
	"trusted",
	"hangar.test.run.tru sted",
	"\u200bhangar.test.run.trusted", // zero width space is not white space
	"hangar.test.run.trusted\x00",
	"hangar.test.run.kind2",
}

// forgedAttrs interleaves every flag spelling, with values of several types,
// with attributes that must survive.
func forgedAttrs(keep ...attr) []attr {
	var out []attr
	vals := []any{true, "true", int64(1)}
	for i, k := range flagSpellings {
		out = append(out, attr{k, vals[i%len(vals)]})
		if i < len(keep) {
			out = append(out, keep[i])
		}
	}
	if len(keep) > len(flagSpellings) {
		out = append(out, keep[len(flagSpellings):]...)
	}
	for _, k := range notFlags {
		out = append(out, attr{k, true})
	}
	return out
}

// withoutSpellings removes the keys of flagSpellings from m, the way the
// processor is expected to: all of them, or all but the canonical keys.
func withoutSpellings(m pcommon.Map, keepCanonical bool) {
	m.RemoveIf(func(k string, _ pcommon.Value) bool {
		if keepCanonical && (k == keyTrusted || k == keyCounted) {
			return false
		}
		return slices.Contains(flagSpellings, k)
	})
}

// assertNoLooseFlag fails if m holds a key that a case- and space-insensitive
// reader would take for a flag, other than the canonical keys when allowed.
func assertNoLooseFlag(t *testing.T, m pcommon.Map, canonicalAllowed bool, where string) {
	t.Helper()
	m.Range(func(k string, _ pcommon.Value) bool {
		if canonicalAllowed && (k == keyTrusted || k == keyCounted) {
			return true
		}
		tk := strings.TrimSpace(k)
		assert.False(t, strings.EqualFold(tk, keyTrusted) || strings.EqualFold(tk, keyCounted), "%s: %q left", where, k)
		return true
	})
}

// TestStripForeignSpans: on a span whose name is not listed, every spelling
// of the flags is removed from the span and from all its events, whatever
// their names; every other attribute, event and span passes unchanged and in
// order. Span names are compared exactly: a name in another case or with
// spaces around it is not listed.
func TestStripForeignSpans(t *testing.T) {
	for _, name := range []string{
		"Job.Verify", "JOB.VERIFY", "job.verify ", " job.verify", "job.provision\n",
		semconv.SpanTurn, "HTTP GET", "",
	} {
		t.Run(name, func(t *testing.T) {
			keep := []attr{{"http.route", "/items"}, {"job.id", "job-1"}}
			in := traces(t, verifierResource(), span{
				name:  name,
				attrs: forgedAttrs(keep...),
				events: []event{
					runEvent(append(runAttrs(), forgedAttrs()...)...),
					{name: "Test.Run", attrs: append(runAttrs(), forgedAttrs()...)},
					{name: "test.run ", attrs: append(runAttrs(), forgedAttrs()...)},
					{name: "exception", attrs: forgedAttrs(attr{"exception.message", "boom"})},
					{name: semconv.EventTestCase, attrs: forgedAttrs(attr{string(semconv.TestCaseNameKey), "pkg.TestX"})},
					{name: "empty"},
				},
			}, span{name: "db.query", attrs: []attr{{"db.system.name", "sqlite"}}})
			got := consume(t, context.Background(), verifierConfig(), in)

			want := ptrace.NewTraces()
			in.CopyTo(want)
			s := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			withoutSpellings(s.Attributes(), false)
			for i := 0; i < s.Events().Len(); i++ {
				withoutSpellings(s.Events().At(i).Attributes(), false)
			}
			assertSameTraces(t, want, got)

			g := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			assertNoLooseFlag(t, g.Attributes(), false, "span")
			for i := 0; i < g.Events().Len(); i++ {
				assertNoLooseFlag(t, g.Events().At(i).Attributes(), false, "event "+g.Events().At(i).Name())
			}
			for _, k := range notFlags {
				_, ok := g.Attributes().Get(k)
				assert.True(t, ok, "%q must stay", k)
			}
		})
	}
}

// TestListedSpanVariants: on a listed span, only the canonical keys written
// by the processor remain. Spellings in another case or with spaces are
// removed from the span and its test.run events; on its other events
// (test.case, exception, and names that only look like test.run) every
// spelling is removed, and such events are not runs.
func TestListedSpanVariants(t *testing.T) {
	nearMisses := []string{"Test.Run", "TEST.RUN", "test.run ", " test.run", "test.run\t", "test.runs"}
	events := []event{
		runEvent(append(runAttrs(attr{keyKind, "gate"}), forgedAttrs()...)...),
		{name: semconv.EventTestCase, attrs: forgedAttrs(attr{string(semconv.TestCaseNameKey), "pkg.TestX"})},
		{name: "exception", attrs: forgedAttrs(attr{"exception.message", "boom"})},
	}
	for _, n := range nearMisses {
		// A well-formed counted run under a name that is not test.run.
		events = append(events, event{name: n, attrs: append(runAttrs(), forgedAttrs()...)})
	}
	in := traces(t, verifierResource(), span{
		name:   semconv.SpanJobVerify,
		attrs:  forgedAttrs(attr{"job.id", "job-1"}),
		events: events,
	})
	got := consume(t, context.Background(), verifierConfig(), in)

	want := ptrace.NewTraces()
	in.CopyTo(want)
	s := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	for i := 1; i < s.Events().Len(); i++ {
		withoutSpellings(s.Events().At(i).Attributes(), false)
	}
	// The one run, a gate run, is neither trusted nor counted; so is its
	// span. The canonical keys are overwritten where they stand.
	withoutSpellings(s.Events().At(0).Attributes(), true)
	s.Events().At(0).Attributes().PutBool(keyTrusted, false)
	s.Events().At(0).Attributes().PutBool(keyCounted, false)
	withoutSpellings(s.Attributes(), true)
	s.Attributes().PutBool(keyTrusted, false)
	s.Attributes().PutBool(keyCounted, false)
	assertSameTraces(t, want, got)

	g := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	assertNoLooseFlag(t, g.Attributes(), true, "span")
	assert.Equal(t, []any{false}, flagsOf(g.Attributes(), keyTrusted))
	assert.Equal(t, []any{false}, flagsOf(g.Attributes(), keyCounted))
	assertNoLooseFlag(t, g.Events().At(0).Attributes(), true, "test.run")
	assert.Equal(t, []any{false}, flagsOf(g.Events().At(0).Attributes(), keyTrusted))
	assert.Equal(t, []any{false}, flagsOf(g.Events().At(0).Attributes(), keyCounted))
	for i := 1; i < g.Events().Len(); i++ {
		assertNoLooseFlag(t, g.Events().At(i).Attributes(), false, "event "+g.Events().At(i).Name())
	}
}

// TestListedSpanNearMissOnly: a listed span whose only event is named like
// test.run but is not has no run, so it gets no flags of its own; a
// canonical flag the sender put on it is set to false, and a variant is
// removed.
func TestListedSpanNearMissOnly(t *testing.T) {
	tests := []struct {
		name      string
		spanAttrs []attr
		trusted   []any
		counted   []any
	}{
		{name: "no span flags"},
		{name: "variant on span", spanAttrs: []attr{{"Hangar.Test.Run.Trusted", true}}},
		{
			name:      "canonical and variant on span",
			spanAttrs: []attr{{keyTrusted, true}, {" hangar.test.run.trusted", true}, {keyCounted, true}},
			trusted:   []any{false}, counted: []any{false},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := traces(t, verifierResource(), span{
				name:   semconv.SpanJobVerify,
				attrs:  tt.spanAttrs,
				events: []event{{name: "Test.Run", attrs: runAttrs(attr{keyTrusted, true}, attr{keyCounted, true})}},
			})
			got := consume(t, context.Background(), verifierConfig(), in)
			g := got.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
			assertNoLooseFlag(t, g.Attributes(), true, "span")
			assert.Equal(t, tt.trusted, flagsOf(g.Attributes(), keyTrusted))
			assert.Equal(t, tt.counted, flagsOf(g.Attributes(), keyCounted))
			ev := g.Events().At(0)
			assertNoLooseFlag(t, ev.Attributes(), false, "event")
			assert.Equal(t, len(runAttrs()), ev.Attributes().Len(), "the run's own attributes stay")
		})
	}
}

// assertSameTraces compares want and got as pdata, then byte for byte, so
// that the order of attributes, events and spans counts too.
func assertSameTraces(t *testing.T, want, got ptrace.Traces) {
	t.Helper()
	require.NoError(t, ptracetest.CompareTraces(want, got))
	m := &ptrace.ProtoMarshaler{}
	a, err := m.MarshalTraces(want)
	require.NoError(t, err)
	b, err := m.MarshalTraces(got)
	require.NoError(t, err)
	assert.True(t, bytes.Equal(a, b), "same attributes, events and spans, but not in the same order")
}

func TestSpellsFlag(t *testing.T) {
	for _, k := range flagSpellings {
		assert.True(t, spellsFlag(k), "%q", k)
		assert.Equal(t, k != keyTrusted && k != keyCounted, isFlagVariant(k), "%q", k)
	}
	for _, k := range append(notFlags, "", "hangar", keyKind, keyTotal) {
		assert.False(t, spellsFlag(k), "%q", k)
		assert.False(t, isFlagVariant(k), "%q", k)
	}
}

// TestFlagEdges guards the quick test of spellsFlag: both keys begin with h
// and end with d, whose case variants are only H and D; every white space
// character is ASCII or multi-byte; and every rune folding to a letter of
// the keys takes at least one byte, so no spelling is shorter than the key.
func TestFlagEdges(t *testing.T) {
	for _, k := range []string{keyTrusted, keyCounted} {
		assert.Equal(t, byte(flagFirst), k[0], k)
		assert.Equal(t, byte(flagLast), k[len(k)-1], k)
		assert.GreaterOrEqual(t, len(k), minFlagKeyLen)
	}
	for _, letter := range []rune{flagFirst, flagLast} {
		for r := unicode.SimpleFold(letter); r != letter; r = unicode.SimpleFold(r) {
			assert.Less(t, r, rune(utf8.RuneSelf), "%q folds to %q", letter, r)
		}
	}
	for r := rune(0); r < utf8.RuneSelf; r++ {
		if unicode.IsSpace(r) {
			assert.True(t, mayEdge(byte(r), flagFirst), "%q", r)
		}
	}
}
