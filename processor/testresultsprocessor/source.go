package testresultsprocessor

import (
	"context"
	"slices"

	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/pdata/pcommon"
)

// sources decides whether the sender of a batch is trusted. A source that
// matches no entry is untrusted: nothing it sends can come out trusted. On a
// gateway (forwarded), the entries name the trusted edges, and a match means
// that the edge's verdicts are kept.
type sources struct {
	all           bool
	forwarded     bool
	authAttribute string
	entries       []sourceEntry
}

type keyValue struct{ key, value string }

type sourceEntry struct {
	resource []keyValue
	subjects []string
	metadata []keyValue
}

func newSources(cfg *Config) sources {
	s := sources{all: cfg.TrustAllSources, forwarded: cfg.Tier == TierGateway, authAttribute: cfg.AuthAttribute}
	_, entries := cfg.judged()
	for _, ts := range entries {
		e := sourceEntry{subjects: slices.Clone(ts.AuthSubjects)}
		for _, k := range sortedKeys(ts.ResourceAttributes) {
			e.resource = append(e.resource, keyValue{k, ts.ResourceAttributes[k]})
		}
		for _, k := range sortedKeys(ts.Metadata) {
			e.metadata = append(e.metadata, keyValue{k, ts.Metadata[k]})
		}
		s.entries = append(s.entries, e)
	}
	return s
}

// sender is what the processor knows of the sender of a resource.
type sender uint8

const (
	senderUntrusted sender = iota // matches no entry: nothing comes out trusted
	senderTrusted                 // a trusted source: the rules decide
	senderEdge                    // a trusted edge: its verdicts are kept, within the rules
)

// judge returns what the spans (or logs) of res, received with ctx, come
// from.
func (s *sources) judge(ctx context.Context, res pcommon.Resource) sender {
	switch {
	case !s.trusted(ctx, res):
		return senderUntrusted
	case s.forwarded:
		return senderEdge
	}
	return senderTrusted
}

// trusted reports whether the spans of res, received with ctx, come from a
// trusted source (on a gateway: a trusted edge).
func (s *sources) trusted(ctx context.Context, res pcommon.Resource) bool {
	if s.all {
		return true
	}
	var info client.Info
	loaded := false
	for i := range s.entries {
		e := &s.entries[i]
		if !e.matchResource(res.Attributes()) {
			continue
		}
		if len(e.subjects) > 0 || len(e.metadata) > 0 {
			if !loaded {
				info = client.FromContext(ctx)
				loaded = true
			}
			if !e.matchClient(info, s.authAttribute) {
				continue
			}
		}
		return true
	}
	return false
}

// matchResource requires every configured key to be present and every
// occurrence of it to be a string with the configured value, so that a
// repeated key cannot smuggle a second value past a reader that keeps the
// other one.
func (e *sourceEntry) matchResource(attrs pcommon.Map) bool {
	for _, want := range e.resource {
		found, ok := false, true
		attrs.Range(func(k string, v pcommon.Value) bool {
			if k != want.key {
				return true
			}
			found = true
			ok = v.Type() == pcommon.ValueTypeStr && v.Str() == want.value
			return ok
		})
		if !found || !ok {
			return false
		}
	}
	return true
}

func (e *sourceEntry) matchClient(info client.Info, authAttribute string) bool {
	if len(e.subjects) > 0 {
		if info.Auth == nil {
			return false
		}
		subject, ok := info.Auth.GetAttribute(authAttribute).(string)
		if !ok || subject == "" || !slices.Contains(e.subjects, subject) {
			return false
		}
	}
	for _, want := range e.metadata {
		values := info.Metadata.Get(want.key)
		if len(values) == 0 {
			return false
		}
		for _, v := range values {
			if v != want.value {
				return false
			}
		}
	}
	return true
}
