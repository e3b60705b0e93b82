package loadgen

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/semconv"
)

// ErrVariant is returned (wrapped) for a variant the generator cannot build.
var ErrVariant = errors.New("loadgen: invalid variant")

// traceIDPrefix starts the trace id of every generated span, so that
// SeqOf can tell them from any other span.
var traceIDPrefix = [8]byte{'l', 'o', 'a', 'd', 'g', 'e', 'n', 1}

// Generator builds spans from a fixed list of variants. Span number seq
// (counted from 0) is always of the same variant, with ids derived from seq,
// so whoever reads the spans back can tell what was sent from the ids alone.
type Generator struct {
	variants  []Variant
	templates []ptrace.Span
	// pick maps seq mod len(pick) to a variant index: each variant appears
	// Weight times, spread evenly.
	pick []int
}

// NewGenerator returns a generator of the given variants (Variants() when
// none are given).
func NewGenerator(variants ...Variant) (*Generator, error) {
	if len(variants) == 0 {
		variants = Variants()
	}
	g := &Generator{variants: variants}
	for i, v := range variants {
		if v.Weight <= 0 || v.Span == "" || v.Service == "" {
			return nil, fmt.Errorf("%w: %q needs a positive weight, a span name and a service", ErrVariant, v.Name)
		}
		tmpl, err := template(v)
		if err != nil {
			return nil, fmt.Errorf("%w: %q: %w", ErrVariant, v.Name, err)
		}
		g.templates = append(g.templates, tmpl)
		for range v.Weight {
			g.pick = append(g.pick, i)
		}
	}
	// Interleave the variants: a fixed stride coprime with len(pick) spreads
	// each variant's slots over the cycle instead of sending them in a row.
	n := len(g.pick)
	stride := 1
	for _, s := range []int{37, 31, 29, 23, 19, 17, 13, 11, 7, 5, 3} {
		if n%s != 0 {
			stride = s
			break
		}
	}
	spread := make([]int, n)
	for i := range n {
		spread[(i*stride)%n] = g.pick[i]
	}
	g.pick = spread
	return g, nil
}

// Variants returns the generator's variants; VariantOf indexes into it.
func (g *Generator) Variants() []Variant { return g.variants }

// VariantOf returns the index of span seq's variant.
func (g *Generator) VariantOf(seq uint64) int {
	return g.pick[seq%uint64(len(g.pick))]
}

// IDs returns the trace and span ids of span seq.
func IDs(seq uint64) (pcommon.TraceID, pcommon.SpanID) {
	var tid pcommon.TraceID
	copy(tid[:8], traceIDPrefix[:])
	binary.BigEndian.PutUint64(tid[8:], seq)
	var sid pcommon.SpanID
	binary.BigEndian.PutUint64(sid[:], seq+1) // never the invalid all-zero id
	return tid, sid
}

// SeqOf returns the number of a generated span, and false for a span the
// generator did not make.
func SeqOf(s ptrace.Span) (uint64, bool) {
	tid, sid := s.TraceID(), s.SpanID()
	if [8]byte(tid[:8]) != traceIDPrefix {
		return 0, false
	}
	seq := binary.BigEndian.Uint64(tid[8:])
	if binary.BigEndian.Uint64(sid[:]) != seq+1 {
		return 0, false
	}
	return seq, true
}

// Traces returns spans first to first+n-1, grouped by service in one
// resource each.
func (g *Generator) Traces(first uint64, n int) ptrace.Traces {
	td := ptrace.NewTraces()
	byService := map[string]ptrace.SpanSlice{}
	now := time.Now()
	start := pcommon.NewTimestampFromTime(now.Add(-50 * time.Millisecond))
	end := pcommon.NewTimestampFromTime(now)
	for i := range n {
		seq := first + uint64(i)
		v := g.VariantOf(seq)
		service := g.variants[v].Service
		spans, ok := byService[service]
		if !ok {
			rs := td.ResourceSpans().AppendEmpty()
			rs.Resource().Attributes().PutStr(string(semconv.ServiceNameKey), service)
			ss := rs.ScopeSpans().AppendEmpty()
			ss.Scope().SetName("github.com/hangar-dev/testresults/e2e/loadgen")
			spans = ss.Spans()
			byService[service] = spans
		}
		s := spans.AppendEmpty()
		g.templates[v].CopyTo(s)
		tid, sid := IDs(seq)
		s.SetTraceID(tid)
		s.SetSpanID(sid)
		s.SetStartTimestamp(start)
		s.SetEndTimestamp(end)
		for e := 0; e < s.Events().Len(); e++ {
			s.Events().At(e).SetTimestamp(end)
		}
	}
	return td
}

// template builds the span of a variant. pcommon.Map cannot hold a key
// twice, but the wire can: a repeated key is written under a unique
// placeholder and renamed in an OTLP/JSON round trip.
func template(v Variant) (ptrace.Span, error) {
	td := ptrace.NewTraces()
	s := td.ResourceSpans().AppendEmpty().ScopeSpans().AppendEmpty().Spans().AppendEmpty()
	s.SetName(v.Span)
	s.SetKind(ptrace.SpanKindInternal)
	n := 0
	put := func(m pcommon.Map, attrs []Attr) error {
		seen := map[string]bool{}
		for _, a := range attrs {
			key := a.Key
			if seen[key] {
				n++
				key = fmt.Sprintf("loadgen-dup-%d~%s", n, a.Key)
			}
			seen[a.Key] = true
			switch x := a.Value.(type) {
			case string:
				m.PutStr(key, x)
			case int64:
				m.PutInt(key, x)
			case float64:
				m.PutDouble(key, x)
			case bool:
				m.PutBool(key, x)
			default:
				return fmt.Errorf("attribute %q: type %T", a.Key, a.Value)
			}
		}
		return nil
	}
	if err := put(s.Attributes(), v.Attrs); err != nil {
		return ptrace.Span{}, err
	}
	for _, e := range v.Events {
		ev := s.Events().AppendEmpty()
		ev.SetName(e.Name)
		if err := put(ev.Attributes(), e.Attrs); err != nil {
			return ptrace.Span{}, err
		}
	}
	if n > 0 {
		b, err := (&ptrace.JSONMarshaler{}).MarshalTraces(td)
		if err != nil {
			return ptrace.Span{}, err
		}
		text := string(b)
		for i := 1; i <= n; i++ {
			text = strings.Replace(text, fmt.Sprintf(`"loadgen-dup-%d~`, i), `"`, 1)
		}
		td, err = (&ptrace.JSONUnmarshaler{}).UnmarshalTraces([]byte(text))
		if err != nil {
			return ptrace.Span{}, err
		}
	}
	out := ptrace.NewSpan()
	td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).CopyTo(out)
	return out, nil
}
