package testresultsprocessor

import (
	"context"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.uber.org/zap"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// Attribute keys as plain strings, for pcommon.Map.
var (
	keyKind     = string(semconv.TestRunKindKey)
	keyGrade    = string(semconv.TestRunGradeKey)
	keyTotal    = string(semconv.TestTotalKey)
	keyComplete = string(semconv.TestCompleteKey)
	keyPassed   = string(semconv.TestPassedKey)
	keyFailed   = string(semconv.TestFailedKey)
	keyErrors   = string(semconv.TestErrorsKey)
	keySkipped  = string(semconv.TestSkippedKey)
	keyFlaky    = string(semconv.TestFlakyCountKey)
	keyTrusted  = string(semconv.TestRunTrustedKey)
	keyCounted  = string(semconv.TestRunCountedKey)
)

type testresultsProcessor struct {
	names     nameSet
	sources   sources
	telemetry *telemetry
	warnings  *clientWarnings
	untrusted *untrustedWarnings
}

// newProcessor builds the processor; logger receives the warnings about
// missing client information and untrusted senders (nil: none are given).
func newProcessor(cfg *Config, tel *telemetry, logger *zap.Logger) *testresultsProcessor {
	return &testresultsProcessor{
		names:     newNameSet(cfg.spanNames()),
		sources:   newSources(cfg),
		telemetry: tel,
		warnings:  newClientWarnings(cfg, logger),
		untrusted: newUntrustedWarnings(cfg, logger),
	}
}

// processTraces recomputes the flags of every test.run event on the spans
// named in span_names or base_span_names, in place, and removes every other
// copy of the flags: on spans not listed and their events, on the events of
// listed spans that are not test.run, on every span link, on every
// instrumentation scope and on every resource. Apart from these attributes,
// nothing is added to, removed from or reordered in any resource, scope,
// span, event or link.
func (p *testresultsProcessor) processTraces(ctx context.Context, td ptrace.Traces) (ptrace.Traces, error) {
	var st stats
	checked := false // the batch's client information, for the warnings
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		rs := rss.At(i)
		// The source is looked at only once a span of ours is found in
		// this resource, so batches of foreign spans never pay for it.
		// It is decided on the resource as the sender sent it: the flags
		// are removed from the resource only after its spans are done.
		sourceKnown, from := false, senderUntrusted
		warnedSource := false // untrusted sender looked at for this resource
		sss := rs.ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			ss := sss.At(j)
			st.removed += removeFlags(ss.Scope().Attributes())
			spans := ss.Spans()
			for k := 0; k < spans.Len(); k++ {
				span := spans.At(k)
				if !p.names.has(span.Name()) {
					st.removed += stripSpan(span)
					continue
				}
				if !sourceKnown {
					from = p.sources.judge(ctx, rs.Resource())
					sourceKnown = true
				}
				if !checked {
					p.warnings.check(ctx)
					checked = true
				}
				untrustedBefore := st.untrustedSource
				processSpan(span, from, &st)
				if st.untrustedSource > untrustedBefore && !warnedSource {
					p.untrusted.check(ctx, rs.Resource())
					warnedSource = true
				}
			}
		}
		st.removed += removeFlags(rs.Resource().Attributes())
	}
	if st != (stats{}) {
		p.telemetry.record(ctx, &st)
	}
	return td, nil
}

// processSpan recomputes every test.run event of span, then the span's own
// flags: true only when every test.run on it is. A span without test.run
// events gets no flags; flags a sender put on it anyway are set to false.
// Event names are compared exactly: an event named Test.Run or "test.run "
// is not a run. Only the canonical flag keys remain: other spellings are
// removed from the span and its runs, and every spelling from its other
// events and its links.
func processSpan(span ptrace.Span, from sender, st *stats) {
	runs := 0
	allTrusted, allCounted := true, true
	events := span.Events()
	for i := 0; i < events.Len(); i++ {
		ev := events.At(i)
		if ev.Name() != semconv.EventTestRun {
			st.removed += removeFlags(ev.Attributes())
			continue
		}
		runs++
		st.removed += removeFlagVariants(ev.Attributes())
		trusted, counted := processRun(ev.Attributes(), from, st)
		allTrusted = allTrusted && trusted
		allCounted = allCounted && counted
	}
	st.removed += stripLinks(span)
	attrs := span.Attributes()
	st.removed += removeFlagVariants(attrs)
	if runs == 0 {
		st.overwritten += overwriteIfPresent(attrs, keyTrusted, false)
		st.overwritten += overwriteIfPresent(attrs, keyCounted, false)
		return
	}
	st.overwritten += putFlag(attrs, keyTrusted, allTrusted)
	st.overwritten += putFlag(attrs, keyCounted, allCounted)
}

// runInputs are the attributes of a test.run event that the rules read.
type runInputs struct {
	kind     testrun.Kind
	grade    string
	counts   [nCounts]int64 // total, passed, failed, errors, skipped, flaky
	complete bool

	nKind, nGrade, nComplete int           // occurrences of each key
	nCounts                  [nCounts]int8 // occurrences of each count key
	bad                      bool          // a present value is mistyped, or the kind unknown

	// The flags as the sender wrote them under the canonical keys: how
	// often, and whether as the bool true. Only a trusted edge's are read.
	nTrusted, nCounted     int
	sentTrusted, sentCount bool
}

// edgeVerdict is the verdict a trusted edge wrote on the run: each flag
// once, as the bool true, or false (fail closed).
func (in *runInputs) edgeVerdict() (trusted, counted bool) {
	return in.nTrusted == 1 && in.sentTrusted, in.nCounted == 1 && in.sentCount
}

