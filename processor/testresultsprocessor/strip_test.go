package testresultsprocessor

import (
	"bytes"
	"context"
	"fmt"
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

// Where a forged flag can stand in a batch.
const (
	atResource = "resource"
	atScope    = "scope"
	atSpan     = "span"
	atRun      = "test.run event"
	atEvent    = "test.case event"
	atLink     = "link"
)

// forgerySenders are the senders of the forgery tables (spans and logs).
var forgerySenders = []struct {
	name     string
	resource []attr
	trusted  bool
}{
	{"trusted sender", verifierResource(), true},
	{"untrusted sender", []attr{{string(semconv.ServiceNameKey), "agent"}}, false},
}

// TestForgeryTable puts one forged flag, true, under every spelling, at
// every place a batch can carry attributes (resource, scope, span, a
// test.run event, another event, a span link), on listed and unlisted spans,
// from a trusted and an untrusted sender. Only the listed span and its
// test.run event come out with flags, the canonical keys with the value the
// processor computed; every other copy is gone; nothing else changes; and
// the telemetry counts exactly the removal (or the overwrite of a canonical
// key that the processor recomputes).
func TestForgeryTable(t *testing.T) {
	positions := []string{atResource, atScope, atSpan, atRun, atEvent, atLink}
	spanNames := []struct {
		name   string
		listed bool
	}{
		{semconv.SpanJobVerify, true},
		{semconv.SpanJobProvision, true},
		{"Job.Verify", false},
		{semconv.SpanTurn, false},
		{"HTTP GET", false},
	}
	for _, pos := range positions {
		for _, sn := range spanNames {
			for _, sender := range forgerySenders {
				for _, spelling := range flagSpellings {
					name := fmt.Sprintf("%s/%s/%s/%q", pos, sn.name, sender.name, spelling)
					t.Run(name, func(t *testing.T) {
						in := forgeryBatch(t, sender.resource, sn.name)
						putFlagAt(in, pos).PutBool(spelling, true)
						got, st := consumeCounting(t, context.Background(), verifierConfig(), in)

						// The run is base, well formed and complete: the
						// processor's value is the sender's trust.
						v := sender.trusted
						canonical := spelling == keyTrusted || spelling == keyCounted
						recomputedHere := sn.listed && canonical && (pos == atSpan || pos == atRun)

						want := ptrace.NewTraces()
						in.CopyTo(want)
						putFlagAt(want, pos).Remove(spelling)
						if sn.listed {
							s := want.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
							setFlags(s.Attributes(), v, v)
							setFlags(s.Events().At(0).Attributes(), v, v)
						}
						require.NoError(t, ptracetest.CompareTraces(want, got))
						assertFlagsOnlyWhereComputed(t, got, sn.listed, v)

						var wantSt stats
						if sn.listed {
							wantSt.seen = 1
							if v {
								wantSt.trusted, wantSt.counted = 1, 1
							} else {
								wantSt.untrustedSource = 1
							}
						}
						switch {
						case !recomputedHere:
							wantSt.removed = 1
						case !v:
							wantSt.overwritten = 1 // the sender's true, set to false
						}
						assert.Equal(t, wantSt, st)
					})
				}
			}
		}
	}
}

// forgeryBatch is one resource with one scope and one span of the given
// name, carrying a well-formed, complete base run, a test case, and a link,
// each with an attribute of its own and no flag.
func forgeryBatch(t *testing.T, resource []attr, spanName string) ptrace.Traces {
	t.Helper()
	td := traces(t, append(resource, attr{"host.name", "ci-1"}), span{
		name:  spanName,
		attrs: []attr{{string(semconv.JobIDKey), "job-1"}},
		events: []event{
			runEvent(runAttrs()...),
			{name: semconv.EventTestCase, attrs: []attr{{string(semconv.TestCaseNameKey), "pkg.TestX"}}},
		},
	})
	ss := td.ResourceSpans().At(0).ScopeSpans().At(0)
	ss.Scope().Attributes().PutStr("scope.kind", "report")
	link := ss.Spans().At(0).Links().AppendEmpty()
	link.SetTraceID(pcommon.TraceID{9})
	link.SetSpanID(pcommon.SpanID{9})
	link.Attributes().PutStr("link.kind", "parent-run")
	return td
}

// putFlagAt returns the attributes of the batch's place pos.
func putFlagAt(td ptrace.Traces, pos string) pcommon.Map {
	rs := td.ResourceSpans().At(0)
	ss := rs.ScopeSpans().At(0)
	s := ss.Spans().At(0)
	switch pos {
	case atResource:
		return rs.Resource().Attributes()
	case atScope:
		return ss.Scope().Attributes()
	case atSpan:
		return s.Attributes()
	case atRun:
		return s.Events().At(0).Attributes()
	case atEvent:
		return s.Events().At(1).Attributes()
	case atLink:
		return s.Links().At(0).Attributes()
	}
	panic("no place " + pos)
}

// assertFlagsOnlyWhereComputed walks every resource, scope, span, event and
// link of td: no key that a case- and space-insensitive reader would take
// for a flag is left, except, on listed spans and their test.run events,
// each canonical key once with the value v.
func assertFlagsOnlyWhereComputed(t *testing.T, td ptrace.Traces, listed, v bool) {
	t.Helper()
	forEachAttrs(td, func(where string, m pcommon.Map, carrier bool) {
		if carrier && listed {
			assertNoLooseFlag(t, m, true, where)
			assert.Equal(t, []any{v}, flagsOf(m, keyTrusted), where)
			assert.Equal(t, []any{v}, flagsOf(m, keyCounted), where)
			return
		}
		assertNoLooseFlag(t, m, false, where)
	})
}

// forEachAttrs calls f with every attribute map of td; carrier is true for
// the maps that may carry the flags when the span is listed: the span's and
// its test.run events'.
func forEachAttrs(td ptrace.Traces, f func(where string, m pcommon.Map, carrier bool)) {
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		f(atResource, rs.Resource().Attributes(), false)
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			f(atScope, sss.At(j).Scope().Attributes(), false)
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				s := spans.At(k)
				f(atSpan+" "+s.Name(), s.Attributes(), true)
				for e := 0; e < s.Events().Len(); e++ {
					ev := s.Events().At(e)
					f("event "+ev.Name(), ev.Attributes(), ev.Name() == semconv.EventTestRun)
				}
				for l := 0; l < s.Links().Len(); l++ {
					f(atLink, s.Links().At(l).Attributes(), false)
				}
			}
		}
	}
}

