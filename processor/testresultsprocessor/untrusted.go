package testresultsprocessor

import (
	"context"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.uber.org/zap"

	"github.com/hangar-dev/testresults/testrun"
)

// Bounds of the warnings about untrusted senders: what a sender puts in its
// resource and headers is its own choice, so neither the number of warnings
// nor their length may follow it.
const (
	// maxUntrustedSenders is how many distinct senders one processor
	// instance warns about; one more warning says that later ones are
	// only counted.
	maxUntrustedSenders = 16
	// maxSenderValues is how many occurrences of one key are shown.
	maxSenderValues = 4
	// maxSenderValueRunes clips each value shown.
	maxSenderValueRunes = 64
)

// untrustedWarnings tells the operator, once for each distinct sender, that
// test.run events arrived from a sender that matches no trusted_sources
// entry, naming the values the entries look at (resource attributes, auth
// subject, metadata) as that sender gave them. The runs are still judged
// and come out untrusted; each is counted in runs_untrusted_source.
//
// A sender is told apart by a hash of those values, computed without
// allocating (but for the copy client.Metadata.Get makes of each metadata
// key's values), so that a sender that keeps sending costs no more than
// the hash once it was warned about; after maxUntrustedSenders distinct
// senders the instance stops looking.
type untrustedWarnings struct {
	logger *zap.Logger

	// The values that the entries look at, as in the configuration:
	// resource attribute keys and metadata keys (lower case, as the
	// request metadata is read), sorted, without repetition.
	resourceKeys  []string
	metadataKeys  []string
	authAttribute string // "" when no entry sets auth_subjects
	key           string // trusted_sources, or trusted_edges on a gateway

	seed maphash.Seed
	done atomic.Bool // every warning was given

	mu   sync.Mutex
	seen map[uint64]struct{}
}

func newUntrustedWarnings(cfg *Config, logger *zap.Logger) *untrustedWarnings {
	key, entries := cfg.judged()
	w := &untrustedWarnings{logger: logger, key: key, seed: maphash.MakeSeed(), seen: map[uint64]struct{}{}}
	if logger == nil || cfg.TrustAllSources {
		w.done.Store(true)
		return w
	}
	for _, ts := range entries {
		for k := range ts.ResourceAttributes {
			w.resourceKeys = append(w.resourceKeys, k)
		}
		for k := range ts.Metadata {
			w.metadataKeys = append(w.metadataKeys, strings.ToLower(k))
		}
		if len(ts.AuthSubjects) > 0 {
			w.authAttribute = cfg.AuthAttribute
		}
	}
	slices.Sort(w.resourceKeys)
	w.resourceKeys = slices.Compact(w.resourceKeys)
	slices.Sort(w.metadataKeys)
	w.metadataKeys = slices.Compact(w.metadataKeys)
	return w
}

// check is called once for each resource of a batch whose test.run events
// came out untrusted because of their sender.
func (w *untrustedWarnings) check(ctx context.Context, res pcommon.Resource) {
	if w.done.Load() {
		return
	}
	info := client.FromContext(ctx)
	h := w.hash(info, res.Attributes())

	w.mu.Lock()
	_, warned := w.seen[h]
	last := false
	if !warned {
		w.seen[h] = struct{}{}
		if len(w.seen) >= maxUntrustedSenders {
			w.done.Store(true)
			last = true
		}
	}
	w.mu.Unlock()
	if warned {
		return
	}
	w.logger.Warn("No " + w.key + " entry matched the sender of a test.run, so its runs come out untrusted: " +
		w.describe(info, res.Attributes()) +
		". Each such run is counted in otelcol_processor_testresults_runs_untrusted_source; " +
		"this sender is not named again by this processor.")
	if last {
		w.logger.Warn("Senders matching no " + w.key + " entry were named for " + strconv.Itoa(maxUntrustedSenders) +
			" distinct senders; later ones are only counted in otelcol_processor_testresults_runs_untrusted_source.")
	}
}

