package exporter_test

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/exporter"
)

// TestResolveOTLP is the table of the OTLP variables, generic and per
// signal, for the three signals: the signal's own variable wins over the
// generic one, another signal's is never read, and what cannot be read is
// an error naming the variable.
func TestResolveOTLP(t *testing.T) {
	type want struct {
		protocol exporter.Protocol
		host     string
		path     string
		insecure bool
		headers  map[string]string
		timeout  time.Duration
		gzip     bool
		given    bool
	}
	def := want{protocol: exporter.ProtocolGRPC, host: "localhost:4317", headers: map[string]string{}, timeout: exporter.DefaultTimeout}
	with := func(f func(w *want)) want {
		w := def
		w.headers = map[string]string{}
		f(&w)
		return w
	}
	others := map[exporter.Signal][]exporter.Signal{
		exporter.SignalTraces:  {exporter.SignalMetrics, exporter.SignalLogs},
		exporter.SignalMetrics: {exporter.SignalTraces, exporter.SignalLogs},
		exporter.SignalLogs:    {exporter.SignalTraces, exporter.SignalMetrics},
	}
	for _, sig := range []exporter.Signal{exporter.SignalTraces, exporter.SignalMetrics, exporter.SignalLogs} {
		own := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(string(sig)) + "_"
		path := "/v1/" + string(sig)
		other := "OTEL_EXPORTER_OTLP_" + strings.ToUpper(string(others[sig][0])) + "_"
		cases := []struct {
			name   string
			opts   exporter.OTLPOptions
			env    map[string]string
			want   want
			errKey string // the variable an error names
		}{
			{name: "defaults", want: def},
			{name: "defaults http", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
				want: with(func(w *want) { w.protocol, w.host, w.path = exporter.ProtocolHTTPProtobuf, "localhost:4318", path })},
			{name: "generic endpoint host:port", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4317"},
				want: with(func(w *want) { w.host, w.given = "collector:4317", true })},
			{name: "generic base URL gets the signal's path", env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318/base/", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
				want: with(func(w *want) {
					w.protocol, w.host, w.path, w.insecure, w.given = exporter.ProtocolHTTPProtobuf, "collector:4318", "/base"+path, true, true
				})},
			{name: "own endpoint wins and is used as it is", env: map[string]string{
				"OTEL_EXPORTER_OTLP_ENDPOINT": "http://generic:1", own + "ENDPOINT": "https://own:2/custom",
				"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
				want: with(func(w *want) {
					w.protocol, w.host, w.path, w.given = exporter.ProtocolHTTPProtobuf, "own:2", "/custom", true
				})},
			{name: "own endpoint without a path gets the signal's", env: map[string]string{
				own + "ENDPOINT": "http://own:2", own + "PROTOCOL": "http/protobuf"},
				want: with(func(w *want) {
					w.protocol, w.host, w.path, w.insecure, w.given = exporter.ProtocolHTTPProtobuf, "own:2", path, true, true
				})},
			{name: "another signal's endpoint is not read", env: map[string]string{other + "ENDPOINT": "http://other:9", other + "PROTOCOL": "http/protobuf"},
				want: def},
			{name: "own protocol wins", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf", own + "PROTOCOL": "grpc"},
				want: def},
			{name: "generic headers", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,b=x%20y"},
				want: with(func(w *want) { w.headers = map[string]string{"a": "1", "b": "x y"} })},
			{name: "own headers replace the generic ones", env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", own + "HEADERS": "c=3"},
				want: with(func(w *want) { w.headers = map[string]string{"c": "3"} })},
			{name: "option headers replace both", opts: exporter.OTLPOptions{Headers: map[string]string{"d": "4"}},
				env:  map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1", own + "HEADERS": "c=3"},
				want: with(func(w *want) { w.headers = map[string]string{"d": "4"} })},
			{name: "generic insecure", env: map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "true"},
				want: with(func(w *want) { w.insecure = true })},
			{name: "own insecure wins", env: map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "true", own + "INSECURE": "false"},
				want: def},
			{name: "the URL's scheme wins over insecure", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c:4317", "OTEL_EXPORTER_OTLP_INSECURE": "true"},
				want: with(func(w *want) { w.host, w.given = "c:4317", true })},
			{name: "generic timeout", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500"},
				want: with(func(w *want) { w.timeout = 2500 * time.Millisecond })},
			{name: "own timeout wins", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", own + "TIMEOUT": "700"},
				want: with(func(w *want) { w.timeout = 700 * time.Millisecond })},
			{name: "option timeout wins", opts: exporter.OTLPOptions{Timeout: time.Second}, env: map[string]string{own + "TIMEOUT": "700"},
				want: with(func(w *want) { w.timeout = time.Second })},
			{name: "own compression wins", env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "none", own + "COMPRESSION": "gzip"},
				want: with(func(w *want) { w.gzip = true })},
			{name: "option endpoint of another signal's path", opts: exporter.OTLPOptions{Protocol: exporter.ProtocolHTTPProtobuf, Endpoint: "http://c:4318/v1/" + string(others[sig][1])},
				want: with(func(w *want) {
					w.protocol, w.host, w.path, w.insecure, w.given = exporter.ProtocolHTTPProtobuf, "c:4318", path, true, true
				})},
			{name: "bad generic protocol", env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}, errKey: "OTEL_EXPORTER_OTLP_PROTOCOL"},
			{name: "bad own protocol", env: map[string]string{own + "PROTOCOL": "udp"}, errKey: own + "PROTOCOL"},
			{name: "bad own endpoint", env: map[string]string{own + "ENDPOINT": "ftp://x"}, errKey: own + "ENDPOINT"},
			{name: "bad generic endpoint", env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://"}, errKey: "OTEL_EXPORTER_OTLP_ENDPOINT"},
			{name: "bad own headers", env: map[string]string{own + "HEADERS": "novalue"}, errKey: own + "HEADERS"},
			{name: "bad generic insecure", env: map[string]string{"OTEL_EXPORTER_OTLP_INSECURE": "yes"}, errKey: "OTEL_EXPORTER_OTLP_INSECURE"},
			{name: "bad own timeout", env: map[string]string{own + "TIMEOUT": "soon"}, errKey: own + "TIMEOUT"},
			{name: "timeout over an hour", env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "3600001"}, errKey: "OTEL_EXPORTER_OTLP_TIMEOUT"},
			{name: "bad own compression", env: map[string]string{own + "COMPRESSION": "zstd"}, errKey: own + "COMPRESSION"},
			{name: "bad own certificate", env: map[string]string{own + "CERTIFICATE": "/nonexistent/ca.pem"}, errKey: own + "CERTIFICATE"},
		}
		for _, c := range cases {
			t.Run(string(sig)+"/"+c.name, func(t *testing.T) {
				got, err := exporter.ResolveOTLP(sig, c.opts, envOf(c.env))
				if c.errKey != "" {
					require.ErrorIs(t, err, exporter.ErrConfig)
					assert.Contains(t, err.Error(), c.errKey)
					return
				}
				require.NoError(t, err)
				w := c.want
				assert.Equal(t, sig, got.Signal)
				assert.Equal(t, w.protocol, got.Protocol)
				assert.Equal(t, w.host, got.Host)
				assert.Equal(t, w.path, got.Path)
				assert.Equal(t, w.insecure, got.Insecure)
				assert.Equal(t, w.headers, got.Headers)
				assert.Equal(t, w.timeout, got.Timeout)
				assert.Equal(t, w.gzip, got.Gzip)
				assert.Equal(t, w.given, got.EndpointGiven)
				assert.Equal(t, w.insecure, got.TLS == nil, "TLS only when secure")
			})
		}
	}
	_, err := exporter.ResolveOTLP("profiles", exporter.OTLPOptions{}, noEnv)
	require.ErrorIs(t, err, exporter.ErrConfig)
}
