package testresultsprocessor

import (
	"context"
	"encoding/binary"
	"math"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/collector/processor/processortest"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// fuzzKeys are the keys a fuzzed attribute picks from by index: the keys the
// rules read, the flags and spellings of them, and a few others.
var fuzzKeys = []string{
	keyKind, keyGrade, keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky, keyComplete,
	keyTrusted, keyCounted,
	"Hangar.Test.Run.Trusted", " hangar.test.run.counted", "HANGAR.TEST.RUN.TRUSTED\t",
	"hangar.te\u017ft.run.trusted", "\u00a0hangar.test.run.counted", "hangar.test.run.trusted.by",
	"Hangar.Test.Run.Kind", string(semconv.TestSuiteNameKey),
}

// fuzzInts are counts a fuzzed int attribute picks from by index: the
// bounds of a valid count and of int64.
var fuzzInts = []int64{
	0, 1, 2, 3, -1, testrun.MaxCount, testrun.MaxCount + 1, math.MaxInt64, math.MinInt64, 1 << 62, 1<<62 + 1, math.MaxInt64 - 2,
}

// fuzzStrs are strings a fuzzed string attribute picks from by index.
var fuzzStrs = []string{
	"base", "after_turn", "rerun", "attempt", "setup", "acceptance", "grader", "gate",
	"isolated", "sandboxed", "", "Base", "true", "3",
}

// Attribute types of the fuzz encoding (low three bits of the op byte).
const (
	fzStr = iota
	fzStrPool
	fzInt
	fzIntPool
	fzDouble
	fzBool
	fzBytes
	fzEmpty
)

// fzDup in the op byte asks for the attribute to be added even when its key
// is already there, as a repeated key on the wire.
const fzDup = 0x08

const dupMarker = "\x1edup"

var dupMarkerJSON = regexp.MustCompile(`"\\u001[eE]dup\d+~`)

// fuzzAttr is one decoded attribute.
type fuzzAttr struct {
	key string
	dup bool
	put func(pcommon.Map, string)
}

// decodeAttrs reads attributes from data: a key byte (an index into
// fuzzKeys, or a length and that many raw bytes), an op byte (type and
// fzDup) and the value. At most 64 attributes are read.
func decodeAttrs(data []byte) []fuzzAttr {
	next := func(n int) []byte {
		if n > len(data) {
			n = len(data)
		}
		b := data[:n]
		data = data[n:]
		return b
	}
	byte1 := func() byte {
		if b := next(1); len(b) == 1 {
			return b[0]
		}
		return 0
	}
	var attrs []fuzzAttr
	for len(data) > 0 && len(attrs) < 64 {
		var a fuzzAttr
		if k := int(byte1()); k < len(fuzzKeys) {
			a.key = fuzzKeys[k]
		} else {
			a.key = string(next(int(byte1()) % 48))
		}
		op := byte1()
		a.dup = op&fzDup != 0
		switch op & 7 {
		case fzStr:
			v := string(next(int(byte1()) % 32))
			a.put = func(m pcommon.Map, k string) { m.PutStr(k, v) }
		case fzStrPool:
			v := fuzzStrs[int(byte1())%len(fuzzStrs)]
			a.put = func(m pcommon.Map, k string) { m.PutStr(k, v) }
		case fzInt:
			var buf [8]byte
			copy(buf[:], next(8))
			v := int64(binary.BigEndian.Uint64(buf[:]))
			a.put = func(m pcommon.Map, k string) { m.PutInt(k, v) }
		case fzIntPool:
			v := fuzzInts[int(byte1())%len(fuzzInts)]
			a.put = func(m pcommon.Map, k string) { m.PutInt(k, v) }
		case fzDouble:
			var buf [8]byte
			copy(buf[:], next(8))
			v := math.Float64frombits(binary.BigEndian.Uint64(buf[:]))
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 3 // OTLP/JSON has no NaN or infinity
			}
			a.put = func(m pcommon.Map, k string) { m.PutDouble(k, v) }
		case fzBool:
			v := byte1()&1 == 1
			a.put = func(m pcommon.Map, k string) { m.PutBool(k, v) }
		case fzBytes:
			v := next(int(byte1()) % 16)
			a.put = func(m pcommon.Map, k string) { m.PutEmptyBytes(k).FromRaw(v) }
		case fzEmpty:
			a.put = func(m pcommon.Map, k string) { m.PutEmpty(k) }
		}
		attrs = append(attrs, a)
	}
	return attrs
}