// hash sums up the values of the sender that the entries look at, in the
// order describe shows them.
func (w *untrustedWarnings) hash(info client.Info, attrs pcommon.Map) uint64 {
	var h maphash.Hash
	h.SetSeed(w.seed)
	for _, k := range w.resourceKeys {
		h.WriteString(k)
		h.WriteByte(0)
		n := 0
		attrs.Range(func(key string, v pcommon.Value) bool {
			if key != k {
				return true
			}
			n++
			h.WriteByte(byte(v.Type()))
			if v.Type() == pcommon.ValueTypeStr {
				h.WriteString(v.Str())
			} else {
				h.WriteString(v.AsString())
			}
			h.WriteByte(0)
			return n < maxSenderValues
		})
		h.WriteByte(1)
	}
	if w.authAttribute != "" {
		subject, kind := authSubject(info, w.authAttribute)
		h.WriteByte(kind)
		h.WriteString(subject)
		h.WriteByte(1)
	}
	for _, k := range w.metadataKeys {
		for i, v := range info.Metadata.Get(k) {
			if i == maxSenderValues {
				break
			}
			h.WriteString(v)
			h.WriteByte(0)
		}
		h.WriteByte(1)
	}
	return h.Sum64()
}

// Kinds of auth subject, for hash and describe.
const (
	authNone      byte = iota // no auth data, or no such attribute
	authString                // a string
	authNotString             // another type: never matches
)

func authSubject(info client.Info, attribute string) (string, byte) {
	if info.Auth == nil {
		return "", authNone
	}
	switch v := info.Auth.GetAttribute(attribute).(type) {
	case nil:
		return "", authNone
	case string:
		return v, authString
	default:
		return "", authNotString
	}
}

// describe names the sender by the values the entries look at, for
// example
//
//	resource attributes {service.name="gate-agent"}, auth subject none, metadata {x-hangar-source=none}
//
// Each value is redacted, clipped and quoted (control characters escaped),
// so the line is bounded and safe to print whatever the sender sent.
func (w *untrustedWarnings) describe(info client.Info, attrs pcommon.Map) string {
	var parts []string
	if len(w.resourceKeys) > 0 {
		var pairs []string
		for _, k := range w.resourceKeys {
			var values []string
			more := false
			attrs.Range(func(key string, v pcommon.Value) bool {
				if key != k {
					return true
				}
				if len(values) == maxSenderValues {
					more = true
					return false
				}
				if v.Type() == pcommon.ValueTypeStr {
					values = append(values, showValue(k, v.Str()))
				} else {
					values = append(values, "("+strings.ToLower(v.Type().String())+") "+showValue(k, v.AsString()))
				}
				return true
			})
			pairs = append(pairs, showKey(k)+"="+joinValues(values, more))
		}
		parts = append(parts, "resource attributes {"+strings.Join(pairs, ", ")+"}")
	}
	if w.authAttribute != "" {
		label := "auth " + showKey(w.authAttribute)
		switch subject, kind := authSubject(info, w.authAttribute); kind {
		case authNone:
			if info.Auth == nil {
				parts = append(parts, label+" none (no authentication data)")
			} else {
				parts = append(parts, label+" none")
			}
		case authString:
			parts = append(parts, label+" "+showValue(w.authAttribute, subject))
		default:
			parts = append(parts, label+" (not a string)")
		}
	}
	if len(w.metadataKeys) > 0 {
		var pairs []string
		for _, k := range w.metadataKeys {
			all := info.Metadata.Get(k)
			values := make([]string, 0, min(len(all), maxSenderValues))
			for _, v := range all[:min(len(all), maxSenderValues)] {
				values = append(values, showValue(k, v))
			}
			pairs = append(pairs, showKey(k)+"="+joinValues(values, len(all) > maxSenderValues))
		}
		parts = append(parts, "metadata {"+strings.Join(pairs, ", ")+"}")
	}
	return strings.Join(parts, ", ")
}

func joinValues(values []string, more bool) string {
	switch {
	case len(values) == 0:
		return "none"
	case len(values) == 1 && !more:
		return values[0]
	}
	s := "[" + strings.Join(values, ", ")
	if more {
		s += ", …"
	}
	return s + "]"
}

// showKey quotes a configured key only when it needs it.
func showKey(k string) string {
	q := strconv.Quote(k)
	if q[1:len(q)-1] == k && !strings.ContainsAny(k, " ,={}[]") {
		return k
	}
	return q
}

// redactor hides secrets in the values shown (a bearer token in a header, a
// key=value pair whose key looks secret).
var redactor = testrun.NewRedactor(nil)

// showValue redacts, clips and quotes a value of the sender.
func showValue(key, v string) string {
	if pair := key + "=" + v; redactor.Redact(pair) != pair || redactor.Redact(v) != v {
		return testrun.Redacted
	}
	return strconv.Quote(testrun.Clip(v, maxSenderValueRunes))
}