// TestSourceDecidedBeforeStripping: the trusted source is decided on the
// resource as the sender sent it, and only then are the flags removed from
// the resource. A resource_attributes entry keyed on a flag's name (a claim
// of the sender, like every resource attribute) still matches; the flag
// itself does not come out.
func TestSourceDecidedBeforeStripping(t *testing.T) {
	cfg := createDefaultConfig()
	cfg.TrustedSources = []TrustedSource{{ResourceAttributes: map[string]string{keyTrusted: "verifier"}}}
	for _, tt := range []struct {
		name     string
		resource []attr
		trusted  bool
	}{
		{name: "matches", resource: []attr{{keyTrusted, "verifier"}}, trusted: true},
		{name: "other value", resource: []attr{{keyTrusted, "agent"}}},
		{name: "other spelling", resource: []attr{{"Hangar.Test.Run.Trusted", "verifier"}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := traces(t, tt.resource, span{name: semconv.SpanJobVerify, events: []event{runEvent(runAttrs()...)}})
			got, st := consumeCounting(t, context.Background(), cfg, in)
			assertFlagsOnlyWhereComputed(t, got, true, tt.trusted)
			assert.Zero(t, got.ResourceSpans().At(0).Resource().Attributes().Len())
			assert.Equal(t, int64(1), st.removed)
		})
	}
}