// putFuzzAttrs writes attrs into m; repeated keys get a marker that
// withRepeats turns into the bare key.
func putFuzzAttrs(m pcommon.Map, attrs []fuzzAttr) (repeats bool) {
	for i, a := range attrs {
		k := a.key
		if _, exists := m.Get(k); exists && a.dup {
			k = dupMarker + string(rune('0'+i%10)) + strings.Repeat("0", i/10) + "~" + a.key
			repeats = true
		}
		a.put(m, k)
	}
	return repeats
}

// withRepeats turns marked keys into repeats of the key they carry, through
// OTLP/JSON, which keeps repeated keys as it reads them.
func withRepeats(t *testing.T, td ptrace.Traces) ptrace.Traces {
	b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
	require.NoError(t, err)
	b = dupMarkerJSON.ReplaceAll(b, []byte(`"`))
	out, err := (&ptrace.JSONUnmarshaler{}).UnmarshalTraces(b)
	require.NoError(t, err)
	return out
}

// encodeAttrs is the inverse of decodeAttrs for the seeds: each attribute is
// a key index (or a raw key), an op and a value byte or bytes.
type seedAttr struct {
	key any // int: index into fuzzKeys; string: raw key
	op  byte
	val []byte
}

func encodeAttrs(attrs ...seedAttr) []byte {
	var out []byte
	for _, a := range attrs {
		switch k := a.key.(type) {
		case int:
			out = append(out, byte(k))
		case string:
			out = append(out, 0xff, byte(len(k)))
			out = append(out, k...)
		}
		out = append(out, a.op)
		out = append(out, a.val...)
	}
	return out
}

func keyIndex(k string) int {
	for i, fk := range fuzzKeys {
		if fk == k {
			return i
		}
	}
	panic("no fuzz key " + k)
}

func poolIndex[T comparable](pool []T, v T) byte {
	for i, p := range pool {
		if p == v {
			return byte(i)
		}
	}
	panic("value not in pool")
}

// seedRun encodes a run of the given kind and counts.
func seedRun(kind string, total, passed, failed, errs, skipped, flaky int64, complete bool, extra ...seedAttr) []byte {
	c := byte(0)
	if complete {
		c = 1
	}
	attrs := []seedAttr{
		{keyIndex(keyKind), fzStrPool, []byte{poolIndex(fuzzStrs, kind)}},
		{keyIndex(keyTotal), fzIntPool, []byte{poolIndex(fuzzInts, total)}},
		{keyIndex(keyPassed), fzIntPool, []byte{poolIndex(fuzzInts, passed)}},
		{keyIndex(keyFailed), fzIntPool, []byte{poolIndex(fuzzInts, failed)}},
		{keyIndex(keyErrors), fzIntPool, []byte{poolIndex(fuzzInts, errs)}},
		{keyIndex(keySkipped), fzIntPool, []byte{poolIndex(fuzzInts, skipped)}},
		{keyIndex(keyFlaky), fzIntPool, []byte{poolIndex(fuzzInts, flaky)}},
		{keyIndex(keyComplete), fzBool, []byte{c}},
	}
	return encodeAttrs(append(attrs, extra...)...)
}

// oracle is the README's table of what a run comes out as, computed from
// the attributes the processor was handed.
func oracle(m pcommon.Map, sourceTrusted bool) (trusted, counted bool) {
	type seen struct {
		n int
		v pcommon.Value
	}
	read := map[string]*seen{}
	m.Range(func(k string, v pcommon.Value) bool {
		switch k {
		case keyKind, keyGrade, keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky, keyComplete:
			if read[k] == nil {
				read[k] = &seen{}
			}
			read[k].n++
			read[k].v = v
		}
		return true
	})
	// Mistyped or repeated: neither.
	for k, s := range read {
		if s.n > 1 {
			return false, false
		}
		switch k {
		case keyKind, keyGrade:
			if s.v.Type() != pcommon.ValueTypeStr {
				return false, false
			}
		case keyComplete:
			if s.v.Type() != pcommon.ValueTypeBool {
				return false, false
			}
		default:
			if s.v.Type() != pcommon.ValueTypeInt {
				return false, false
			}
		}
	}
	kind, ok := read[keyKind]
	if !ok || !testrun.Kind(kind.v.Str()).Valid() {
		return false, false
	}
	// A missing count or complete, or counts that are not valid: neither.
	var counts [nCounts]int64
	for i, k := range []string{keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky} {
		s, ok := read[k]
		if !ok {
			return false, false
		}
		counts[i] = s.v.Int()
	}
	complete, ok := read[keyComplete]
	if !ok || !testrun.ValidCounts(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]) {
		return false, false
	}
	if !sourceTrusted {
		return false, false
	}
	grade := ""
	if g, ok := read[keyGrade]; ok {
		grade = g.v.Str()
	}
	trusted = testrun.IsTrusted(testrun.Kind(kind.v.Str()), grade)
	return trusted, trusted && counts[cTotal] > 0 && complete.v.Bool()
}

