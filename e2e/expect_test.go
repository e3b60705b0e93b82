package e2e

import (
	"fmt"
	"slices"
	"strings"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/e2e/loadgen"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// pipelineRules is what the tests know of a collector's testresults
// processor: the spans it recomputes and the services it trusts. A nil
// pipelineRules is a pipeline without the processor.
type pipelineRules struct {
	listed  map[string]bool
	trusted map[string]bool // service.name values
}

// sampleRules are those of otelcol-testresults.yaml.
var sampleRules = &pipelineRules{
	listed:  map[string]bool{semconv.SpanJobVerify: true, semconv.SpanTurn: true, semconv.SpanJobProvision: true},
	trusted: map[string]bool{loadgen.ServiceVerifier: true},
}

// expectRun computes, from a test.run event's attributes as sent, the flags
// the processor must write, with the rules of package testrun and the
// fail-closed table of the processor's README: a repeated, mistyped or
// out-of-range attribute (or no kind), a missing count or complete, or
// counts that testrun.ValidCounts refuses give false/false; otherwise trust
// follows kind and grade; an untrusted source is never trusted.
func expectRun(attrs []loadgen.Attr, sourceTrusted bool) (trusted, counted bool) {
	countKeys := []string{
		string(semconv.TestTotalKey), string(semconv.TestPassedKey), string(semconv.TestFailedKey),
		string(semconv.TestErrorsKey), string(semconv.TestSkippedKey), string(semconv.TestFlakyCountKey),
	}
	seen := map[string]int{}
	var kind testrun.Kind
	var grade string
	var counts [6]int64
	complete := false
	bad := false
	for _, a := range attrs {
		seen[a.Key]++
		switch a.Key {
		case string(semconv.TestRunKindKey):
			s, ok := a.Value.(string)
			kind = testrun.Kind(s)
			bad = bad || !ok || !kind.Valid()
		case string(semconv.TestRunGradeKey):
			s, ok := a.Value.(string)
			grade = s
			bad = bad || !ok
		case string(semconv.TestCompleteKey):
			b, ok := a.Value.(bool)
			complete = b
			bad = bad || !ok
		default:
			if i := slices.Index(countKeys, a.Key); i >= 0 {
				n, ok := a.Value.(int64)
				counts[i] = n
				bad = bad || !ok || n < 0
			}
		}
	}
	for k, n := range seen {
		if n > 1 && (slices.Contains(countKeys, k) || k == string(semconv.TestRunKindKey) ||
			k == string(semconv.TestRunGradeKey) || k == string(semconv.TestCompleteKey)) {
			bad = true
		}
	}
	if bad || seen[string(semconv.TestRunKindKey)] != 1 || !sourceTrusted {
		return false, false
	}
	trusted = testrun.IsTrusted(kind, grade)
	missing := seen[string(semconv.TestCompleteKey)] != 1
	for _, k := range countKeys {
		missing = missing || seen[k] != 1
	}
	if missing || !testrun.ValidCounts(counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]) {
		return false, false
	}
	return trusted, testrun.IsCounted(kind, grade, counts[0], complete)
}

// flagKey tells whether k is one of the two flags under any spelling that
// differs only in case or surrounding space.
func flagKey(k string) bool {
	n := strings.ToLower(strings.TrimSpace(k))
	return n == keyTrusted || n == keyCounted
}

// attrString is one attribute as "key=type:value", to compare multisets.
func attrString(k string, v pcommon.Value) string {
	return k + "=" + v.Type().String() + ":" + v.AsString()
}

func sentString(a loadgen.Attr) string {
	v := pcommon.NewValueEmpty()
	switch x := a.Value.(type) {
	case string:
		v.SetStr(x)
	case int64:
		v.SetInt(x)
	case float64:
		v.SetDouble(x)
	case bool:
		v.SetBool(x)
	}
	return attrString(a.Key, v)
}

// flagWant is what one attribute list must hold of the exactly spelled
// flags: each nil (absent) or the one bool value.
type flagWant struct {
	recompute        bool // the processor owns the exact keys here
	trusted, counted *bool
	// strip is true behind the processor: no flag but the exact keys it
	// recomputes may arrive, under any spelling.
	strip bool
}

