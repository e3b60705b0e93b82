package testresultsreceiver

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/confmap/confmaptest"
)

func loadConfig(t *testing.T, name string) *Config {
	t.Helper()
	cm, err := confmaptest.LoadConf(filepath.Join("testdata", "config.yaml"))
	require.NoError(t, err)
	sub, err := cm.Sub(component.NewIDWithName(Type, name).String())
	require.NoError(t, err)
	cfg := createDefaultConfig()
	require.NoError(t, sub.Unmarshal(cfg))
	return cfg
}

func TestLoadConfig(t *testing.T) {
	minimal := loadConfig(t, "minimal")
	require.NoError(t, minimal.Validate())
	require.True(t, minimal.Watch.HasValue())
	assert.False(t, minimal.HTTP.HasValue(), "http is off unless configured")
	assert.Equal(t, []string{"/var/ci/reports/**"}, minimal.Watch.Get().Include)
	assert.Equal(t, time.Second, minimal.Watch.Get().PollInterval)
	assert.Equal(t, "after_turn", minimal.Kind)
	assert.Equal(t, "span", minimal.Events)
	assert.Nil(t, minimal.Storage)

	full := loadConfig(t, "full")
	require.NoError(t, full.Validate())
	require.NotNil(t, full.Storage)
	assert.Equal(t, "file_storage", full.Storage.String())
	h := full.HTTP.Get()
	require.NotNil(t, h)
	assert.Equal(t, "127.0.0.1:4320", h.NetAddr.Endpoint)
	assert.True(t, h.IncludeMetadata)
	assert.Equal(t, "build-farm", h.SecretSubject)
	assert.Equal(t, int64(DefaultMaxUploadBytes), h.MaxRequestBodySize, "the default body limit stays")
	assert.Equal(t, "acceptance", h.Kind)
	require.Len(t, full.Rules, 1)
	assert.Equal(t, "gate", full.Rules[0].Kind)
	assert.Equal(t, "both", full.Events)
}

// TestValidateNamesTheKey: each refused configuration names its key.
func TestValidateNamesTheKey(t *testing.T) {
	withHTTP := func(f func(*HTTPConfig)) func(*Config) {
		return func(c *Config) {
			h := defaultHTTPConfig()
			f(&h)
			c.HTTP = configoptional.Some(h)
		}
	}
	for _, tc := range []struct {
		name   string
		change func(*Config)
		want   []string
	}{
		{"neither watch nor http", func(c *Config) { c.Watch = configoptional.None[WatchConfig]() }, []string{"neither watch nor http"}},
		{"http without auth or secret", withHTTP(func(*HTTPConfig) {}), []string{"http::auth", "http::secret"}},
		{"short secret", withHTTP(func(h *HTTPConfig) { h.Secret = "short" }), []string{"http::secret"}},
		{"no body limit", withHTTP(func(h *HTTPConfig) { h.Secret = testSecret; h.MaxRequestBodySize = 0 }), []string{"http::max_request_body_size"}},
		{"bad upload kind", withHTTP(func(h *HTTPConfig) { h.Secret = testSecret; h.Kind = "nightly" }), []string{"http::kind"}},
		{"no include", func(c *Config) { c.Watch = configoptional.Some(WatchConfig{PollInterval: time.Second}) }, []string{"watch::include"}},
		{"relative include", func(c *Config) {
			c.Watch = configoptional.Some(WatchConfig{Include: []string{"reports/**"}, PollInterval: time.Second})
		}, []string{"watch::include"}},
		{"bad glob", func(c *Config) {
			c.Watch = configoptional.Some(WatchConfig{Include: []string{"/r/[a"}, PollInterval: time.Second})
		}, []string{"watch::include"}},
		{"zero poll", func(c *Config) {
			c.Watch = configoptional.Some(WatchConfig{Include: []string{"/r/**"}})
		}, []string{"watch::poll_interval"}},
		{"bad kind", func(c *Config) { c.Kind = "nightly" }, []string{"kind"}},
		{"grade without grader", func(c *Config) { c.Grade = "isolated" }, []string{"grade"}},
		{"bad events", func(c *Config) { c.Events = "spans" }, []string{"events"}},
		{"rule without match", func(c *Config) { c.Rules = []Rule{{Sender: Sender{Kind: "gate"}}} }, []string{"rules[0]::match"}},
		{"rule with bad kind", func(c *Config) { c.Rules = []Rule{{Match: []string{"/r/*"}, Sender: Sender{Kind: "x"}}} }, []string{"rules[0]::kind"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := createDefaultConfig()
			cfg.Watch = configoptional.Some(WatchConfig{Include: []string{"/r/**"}, PollInterval: time.Second})
			cfg.HTTP = configoptional.None[HTTPConfig]()
			tc.change(cfg)
			err := cfg.Validate()
			require.Error(t, err)
			for _, w := range tc.want {
				assert.Contains(t, err.Error(), w)
			}
		})
	}
}

// TestHTTPWithoutCredentialsDoesNotStart: a configuration from YAML with
// http but neither auth nor secret fails validation, so the collector does
// not start, and the factory refuses it too.
func TestHTTPWithoutCredentialsDoesNotStart(t *testing.T) {
	cfg := loadConfig(t, "http_without_credentials")
	err := cfg.Validate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http::auth")
	assert.Contains(t, err.Error(), "http::secret")
	_, err = shared(cfg, metadataSettings())
	require.Error(t, err)
}

// TestGlobRoot: the walk starts at the fixed part of each include glob, and
// a root under another is walked once.
func TestGlobRoot(t *testing.T) {
	for pattern, want := range map[string]string{
		"/var/ci/reports/**":          "/var/ci/reports",
		"/srv/farm/*/junit/*.xml":     "/srv/farm",
		"/srv/farm/job-1/junit.xml":   "/srv/farm/job-1",
		"/data/{a,b}/**":              "/data",
		"/**/TEST-RESULTS.json":       "/",
		"/var/ci/reports/ab?/x/*.xml": "/var/ci/reports",
	} {
		assert.Equal(t, want, globRoot(pattern), pattern)
	}
	assert.Equal(t, []string{"/a", "/b/c"}, dedupRoots([]string{"/a/x", "/b/c", "/a", "/a/y/z", "/b/c"}))
	assert.Equal(t, []string{"/"}, dedupRoots([]string{"/a", "/", "/b"}), "the root holds every folder")
	assert.Equal(t, []string{"/a", "/ab"}, dedupRoots([]string{"/ab", "/a"}), "a sibling that shares a prefix is its own root")
}
