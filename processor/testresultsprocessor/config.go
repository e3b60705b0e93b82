package testresultsprocessor

import (
	"errors"
	"fmt"
	"sort"

	"github.com/hangar-dev/testresults/semconv"
)

// DefaultAuthAttribute is the client auth attribute that auth_subjects are
// compared with when auth_attribute is not set.
const DefaultAuthAttribute = "subject"

// Config is the configuration of the testresults processor.
type Config struct {
	// SpanNames lists the names of the spans whose test.run events are
	// recomputed. Default: job.verify. Must not be empty.
	SpanNames []string `mapstructure:"span_names"`

	// BaseSpanNames lists the names of the spans that carry a job's base run
	// (its provisioning span); their test.run events are recomputed the same
	// way. Default: job.provision. May be empty.
	BaseSpanNames []string `mapstructure:"base_span_names"`

	// TrustedSources lists the senders whose runs may come out trusted. A
	// source is trusted when at least one entry matches it. It must not be
	// empty unless TrustAllSources is true.
	TrustedSources []TrustedSource `mapstructure:"trusted_sources"`

	// TrustAllSources makes every sender trusted. It must be said explicitly
	// and cannot be combined with TrustedSources.
	TrustAllSources bool `mapstructure:"trust_all_sources"`

	// AuthAttribute is the attribute of the receiver's authenticated client
	// (client.Info.Auth) that auth_subjects are compared with. Default: subject.
	AuthAttribute string `mapstructure:"auth_attribute"`

	// Tier says where in a two-tier deployment the processor runs. TierEdge
	// (the default, also a single collector) receives from the senders and
	// judges them by trusted_sources. TierGateway receives from an edge tier
	// that already judged them: every batch arrives from an edge, so it
	// judges no sender; it keeps the verdicts of the edges that
	// trusted_edges names and forces both flags to false on everything else.
	Tier Tier `mapstructure:"tier"`

	// TrustedEdges lists the edge collectors whose verdicts a gateway keeps,
	// by their authenticated identity: auth_subjects or metadata, never
	// resource attributes (those are the original sender's, forwarded
	// unchanged). Required with tier: gateway, refused otherwise.
	TrustedEdges []TrustedSource `mapstructure:"trusted_edges"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// TrustedSource describes one trusted sender. Every criterion that is set
// must match; at least one must be set.
type TrustedSource struct {
	// ResourceAttributes must all be present on the resource of the spans, as
	// string attributes with exactly these values.
	ResourceAttributes map[string]string `mapstructure:"resource_attributes"`

	// AuthSubjects: the receiver's authenticator must have set the attribute
	// named by auth_attribute to one of these strings.
	AuthSubjects []string `mapstructure:"auth_subjects"`

	// Metadata: the request metadata (receiver option include_metadata: true)
	// must carry every key, with every value of the key equal to the one given
	// here. Keys are case-insensitive.
	Metadata map[string]string `mapstructure:"metadata"`

	// prevent unkeyed literal initialization
	_ struct{}
}

// Tier is where the processor runs in a two-tier deployment.
type Tier string

const (
	// TierEdge receives from the senders and judges them (the default).
	TierEdge Tier = "edge"
	// TierGateway receives from the edge tier and keeps the verdicts of
	// the trusted edges.
	TierGateway Tier = "gateway"
)

// UnmarshalText refuses a tier other than edge and gateway when the
// configuration is read.
func (t *Tier) UnmarshalText(text []byte) error {
	switch v := Tier(text); v {
	case TierEdge, TierGateway:
		*t = v
		return nil
	}
	return fmt.Errorf("tier: %q is not edge or gateway", text)
}

func createDefaultConfig() *Config {
	return &Config{
		SpanNames:     []string{semconv.SpanJobVerify},
		BaseSpanNames: []string{semconv.SpanJobProvision},
		AuthAttribute: DefaultAuthAttribute,
		Tier:          TierEdge,
	}
}

// Validate checks the configuration. Its messages name the YAML keys.
func (cfg *Config) Validate() error {
	var errs []error
	if len(cfg.SpanNames) == 0 {
		errs = append(errs, errors.New("span_names: must not be empty"))
	}
	seen := make(map[string]string, len(cfg.SpanNames)+len(cfg.BaseSpanNames))
	errs = append(errs, checkNames("span_names", cfg.SpanNames, seen)...)
	errs = append(errs, checkNames("base_span_names", cfg.BaseSpanNames, seen)...)

	if cfg.Tier == TierGateway {
		errs = append(errs, cfg.validateGateway()...)
	} else {
		errs = append(errs, cfg.validateEdge()...)
	}

	if cfg.AuthAttribute == "" {
		errs = append(errs, errors.New("auth_attribute: must not be empty"))
	}
	return errors.Join(errs...)
}

// validateEdge checks the sources of a processor that judges its senders.
func (cfg *Config) validateEdge() []error {
	var errs []error
	switch cfg.Tier {
	case TierEdge, "":
	default:
		errs = append(errs, fmt.Errorf("tier: %q is not edge or gateway", cfg.Tier))
	}
	switch {
	case cfg.TrustAllSources && len(cfg.TrustedSources) > 0:
		errs = append(errs, errors.New("trust_all_sources: must not be true when trusted_sources is set"))
	case !cfg.TrustAllSources && len(cfg.TrustedSources) == 0:
		errs = append(errs, errors.New("trusted_sources: must not be empty (set trust_all_sources: true to trust every sender)"))
	}
	for i := range cfg.TrustedSources {
		errs = append(errs, cfg.TrustedSources[i].validate(fmt.Sprintf("trusted_sources[%d]", i))...)
	}
	if len(cfg.TrustedEdges) > 0 {
		errs = append(errs, errors.New("trusted_edges: only with tier: gateway (an edge judges its senders by trusted_sources)"))
	}
	return errs
}

// validateGateway refuses every way a gateway could trust what the edge tier
// forwards without naming the edges: the client it sees is always an edge,
// so trust_all_sources, or a trusted_sources entry, would trust whatever
// any sender got an edge to forward.
func (cfg *Config) validateGateway() []error {
	var errs []error
	if cfg.TrustAllSources {
		errs = append(errs, errors.New("trust_all_sources: must not be true when tier is gateway: "+
			"every batch arrives from the edge tier, so it would trust whatever the edges forward; name the edges in trusted_edges"))
	}
	if len(cfg.TrustedSources) > 0 {
		errs = append(errs, errors.New("trusted_sources: must be empty when tier is gateway: "+
			"the senders are judged on the edge, where the client is known; name the edges in trusted_edges"))
	}
	if len(cfg.TrustedEdges) == 0 {
		errs = append(errs, errors.New("trusted_edges: must not be empty when tier is gateway "+
			"(the authenticated edge collectors whose verdicts are kept)"))
	}
	for i := range cfg.TrustedEdges {
		e := &cfg.TrustedEdges[i]
		path := fmt.Sprintf("trusted_edges[%d]", i)
		if len(e.ResourceAttributes) > 0 {
			errs = append(errs, fmt.Errorf("%s.resource_attributes: not allowed: the resource is the original sender's, "+
				"forwarded unchanged; name the edge by auth_subjects or metadata", path))
			continue
		}
		if len(e.AuthSubjects) == 0 && len(e.Metadata) == 0 {
			errs = append(errs, fmt.Errorf("%s: must set auth_subjects or metadata", path))
			continue
		}
		errs = append(errs, e.validate(path)...)
	}
	return errs
}

// judged returns the entries that decide whether a batch's client is
// trusted, with their key: trusted_sources on an edge, trusted_edges on a
// gateway.
func (cfg *Config) judged() (key string, entries []TrustedSource) {
	if cfg.Tier == TierGateway {
		return "trusted_edges", cfg.TrustedEdges
	}
	return "trusted_sources", cfg.TrustedSources
}

func (s *TrustedSource) validate(path string) []error {
	var errs []error
	if len(s.ResourceAttributes) == 0 && len(s.AuthSubjects) == 0 && len(s.Metadata) == 0 {
		return []error{fmt.Errorf("%s: must set resource_attributes, auth_subjects or metadata", path)}
	}
	for _, k := range sortedKeys(s.ResourceAttributes) {
		if k == "" {
			errs = append(errs, fmt.Errorf("%s.resource_attributes: keys must not be empty", path))
		} else if s.ResourceAttributes[k] == "" {
			errs = append(errs, fmt.Errorf("%s.resource_attributes[%s]: value must not be empty", path, k))
		}
	}
	for i, subject := range s.AuthSubjects {
		if subject == "" {
			errs = append(errs, fmt.Errorf("%s.auth_subjects[%d]: must not be empty", path, i))
		}
	}
	for _, k := range sortedKeys(s.Metadata) {
		if k == "" {
			errs = append(errs, fmt.Errorf("%s.metadata: keys must not be empty", path))
		} else if s.Metadata[k] == "" {
			errs = append(errs, fmt.Errorf("%s.metadata[%s]: value must not be empty", path, k))
		}
	}
	return errs
}

// checkNames refuses empty names and names listed twice, in this list or in
// one checked before with the same seen map.
func checkNames(key string, names []string, seen map[string]string) []error {
	var errs []error
	for i, name := range names {
		at := fmt.Sprintf("%s[%d]", key, i)
		if name == "" {
			errs = append(errs, fmt.Errorf("%s: must not be empty", at))
			continue
		}
		if first, dup := seen[name]; dup {
			errs = append(errs, fmt.Errorf("%s: %q repeats %s", at, name, first))
			continue
		}
		seen[name] = at
	}
	return errs
}

// spanNames is every span name whose test.run events are recomputed.
func (cfg *Config) spanNames() []string {
	return append(append([]string(nil), cfg.SpanNames...), cfg.BaseSpanNames...)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