// checkAttrs compares what arrived with what was sent. Every attribute that
// is not a flag arrives exactly as sent (repetitions included). Where the
// processor recomputes (want.recompute), each exact flag key is there once
// with the wanted value, or absent when the wanted value is nil; other
// spellings never arrive. Elsewhere, behind the processor (want.strip), no
// flag arrives under any spelling: only the processor may say a run is
// trusted; without the processor every flag arrives as sent.
func checkAttrs(got pcommon.Map, sent []loadgen.Attr, want flagWant) []string {
	var problems []string
	var gotPlain, gotFlags, sentPlain, sentFlags []string
	exact := map[string][]pcommon.Value{}
	got.Range(func(k string, v pcommon.Value) bool {
		switch {
		case want.recompute && (k == keyTrusted || k == keyCounted):
			exact[k] = append(exact[k], v)
		case flagKey(k):
			gotFlags = append(gotFlags, attrString(k, v))
		default:
			gotPlain = append(gotPlain, attrString(k, v))
		}
		return true
	})
	for _, a := range sent {
		switch {
		case want.recompute && (a.Key == keyTrusted || a.Key == keyCounted):
		case flagKey(a.Key):
			sentFlags = append(sentFlags, sentString(a))
		default:
			sentPlain = append(sentPlain, sentString(a))
		}
	}
	slices.Sort(gotPlain)
	slices.Sort(sentPlain)
	if !slices.Equal(gotPlain, sentPlain) {
		problems = append(problems, fmt.Sprintf("attributes %v, sent %v", gotPlain, sentPlain))
	}
	if want.strip && len(gotFlags) > 0 {
		problems = append(problems, fmt.Sprintf("flags %v arrived where the processor removes every one", gotFlags))
	}
	for _, f := range gotFlags {
		i := slices.Index(sentFlags, f)
		if i < 0 {
			problems = append(problems, fmt.Sprintf("flag %s was not sent", f))
			continue
		}
		sentFlags = slices.Delete(sentFlags, i, i+1)
	}
	if want.recompute {
		for key, w := range map[string]*bool{keyTrusted: want.trusted, keyCounted: want.counted} {
			vs := exact[key]
			switch {
			case w == nil && len(vs) != 0:
				problems = append(problems, fmt.Sprintf("%s: want absent, got %d values", key, len(vs)))
			case w != nil && (len(vs) != 1 || vs[0].Type() != pcommon.ValueTypeBool || vs[0].Bool() != *w):
				var s []string
				for _, v := range vs {
					s = append(s, attrString(key, v))
				}
				problems = append(problems, fmt.Sprintf("%s: want exactly %v, got %v", key, *w, s))
			}
		}
	}
	return problems
}

// runTally counts the runs the processor must have seen.
type runTally struct{ seen, trusted, counted int }

// checkSpan compares a span that arrived with the variant sent and returns
// what differs. rules is nil for a pipeline without the processor, where
// everything arrives exactly as sent.
func checkSpan(s ptrace.Span, service string, v loadgen.Variant, rules *pipelineRules, tally *runTally) []string {
	var problems []string
	if service != v.Service || s.Name() != v.Span {
		problems = append(problems, fmt.Sprintf("service %q span %q, sent %q %q", service, s.Name(), v.Service, v.Span))
	}
	listed := rules != nil && rules.listed[s.Name()]
	if s.Events().Len() != len(v.Events) {
		return append(problems, fmt.Sprintf("%d events, sent %d", s.Events().Len(), len(v.Events)))
	}
	allTrusted, allCounted, runs := true, true, 0
	for i, e := range v.Events {
		ev := s.Events().At(i)
		if ev.Name() != e.Name {
			problems = append(problems, fmt.Sprintf("event %d is %q, sent %q", i, ev.Name(), e.Name))
			continue
		}
		want := flagWant{strip: rules != nil}
		if listed && e.Name == semconv.EventTestRun {
			trusted, counted := expectRun(e.Attrs, rules.trusted[service])
			want = flagWant{recompute: true, trusted: &trusted, counted: &counted, strip: true}
			runs++
			allTrusted = allTrusted && trusted
			allCounted = allCounted && counted
			tally.seen++
			if trusted {
				tally.trusted++
			}
			if counted {
				tally.counted++
			}
		}
		for _, p := range checkAttrs(ev.Attributes(), e.Attrs, want) {
			problems = append(problems, fmt.Sprintf("event %d (%s): %s", i, e.Name, p))
		}
	}
	spanWant := flagWant{strip: rules != nil}
	if listed {
		spanWant.recompute = true
		if runs > 0 {
			spanWant.trusted, spanWant.counted = &allTrusted, &allCounted
		} else {
			// No run: flags the sender put there become false.
			f := false
			for _, a := range v.Attrs {
				switch a.Key {
				case keyTrusted:
					spanWant.trusted = &f
				case keyCounted:
					spanWant.counted = &f
				}
			}
		}
	}
	for _, p := range checkAttrs(s.Attributes(), v.Attrs, spanWant) {
		problems = append(problems, "span: "+p)
	}
	if rules == nil {
		problems = append(problems, exactFlags(s, v)...)
	}
	return problems
}

// exactFlags checks, for a pipeline without the processor, that every flag
// arrived as sent: nothing there may remove or change one.
func exactFlags(s ptrace.Span, v loadgen.Variant) []string {
	var problems []string
	count := func(m pcommon.Map) int {
		n := 0
		m.Range(func(k string, _ pcommon.Value) bool {
			if flagKey(k) {
				n++
			}
			return true
		})
		return n
	}
	sent := func(attrs []loadgen.Attr) int {
		n := 0
		for _, a := range attrs {
			if flagKey(a.Key) {
				n++
			}
		}
		return n
	}
	if count(s.Attributes()) != sent(v.Attrs) {
		problems = append(problems, "span flags changed without the processor")
	}
	for i, e := range v.Events {
		if count(s.Events().At(i).Attributes()) != sent(e.Attrs) {
			problems = append(problems, fmt.Sprintf("event %d flags changed without the processor", i))
		}
	}
	return problems
}