// TestStripEveryResourceAndScope: flags are removed from every resource and
// scope of a batch, also those without spans or without listed spans, and
// from the links of every span.
func TestStripEveryResourceAndScope(t *testing.T) {
	td := ptrace.NewTraces()
	forged := func(m pcommon.Map) {
		m.PutStr("keep", "me")
		m.PutBool(keyTrusted, true)
		m.PutBool("HANGAR.TEST.RUN.COUNTED", true)
	}
	forged(td.ResourceSpans().AppendEmpty().Resource().Attributes()) // no scope
	rs := td.ResourceSpans().AppendEmpty()
	forged(rs.Resource().Attributes())
	forged(rs.ScopeSpans().AppendEmpty().Scope().Attributes()) // no span
	ss := rs.ScopeSpans().AppendEmpty()
	forged(ss.Scope().Attributes())
	for _, name := range []string{"db.query", semconv.SpanJobVerify} {
		s := ss.Spans().AppendEmpty()
		s.SetName(name)
		for range 2 {
			forged(s.Links().AppendEmpty().Attributes())
		}
	}
	got, st := consumeCounting(t, context.Background(), verifierConfig(), td)

	n := 0
	forEachAttrs(got, func(where string, m pcommon.Map, carrier bool) {
		if carrier {
			return // the spans' own flags: see TestForgeryTable
		}
		n++
		assert.Equal(t, map[string]any{"keep": "me"}, m.AsRaw(), where)
	})
	assert.Equal(t, 2+2+4, n, "resources, scopes, links")
	assert.Equal(t, int64(2*(2+2+4)), st.removed)
}

// TestNestedFlagsRemoved: a flag spelled by the dotted path of nested maps
// (a backend that flattens maps with "." reads {"hangar.test.run":
// {"trusted": true}} as the flag) is removed at any depth, also inside the
// maps of a slice, whatever its case; the canonical top-level key the
// processor writes stays, and nested maps that spell no flag are left
// whole.
func TestNestedFlagsRemoved(t *testing.T) {
	m := pcommon.NewMap()
	m.PutBool(keyTrusted, false)
	m.PutEmptyMap("hangar.test.run").PutBool("trusted", true)
	m.PutEmptyMap("hangar").PutEmptyMap("test").PutEmptyMap("Run").PutStr(" counted", "true")
	deep := m.PutEmptyMap("HANGAR.test")
	deep.PutEmptyMap("run").PutInt("trusted", 1)
	deep.PutStr("kind", "base")
	list := m.PutEmptySlice("Hangar.Test.Run")
	list.AppendEmpty().SetEmptyMap().PutBool("counted", true)
	list.AppendEmpty().SetStr("x")
	other := m.PutEmptyMap("http")
	other.PutStr("route", "/items")
	other.PutEmptyMap("hangar.test.run").PutBool("trusted", true) // http.hangar.test.run.trusted spells no flag

	assert.Equal(t, int64(4), removeFlagVariants(m))

	got, ok := m.Get(keyTrusted)
	require.True(t, ok, "the canonical key stays")
	assert.False(t, got.Bool())
	flat := map[string]bool{}
	var walk func(path string, v pcommon.Value)
	walk = func(path string, v pcommon.Value) {
		switch v.Type() {
		case pcommon.ValueTypeMap:
			v.Map().Range(func(k string, v pcommon.Value) bool { walk(path+"."+k, v); return true })
		case pcommon.ValueTypeSlice:
			for i := 0; i < v.Slice().Len(); i++ {
				walk(path, v.Slice().At(i))
			}
		default:
			flat[strings.TrimPrefix(path, ".")] = true
		}
	}
	m.Range(func(k string, v pcommon.Value) bool { walk("."+k, v); return true })
	for k := range flat {
		if k != keyTrusted {
			assert.False(t, spellsFlag(k), "%q flattens to a flag", k)
		}
	}
	assert.True(t, flat["HANGAR.test.kind"], "what spells no flag stays")
	assert.True(t, flat["http.route"])
	assert.True(t, flat["http.hangar.test.run.trusted"])

	clean := pcommon.NewMap()
	clean.PutEmptyMap("http").PutStr("route", "/")
	clean.PutEmptySlice("ids").AppendEmpty().SetStr("a")
	assert.Zero(t, removeFlags(clean))
	assert.Equal(t, 2, clean.Len())
}