// withoutFlagSpellings copies m without any spelling of the flags, checked
// independently of spellsFlag.
func withoutFlagSpellings(m pcommon.Map) pcommon.Map {
	out := pcommon.NewMap()
	m.CopyTo(out)
	out.RemoveIf(func(k string, _ pcommon.Value) bool {
		t := strings.TrimSpace(k)
		return strings.EqualFold(t, keyTrusted) || strings.EqualFold(t, keyCounted)
	})
	return out
}

// FuzzProcessRun feeds fuzzed attributes, as a test.run event and the span
// of a listed job.verify span and as an unlisted Job.Verify span, and as the
// resource, the scope and a link of each span, through the processor.
// Invariants: no panic; the listed run ends with exactly one bool trusted
// and counted under the canonical keys and no other spelling; trusted=true
// only when the kind rules hold and the counts are valid, counted=true only
// with valid, bounded counts, total > 0 and complete=true, both exactly as
// the README's table says; the span carries the run's flags; no spelling of
// either flag is left anywhere else (the unlisted span and its event, the
// resource, the scope, the links); and every other attribute is kept, in
// order.
func FuzzProcessRun(f *testing.F) {
	f.Add(seedRun("base", 3, 3, 0, 0, 0, 0, true), true)
	f.Add(seedRun("base", 3, 3, 0, 0, 0, 0, true), false)
	f.Add(seedRun("gate", 3, 3, 0, 0, 0, 0, true,
		seedAttr{keyIndex(keyTrusted), fzBool, []byte{1}},
		seedAttr{keyIndex("Hangar.Test.Run.Trusted"), fzBool, []byte{1}},
		seedAttr{keyIndex(" hangar.test.run.counted"), fzStrPool, []byte{poolIndex(fuzzStrs, "true")}},
	), true)
	f.Add(seedRun("grader", 1, 1, 0, 0, 0, 0, true,
		seedAttr{keyIndex(keyGrade), fzStrPool, []byte{poolIndex(fuzzStrs, "isolated")}},
		seedAttr{keyIndex(keyGrade), fzStrPool | fzDup, []byte{poolIndex(fuzzStrs, "isolated")}},
	), true)
	f.Add(seedRun("after_turn", 1, 1<<62, 1<<62, 1<<62, 1<<62+1, 0, true), true)
	f.Add(seedRun("rerun", testrun.MaxCount, testrun.MaxCount, 0, 0, 0, testrun.MaxCount, true), true)
	f.Add(seedRun("rerun", testrun.MaxCount+1, testrun.MaxCount+1, 0, 0, 0, 0, true), true)
	f.Add(seedRun("setup", 3, 3, 0, 0, 0, 0, true,
		seedAttr{keyIndex(keyKind), fzStrPool | fzDup, []byte{poolIndex(fuzzStrs, "base")}},
		seedAttr{keyIndex(keyTrusted), fzBool, []byte{0}},
		seedAttr{keyIndex(keyTrusted), fzBool | fzDup, []byte{1}},
	), true)
	f.Add(seedRun("acceptance", 3, 2, 1, 0, 0, 0, true,
		seedAttr{keyIndex(keyTotal), fzInt, []byte{0x7f, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
		seedAttr{"hangar.test.run.trusted ", fzBool, []byte{1}},
	), true)
	f.Add([]byte{}, true)

	tel, err := newTelemetry(processortest.NewNopSettings(Type).TelemetrySettings, processortest.NewNopSettings(Type).ID)
	require.NoError(f, err)
	trustedCfg := createDefaultConfig()
	trustedCfg.TrustAllSources = true
	trustedP := newProcessor(trustedCfg, tel, nil)
	untrustedP := newProcessor(verifierConfig(), tel, nil) // the resource below is not the verifier's

	f.Fuzz(func(t *testing.T, data []byte, sourceTrusted bool) {
		attrs := decodeAttrs(data)
		td := ptrace.NewTraces()
		rs := td.ResourceSpans().AppendEmpty()
		repeats := putFuzzAttrs(rs.Resource().Attributes(), attrs)
		ss := rs.ScopeSpans().AppendEmpty()
		putFuzzAttrs(ss.Scope().Attributes(), attrs)
		spans := ss.Spans()
		listed := spans.AppendEmpty()
		listed.SetName(semconv.SpanJobVerify)
		unlisted := spans.AppendEmpty()
		unlisted.SetName("Job.Verify")
		for _, s := range []ptrace.Span{listed, unlisted} {
			ev := s.Events().AppendEmpty()
			ev.SetName(semconv.EventTestRun)
			putFuzzAttrs(ev.Attributes(), attrs)
			putFuzzAttrs(s.Attributes(), attrs)
			putFuzzAttrs(s.Links().AppendEmpty().Attributes(), attrs)
		}
		if repeats {
			td = withRepeats(t, td)
		}
		// Set last, over any service.name the fuzzer wrote: a resource
		// holding it once as "fuzz" never matches the verifier's source.
		td.ResourceSpans().At(0).Resource().Attributes().PutStr(string(semconv.ServiceNameKey), "fuzz")
		in := ptrace.NewTraces()
		td.CopyTo(in)

		p := untrustedP
		if sourceTrusted {
			p = trustedP
		}
		out, err := p.processTraces(context.Background(), td)
		require.NoError(t, err)

		inSpans := in.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		outSpans := out.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
		require.Equal(t, 2, outSpans.Len())

		// The listed run: one bool of each flag under the canonical key,
		// no other spelling.
		run := outSpans.At(0).Events().At(0).Attributes()
		trusted, counted := canonicalFlags(t, run)
		wantTrusted, wantCounted := oracle(inSpans.At(0).Events().At(0).Attributes(), sourceTrusted)
		require.Equal(t, wantTrusted, trusted, "trusted")
		require.Equal(t, wantCounted, counted, "counted")
		if counted {
			requireCountedRun(t, run)
		}

		// Its span: the run's flags, under the canonical keys only.
		st, sc := canonicalFlags(t, outSpans.At(0).Attributes())
		require.Equal(t, trusted, st)
		require.Equal(t, counted, sc)

		// Everywhere else: no spelling of the flags.
		inRS, outRS := in.ResourceSpans().At(0), out.ResourceSpans().At(0)
		foreign := map[string][2]pcommon.Map{
			"resource":             {inRS.Resource().Attributes(), outRS.Resource().Attributes()},
			"scope":                {inRS.ScopeSpans().At(0).Scope().Attributes(), outRS.ScopeSpans().At(0).Scope().Attributes()},
			"unlisted span":        {inSpans.At(1).Attributes(), outSpans.At(1).Attributes()},
			"unlisted span's run":  {inSpans.At(1).Events().At(0).Attributes(), outSpans.At(1).Events().At(0).Attributes()},
			"listed span's link":   {inSpans.At(0).Links().At(0).Attributes(), outSpans.At(0).Links().At(0).Attributes()},
			"unlisted span's link": {inSpans.At(1).Links().At(0).Attributes(), outSpans.At(1).Links().At(0).Attributes()},
		}
		for where, m := range foreign {
			m[1].Range(func(k string, _ pcommon.Value) bool {
				tk := strings.TrimSpace(k)
				require.False(t, strings.EqualFold(tk, keyTrusted) || strings.EqualFold(tk, keyCounted), "%q left on the %s", k, where)
				return true
			})
			// Everything but the flags is kept, in order.
			requireSameOrder(t, withoutFlagSpellings(m[0]), withoutFlagSpellings(m[1]))
		}
		requireSameOrder(t, withoutFlagSpellings(inSpans.At(0).Events().At(0).Attributes()), withoutFlagSpellings(run))
		requireSameOrder(t, withoutFlagSpellings(inSpans.At(0).Attributes()), withoutFlagSpellings(outSpans.At(0).Attributes()))
	})
}

// canonicalFlags requires exactly one bool under each canonical key and no
// other spelling of the flags in m, and returns the two values.
func canonicalFlags(t *testing.T, m pcommon.Map) (trusted, counted bool) {
	t.Helper()
	n := map[string]int{}
	m.Range(func(k string, v pcommon.Value) bool {
		tk := strings.TrimSpace(k)
		if !strings.EqualFold(tk, keyTrusted) && !strings.EqualFold(tk, keyCounted) {
			return true
		}
		require.Contains(t, []string{keyTrusted, keyCounted}, k, "a spelling other than the canonical key is left")
		require.Equal(t, pcommon.ValueTypeBool, v.Type(), k)
		n[k]++
		if k == keyTrusted {
			trusted = v.Bool()
		} else {
			counted = v.Bool()
		}
		return true
	})
	require.Equal(t, map[string]int{keyTrusted: 1, keyCounted: 1}, n)
	return trusted, counted
}

// requireCountedRun: a counted run has each count once, as an int, valid
// and bounded (testrun.ValidCounts), total > 0, and complete=true once.
func requireCountedRun(t *testing.T, m pcommon.Map) {
	t.Helper()
	var counts []int64
	for _, k := range []string{keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky} {
		n := 0
		m.Range(func(key string, v pcommon.Value) bool {
			if key == k {
				n++
				require.Equal(t, pcommon.ValueTypeInt, v.Type(), k)
				counts = append(counts, v.Int())
			}
			return true
		})
		require.Equal(t, 1, n, k)
	}
	require.True(t, testrun.ValidCounts(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]), "counts %v", counts)
	require.Positive(t, counts[0])
	c, ok := m.Get(keyComplete)
	require.True(t, ok)
	require.Equal(t, pcommon.ValueTypeBool, c.Type())
	require.True(t, c.Bool())
}

// requireSameOrder requires the same keys in the same order, with the same
// values, repeated keys included (which pcommon.Map.Equal does not compare
// one by one).
func requireSameOrder(t *testing.T, want, got pcommon.Map) {
	t.Helper()
	type kv struct {
		k string
		v pcommon.Value
	}
	list := func(m pcommon.Map) []kv {
		var out []kv
		m.Range(func(k string, v pcommon.Value) bool { out = append(out, kv{k, v}); return true })
		return out
	}
	w, g := list(want), list(got)
	require.Equal(t, len(w), len(g))
	for i := range w {
		require.Equal(t, w[i].k, g[i].k)
		require.True(t, w[i].v.Equal(g[i].v), "value of %q", w[i].k)
	}
}

// TestFuzzEncoding checks the fuzz harness itself: a seed decodes into the
// run it describes, and a repeated key really is repeated after withRepeats.
func TestFuzzEncoding(t *testing.T) {
	build := func(data []byte) pcommon.Map {
		td := ptrace.NewTraces()
		ev := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty().Events().AppendEmpty()
		if putFuzzAttrs(ev.Attributes(), decodeAttrs(data)) {
			td = withRepeats(t, td)
		}
		return td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events().At(0).Attributes()
	}

	counted := build(seedRun("base", 3, 3, 0, 0, 0, 0, true))
	assert.Equal(t, map[string]any{
		keyKind: "base", keyTotal: int64(3), keyPassed: int64(3), keyFailed: int64(0), keyErrors: int64(0),
		keySkipped: int64(0), keyFlaky: int64(0), keyComplete: true,
	}, counted.AsRaw())
	trusted, isCounted := oracle(counted, true)
	assert.True(t, trusted)
	assert.True(t, isCounted)

	repeated := build(seedRun("grader", 1, 1, 0, 0, 0, 0, true,
		seedAttr{keyIndex(keyGrade), fzStrPool, []byte{poolIndex(fuzzStrs, "isolated")}},
		seedAttr{keyIndex(keyGrade), fzStrPool | fzDup, []byte{poolIndex(fuzzStrs, "isolated")}},
	))
	assert.Equal(t, []any{"isolated", "isolated"}, valuesOf(repeated, keyGrade))
	trusted, isCounted = oracle(repeated, true)
	assert.False(t, trusted)
	assert.False(t, isCounted)

	raw := build(encodeAttrs(seedAttr{"hangar.test.run.trusted ", fzBool, []byte{1}}, seedAttr{keyIndex(keyTotal), fzInt, []byte{0x80, 0, 0, 0, 0, 0, 0, 0}}))
	assert.Equal(t, map[string]any{"hangar.test.run.trusted ": true, keyTotal: int64(math.MinInt64)}, raw.AsRaw()) //nolint:gocritic // the key with a space is the point
}

func valuesOf(m pcommon.Map, key string) []any {
	var out []any
	m.Range(func(k string, v pcommon.Value) bool {
		if k == key {
			out = append(out, v.AsRaw())
		}
		return true
	})
	return out
}