// The count attributes of a test.run event, in runInputs.counts order.
const (
	cTotal = iota
	cPassed
	cFailed
	cErrors
	cSkipped
	cFlaky
	nCounts
)

// countIndex returns the position of a count key in runInputs.counts, or -1.
func countIndex(k string) int {
	switch k {
	case keyTotal:
		return cTotal
	case keyPassed:
		return cPassed
	case keyFailed:
		return cFailed
	case keyErrors:
		return cErrors
	case keySkipped:
		return cSkipped
	case keyFlaky:
		return cFlaky
	}
	return -1
}

func readRun(attrs pcommon.Map) runInputs {
	var in runInputs
	attrs.Range(func(k string, v pcommon.Value) bool {
		switch k {
		case keyKind:
			in.nKind++
			if v.Type() != pcommon.ValueTypeStr {
				in.bad = true
				break
			}
			in.kind = testrun.Kind(v.Str())
			if !in.kind.Valid() {
				in.bad = true
			}
		case keyGrade:
			in.nGrade++
			if v.Type() != pcommon.ValueTypeStr {
				in.bad = true
				break
			}
			in.grade = v.Str()
		case keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky:
			i := countIndex(k)
			if in.nCounts[i] < 2 {
				in.nCounts[i]++
			}
			if v.Type() != pcommon.ValueTypeInt {
				in.bad = true
				break
			}
			in.counts[i] = v.Int() // judged by testrun.ValidCounts
		case keyTrusted:
			in.nTrusted++
			in.sentTrusted = v.Type() == pcommon.ValueTypeBool && v.Bool()
		case keyCounted:
			in.nCounted++
			in.sentCount = v.Type() == pcommon.ValueTypeBool && v.Bool()
		case keyComplete:
			in.nComplete++
			if v.Type() != pcommon.ValueTypeBool {
				in.bad = true
				break
			}
			in.complete = v.Bool()
		}
		return true
	})
	return in
}

// flags applies the rules of package testrun to the inputs, failing closed:
// a missing kind, a missing count or complete (absence is never zero), a
// mistyped or repeated attribute, or counts that are not valid
// (testrun.ValidCounts: negative, over testrun.MaxCount, total other than
// passed + failed + errors + skipped, or flaky over total) make the run
// neither trusted nor counted, whatever its kind. malformed reports whether
// any of these was the case.
func (in *runInputs) flags() (trusted, counted, malformed bool) {
	if in.bad || in.nKind != 1 || in.nGrade > 1 || in.nComplete != 1 {
		return false, false, true
	}
	for _, n := range in.nCounts {
		if n != 1 {
			return false, false, true
		}
	}
	if !testrun.ValidCounts(in.counts[cTotal], in.counts[cPassed], in.counts[cFailed],
		in.counts[cErrors], in.counts[cSkipped], in.counts[cFlaky]) {
		return false, false, true
	}
	return testrun.IsTrusted(in.kind, in.grade), testrun.IsCounted(in.kind, in.grade, in.counts[cTotal], in.complete), false
}

// processRun recomputes the flags of one test.run (a span event's or a log
// record's attributes) from its sender: the rules alone for a trusted
// source; the rules and the verdict the edge wrote, both, for a trusted
// edge (a gateway never trusts more than the edge did, nor more than the
// rules allow); false for an untrusted sender.
func processRun(attrs pcommon.Map, from sender, st *stats) (trusted, counted bool) {
	in := readRun(attrs)
	trusted, counted, malformed := in.flags()
	st.seen++
	if malformed {
		st.malformed++
	}
	switch from {
	case senderUntrusted:
		st.untrustedSource++
		trusted, counted = false, false
	case senderEdge:
		st.forwarded++
		edgeTrusted, edgeCounted := in.edgeVerdict()
		trusted = trusted && edgeTrusted
		counted = counted && trusted && edgeCounted
	}
	if trusted {
		st.trusted++
	}
	if counted {
		st.counted++
	}
	st.overwritten += putFlag(attrs, keyTrusted, trusted)
	st.overwritten += putFlag(attrs, keyCounted, counted)
	return trusted, counted
}

// putFlag sets key to v, overwriting what the sender put there, and returns
// how many of the sender's values differed from v: one of another type or
// value, plus every repetition of the key (which is removed, so no reader can
// pick a forged duplicate).
func putFlag(attrs pcommon.Map, key string, v bool) int64 {
	n, differ := flagState(attrs, key, v)
	if n > 1 {
		attrs.RemoveIf(func(k string, _ pcommon.Value) bool { return k == key })
	}
	if n != 1 || differ > 0 {
		attrs.PutBool(key, v)
	}
	return differ
}

// overwriteIfPresent sets key to v only when the sender set it.
func overwriteIfPresent(attrs pcommon.Map, key string, v bool) int64 {
	if _, ok := attrs.Get(key); !ok {
		return 0
	}
	return putFlag(attrs, key, v)
}

// flagState counts the occurrences of key and how many of them are not the
// bool v (every occurrence after the first counts as differing).
func flagState(attrs pcommon.Map, key string, v bool) (n int, differ int64) {
	attrs.Range(func(k string, val pcommon.Value) bool {
		if k != key {
			return true
		}
		n++
		if n > 1 || val.Type() != pcommon.ValueTypeBool || val.Bool() != v {
			differ++
		}
		return true
	})
	return n, differ
}
