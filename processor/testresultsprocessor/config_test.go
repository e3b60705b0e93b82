package testresultsprocessor

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/confmap"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

func loadConfig(t *testing.T, name string) (*Config, error) {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	id := component.NewIDWithName(Type, name)
	require.True(t, cm.IsSet(id.String()), "testdata/config.yaml has no %s", id)
	sub, err := cm.Sub(id.String())
	require.NoError(t, err)
	cfg := NewFactory().CreateDefaultConfig().(*Config)
	if err := sub.Unmarshal(cfg); err != nil {
		return nil, err
	}
	return cfg, nil
}

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name string
		want *Config
	}{
		{
			name: "verifier",
			want: &Config{
				SpanNames:     []string{"job.verify"},
				BaseSpanNames: []string{"job.provision"},
				TrustedSources: []TrustedSource{
					{ResourceAttributes: map[string]string{"service.name": "hangar-verifier", "deployment.environment.name": "ci"}},
					{AuthSubjects: []string{"verifier@ci", "grader@ci"}},
					{Metadata: map[string]string{"x-hangar-source": "verifier"}},
				},
				AuthAttribute: "subject",
				Tier:          TierEdge,
			},
		},
		{
			name: "session",
			want: &Config{
				SpanNames:      []string{"job.verify", "session.turn"},
				BaseSpanNames:  []string{"job.provision"},
				TrustedSources: []TrustedSource{{ResourceAttributes: map[string]string{"service.name": "hangar-verifier"}}},
				AuthAttribute:  "subject",
				Tier:           TierEdge,
			},
		},
		{
			name: "trust_all",
			want: &Config{
				SpanNames:       []string{"job.verify"},
				BaseSpanNames:   []string{"job.provision"},
				TrustAllSources: true,
				AuthAttribute:   "subject",
				Tier:            TierEdge,
			},
		},
		{
			name: "gateway",
			want: &Config{
				SpanNames:     []string{"job.verify"},
				BaseSpanNames: []string{"job.provision"},
				AuthAttribute: "subject",
				Tier:          TierGateway,
				TrustedEdges: []TrustedSource{
					{AuthSubjects: []string{"edge-1", "edge-2"}},
					{Metadata: map[string]string{"authorization": "Bearer edge-token"}},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tt.name)
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg)
			assert.NoError(t, confmap.Validate(cfg))
		})
	}
}

func TestLoadConfigInvalid(t *testing.T) {
	tests := []struct {
		name string
		errs []string
	}{
		{name: "no_sources", errs: []string{
			"trusted_sources: must not be empty (set trust_all_sources: true to trust every sender)",
		}},
		{name: "no_span_names", errs: []string{"span_names: must not be empty"}},
		{name: "bad_span_names", errs: []string{
			"span_names[1]: must not be empty",
			`span_names[2]: "job.verify" repeats span_names[0]`,
			`base_span_names[0]: "job.verify" repeats span_names[0]`,
		}},
		{name: "both", errs: []string{"trust_all_sources: must not be true when trusted_sources is set"}},
		{name: "bad_sources", errs: []string{
			"trusted_sources[1]: must set resource_attributes, auth_subjects or metadata",
			"trusted_sources[2].resource_attributes[service.name]: value must not be empty",
			"trusted_sources[3].auth_subjects[1]: must not be empty",
			"trusted_sources[4].metadata[x-hangar-source]: value must not be empty",
			"auth_attribute: must not be empty",
		}},
		{name: "gateway_trust_all", errs: []string{
			"trust_all_sources: must not be true when tier is gateway: every batch arrives from the edge tier, so it would trust whatever the edges forward; name the edges in trusted_edges",
			"trusted_edges: must not be empty when tier is gateway (the authenticated edge collectors whose verdicts are kept)",
		}},
		{name: "gateway_sources", errs: []string{
			"trusted_sources: must be empty when tier is gateway: the senders are judged on the edge, where the client is known; name the edges in trusted_edges",
		}},
		{name: "gateway_bad_edges", errs: []string{
			"trusted_edges[1].resource_attributes: not allowed: the resource is the original sender's, forwarded unchanged; name the edge by auth_subjects or metadata",
			"trusted_edges[2]: must set auth_subjects or metadata",
			"trusted_edges[3].auth_subjects[0]: must not be empty",
		}},
		{name: "gateway_no_edges", errs: []string{
			"trusted_edges: must not be empty when tier is gateway (the authenticated edge collectors whose verdicts are kept)",
		}},
		{name: "edge_with_edges", errs: []string{
			"trusted_edges: only with tier: gateway (an edge judges its senders by trusted_sources)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := loadConfig(t, tt.name)
			require.NoError(t, err)
			err = confmap.Validate(cfg)
			require.Error(t, err)
			for _, msg := range tt.errs {
				assert.Contains(t, err.Error(), msg)
			}
			assert.Len(t, strings.Split(err.Error(), "\n"), len(tt.errs), err.Error())
		})
	}

	t.Run("bad_tier", func(t *testing.T) {
		_, err := loadConfig(t, "bad_tier")
		require.Error(t, err)
		assert.Contains(t, err.Error(), `tier: "middle" is not edge or gateway`)
	})

	t.Run("unknown_option", func(t *testing.T) {
		_, err := loadConfig(t, "unknown_option")
		require.Error(t, err)
		assert.Contains(t, err.Error(), "trusted_source")
	})
}

func TestDefaultConfig(t *testing.T) {
	cfg := createDefaultConfig()
	assert.NoError(t, componenttest.CheckConfigStruct(cfg))
	assert.Equal(t, []string{"job.verify"}, cfg.SpanNames)
	assert.Equal(t, []string{"job.provision"}, cfg.BaseSpanNames)
	assert.Equal(t, "subject", cfg.AuthAttribute)
	// The default trusts no one, and says so at start-up.
	assert.EqualError(t, cfg.Validate(),
		"trusted_sources: must not be empty (set trust_all_sources: true to trust every sender)")
}
