package testresultsprocessor

import (
	"strings"
	"unicode/utf8"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

// minFlagKeyLen is the length in bytes of the shortest key that can spell a
// flag. Every spelling of a flag has at least as many bytes as the canonical
// key: each of its characters is one byte, and a case variant or a space is
// one byte or more.
var minFlagKeyLen = min(len(keyTrusted), len(keyCounted))

// Both flag keys begin with h and end with d, letters whose only case
// variants are H and D.
const (
	flagFirst = 'h'
	flagLast  = 'd'
)

// spellsFlag reports whether k spells hangar.test.run.trusted or
// hangar.test.run.counted, ignoring Unicode case (simple folding, as
// strings.EqualFold) and Unicode white space around the key. A reader that
// compares keys loosely would take any of these for the flag.
func spellsFlag(k string) bool {
	if len(k) < minFlagKeyLen || !mayEdge(k[0], flagFirst) || !mayEdge(k[len(k)-1], flagLast) {
		return false
	}
	t := strings.TrimSpace(k)
	return strings.EqualFold(t, keyTrusted) || strings.EqualFold(t, keyCounted)
}

// mayEdge reports whether c can be the first (last) byte of a spelling whose
// first (last) letter is the ASCII lower-case letter: that letter in either
// case, ASCII white space, or a byte of a multi-byte character (white space
// such as U+00A0). It rules out most foreign keys at the cost of two byte
// tests.
func mayEdge(c, letter byte) bool {
	switch {
	case c >= utf8.RuneSelf, c|0x20 == letter:
		return true
	}
	switch c {
	case ' ', '\t', '\n', '\v', '\f', '\r':
		return true
	}
	return false
}

// isFlagVariant reports whether k spells a flag without being its canonical
// key.
func isFlagVariant(k string) bool {
	return k != keyTrusted && k != keyCounted && spellsFlag(k)
}

// flagMatch reports whether k is to be removed: any spelling of a flag, or,
// with keepCanonical, any but the canonical keys.
func flagMatch(k string, keepCanonical bool) bool {
	if keepCanonical {
		return isFlagVariant(k)
	}
	return spellsFlag(k)
}

// removeFlags removes from attrs every spelling of the two flags, the
// canonical keys included, and returns how many attributes it removed.
func removeFlags(attrs pcommon.Map) int64 {
	return removeKeys(attrs, false)
}

// removeFlagVariants removes from attrs every spelling of the two flags but
// the canonical keys, and returns how many attributes it removed.
func removeFlagVariants(attrs pcommon.Map) int64 {
	return removeKeys(attrs, true)
}

// removeKeys removes the attributes that flagMatch, and, inside map values
// (and the maps of slice values) at any depth, every key whose dotted path
// spells a flag (see stripNested). The map is only written when something
// matches, so a clean map costs one pass and no allocation.
func removeKeys(attrs pcommon.Map, keepCanonical bool) int64 {
	var n int64
	nested := false
	attrs.Range(func(k string, v pcommon.Value) bool {
		if flagMatch(k, keepCanonical) {
			n++
		} else if t := v.Type(); (t == pcommon.ValueTypeMap || t == pcommon.ValueTypeSlice) && mayLeadToFlag(k) {
			nested = true
		}
		return true
	})
	if n > 0 {
		attrs.RemoveIf(func(k string, _ pcommon.Value) bool { return flagMatch(k, keepCanonical) })
	}
	if nested {
		attrs.Range(func(k string, v pcommon.Value) bool {
			n += stripNested(strings.TrimSpace(k), v)
			return true
		})
	}
	return n
}

// stripNested removes, from the map v under the dotted path (or the maps
// of the slice v), every key whose path spells a flag, at any depth: a
// backend that flattens maps with "." (as many do) would read
// {"hangar.test.run": {"trusted": true}} as the flag itself. A nested key
// never is the processor's own flag, whatever its spelling. It returns how
// many keys it removed.
func stripNested(path string, v pcommon.Value) int64 {
	if !mayLeadToFlag(path) {
		return 0
	}
	var n int64
	switch v.Type() {
	case pcommon.ValueTypeMap:
		m := v.Map()
		m.RemoveIf(func(k string, _ pcommon.Value) bool {
			if spellsFlag(path + "." + strings.TrimSpace(k)) {
				n++
				return true
			}
			return false
		})
		m.Range(func(k string, v pcommon.Value) bool {
			n += stripNested(path+"."+strings.TrimSpace(k), v)
			return true
		})
	case pcommon.ValueTypeSlice:
		sl := v.Slice()
		for i := 0; i < sl.Len(); i++ {
			n += stripNested(path, sl.At(i))
		}
	}
	return n
}

// mayLeadToFlag reports whether path, followed by "." and more, may spell
// a flag: it is the start of one, up to a ".", ignoring Unicode case as
// spellsFlag does (white space around path aside).
func mayLeadToFlag(path string) bool {
	p := strings.TrimSpace(path)
	return foldPrefixDot(keyTrusted, p) || foldPrefixDot(keyCounted, p)
}

// foldPrefixDot reports whether key begins with prefix and a "." after it,
// rune by rune under Unicode simple folding.
func foldPrefixDot(key, prefix string) bool {
	for _, pr := range prefix {
		r, size := utf8.DecodeRuneInString(key)
		if size == 0 || (r != pr && !strings.EqualFold(string(r), string(pr))) {
			return false
		}
		key = key[size:]
	}
	return strings.HasPrefix(key, ".")
}

// stripSpan removes every spelling of the flags from a span that is not
// listed, from all its events and from its links: only the processor may
// say that a run is trusted, and it says so only on listed spans.
func stripSpan(span ptrace.Span) int64 {
	n := removeFlags(span.Attributes())
	events := span.Events()
	for i := 0; i < events.Len(); i++ {
		n += removeFlags(events.At(i).Attributes())
	}
	return n + stripLinks(span)
}

// stripLinks removes every spelling of the flags from the links of a span,
// listed or not: a link points at another span, and no flag belongs there.
func stripLinks(span ptrace.Span) int64 {
	var n int64
	links := span.Links()
	for i := 0; i < links.Len(); i++ {
		n += removeFlags(links.At(i).Attributes())
	}
	return n
}
