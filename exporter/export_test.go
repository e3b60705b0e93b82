package exporter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// fixtures are the hand-written runs of the translate golden tests.
const fixtures = "../translate/testdata"

func readRun(t testing.TB, name string) *testrun.Run {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	require.NoError(t, err)
	var r testrun.Run
	require.NoError(t, json.Unmarshal(b, &r))
	return &r
}

// clearOTelEnv keeps the developer's environment out of a test.
func clearOTelEnv(t *testing.T) {
	for _, k := range []string{
		"OTEL_SERVICE_NAME", "OTEL_RESOURCE_ATTRIBUTES", "TRACEPARENT", "TRACESTATE",
		"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_HEADERS",
		"OTEL_EXPORTER_OTLP_TRACES_HEADERS", "OTEL_EXPORTER_OTLP_INSECURE", "OTEL_EXPORTER_OTLP_TRACES_INSECURE",
		"OTEL_EXPORTER_OTLP_TIMEOUT", "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT", "OTEL_EXPORTER_OTLP_COMPRESSION",
		"OTEL_EXPORTER_OTLP_TRACES_COMPRESSION", "OTEL_SPAN_EVENT_COUNT_LIMIT", "OTEL_TRACES_SAMPLER",
	} {
		t.Setenv(k, "")
		require.NoError(t, os.Unsetenv(k))
	}
}

func noEnv(string) string { return "" }

// exportRuns and exportSession are ExportRuns and ExportSession without
// their result.
func exportRuns(ctx context.Context, runs []*testrun.Run, o exporter.Options) error {
	_, err := exporter.ExportRuns(ctx, runs, o)
	return err
}

func exportSession(ctx context.Context, s translate.Session, o exporter.Options) error {
	_, err := exporter.ExportSession(ctx, s, o)
	return err
}

// envOf is an injected environment holding kv.
func envOf(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// poisonEnv sets the process environment to values that would break an
// export that read them, so that a test shows only the injected one is read.
func poisonEnv(t *testing.T) {
	clearOTelEnv(t)
	for k, v := range map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1",
		"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1",
		"OTEL_EXPORTER_OTLP_HEADERS":         "x-team=process",
		"OTEL_EXPORTER_OTLP_INSECURE":        "false",
		"OTEL_EXPORTER_OTLP_TIMEOUT":         "1",
		"OTEL_EXPORTER_OTLP_COMPRESSION":     "zstd",
		"OTEL_EXPORTER_OTLP_PROTOCOL":        "http/json",
		"OTEL_EXPORTER_OTLP_CERTIFICATE":     "/nonexistent/ca.pem",
		"OTEL_RESOURCE_ATTRIBUTES":           "no-equals-sign",
		"OTEL_SERVICE_NAME":                  "process",
		"TRACEPARENT":                        "garbage",
	} {
		t.Setenv(k, v)
	}
}

// exportCases are the export forms: each yields the neutral spans and the
// same export through ExportRuns or ExportSession.
type exportCase struct {
	name   string
	spans  func(t *testing.T, opts ...translate.Option) []translate.Span
	export func(ctx context.Context, t *testing.T, o exporter.Options) error
}

func exportCases() []exportCase {
	job := func(t *testing.T) []*testrun.Run {
		return []*testrun.Run{readRun(t, "failures/run.json"), readRun(t, "errors/run.json"), readRun(t, "coverage/run.json")}
	}
	session := func(t *testing.T) translate.Session {
		return translate.Session{ID: "sess-1", Turns: []translate.Turn{
			{Number: 1, Runs: []*testrun.Run{readRun(t, "session/turn1.json")}},
			{Number: 2, Runs: []*testrun.Run{readRun(t, "session/turn2a.json"), readRun(t, "session/turn2b.json")}},
		}}
	}
	return []exportCase{
		{
			name: "job",
			spans: func(t *testing.T, opts ...translate.Option) []translate.Span {
				s, err := translate.JobSpans(translate.Job{ID: "job-1"}, job(t), opts...)
				require.NoError(t, err)
				return s
			},
			export: func(ctx context.Context, t *testing.T, o exporter.Options) error {
				o.JobID = "job-1"
				return exportRuns(ctx, job(t), o)
			},
		},
		{
			name: "provision with base comparison",
			spans: func(t *testing.T, opts ...translate.Option) []translate.Span {
				opts = append(opts, translate.WithBase(readRun(t, "new_failure/base.json")))
				s, err := translate.JobSpans(translate.Job{ID: "job-2", Provision: true}, []*testrun.Run{readRun(t, "new_failure/run.json")}, opts...)
				require.NoError(t, err)
				return s
			},
			export: func(ctx context.Context, t *testing.T, o exporter.Options) error {
				o.JobID, o.Provision, o.Base = "job-2", true, readRun(t, "new_failure/base.json")
				return exportRuns(ctx, []*testrun.Run{readRun(t, "new_failure/run.json")}, o)
			},
		},
		{
			name: "session",
			spans: func(t *testing.T, opts ...translate.Option) []translate.Span {
				s, err := translate.SessionSpans(session(t), opts...)
				require.NoError(t, err)
				return s
			},
			export: func(ctx context.Context, t *testing.T, o exporter.Options) error {
				return exportSession(ctx, session(t), o)
			},
		},
	}
}

// TestRecordSpans: the SDK records every span in order, with its ids and
// every event, so that the batches of the neutral spans are the batches of
// the recorded ones; what the OTLP senders then deliver is compared with
// translate.Traces in TestExportOverGRPC and TestExportOverHTTP.
func TestRecordSpans(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	res, err := exporter.NewResource(ctx, "", noEnv)
	require.NoError(t, err)
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			spans := c.spans(t)
			ended, err := exporter.RecordSpans(ctx, spans, res)
			require.NoError(t, err)
			require.Len(t, ended, len(spans))
			for i, s := range ended {
				assert.Equal(t, spans[i].SpanID, s.SpanContext().SpanID(), "span %d in order", i)
				assert.Equal(t, spans[i].TraceID, s.SpanContext().TraceID())
				assert.Len(t, s.Events(), len(spans[i].Events))
				assert.Zero(t, s.DroppedEvents())
			}
		})
	}
}

// TestExportDeterministic: exporting the same runs twice writes the same
// bytes.
func TestExportDeterministic(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			var first, second bytes.Buffer
			require.NoError(t, c.export(ctx, t, exporter.Options{Format: exporter.FormatOTLPJSON, Output: &first, Getenv: noEnv}))
			require.NoError(t, c.export(ctx, t, exporter.Options{Format: exporter.FormatOTLPJSON, Output: &second, Getenv: noEnv}))
			require.NotZero(t, first.Len())
			assert.Equal(t, first.String(), second.String())
		})
	}
}

// TestRoundTrip exports with FormatOTel and reads the file back.
func TestRoundTrip(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	res, err := exporter.NewResource(ctx, "", noEnv)
	require.NoError(t, err)
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			require.NoError(t, c.export(ctx, t, exporter.Options{Format: exporter.FormatOTel, Output: &buf, Getenv: noEnv}))
			require.Equal(t, 1, bytes.Count(buf.Bytes(), []byte("\n")), "one line")
			var u ptrace.JSONUnmarshaler
			got, err := u.UnmarshalTraces(buf.Bytes())
			require.NoError(t, err)
			want := translate.Traces(c.spans(t), res)
			require.NoError(t, ptracetest.CompareTraces(want, got))
			assertSameFlags(t, want, got)
		})
	}
}

func TestExportOverGRPC(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	res, err := exporter.NewResource(ctx, "", noEnv)
	require.NoError(t, err)
	for _, c := range exportCases() {
		t.Run(c.name, func(t *testing.T) {
			sink := new(consumertest.TracesSink)
			addr := startReceiver(t, sink)
			o := exporter.Options{OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 10 * time.Second}, Getenv: noEnv}
			require.NoError(t, c.export(ctx, t, o))
			want := translate.Traces(c.spans(t), res)
			got := merge(waitSpans(t, sink, want.SpanCount()))
			require.NoError(t, ptracetest.CompareTraces(want, got))
			assertSameFlags(t, want, got)
		})
	}
}

func TestExportParent(t *testing.T) {
	clearOTelEnv(t)
	const (
		envParent  = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		flagParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00"
	)
	env := map[string]string{"TRACEPARENT": envParent, "TRACESTATE": "congo=t61rcWkgMzE"}
	getenv := func(k string) string { return env[k] }
	run := func(t *testing.T, o exporter.Options) ptrace.Span {
		var buf bytes.Buffer
		o.Format, o.Output = exporter.FormatOTel, &buf
		require.NoError(t, exportRuns(context.Background(), []*testrun.Run{readRun(t, "coverage/run.json")}, o))
		var u ptrace.JSONUnmarshaler
		td, err := u.UnmarshalTraces(buf.Bytes())
		require.NoError(t, err)
		return td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	}
	t.Run("TRACEPARENT and TRACESTATE", func(t *testing.T) {
		s := run(t, exporter.Options{Getenv: getenv})
		assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", s.TraceID().String())
		assert.Equal(t, "00f067aa0ba902b7", s.ParentSpanID().String())
		assert.Equal(t, "congo=t61rcWkgMzE", s.TraceState().AsRaw())
		assert.Equal(t, uint32(0x301), s.Flags())
	})
	t.Run("the flag wins over the environment", func(t *testing.T) {
		s := run(t, exporter.Options{Getenv: getenv, Parent: flagParent})
		assert.Equal(t, "0af7651916cd43dd8448eb211c80319c", s.TraceID().String())
		assert.Equal(t, "b7ad6b7169203331", s.ParentSpanID().String())
		assert.Empty(t, s.TraceState().AsRaw())
		assert.Equal(t, uint32(0x301), s.Flags(), "recorded although the parent is not sampled")
	})
	t.Run("no parent", func(t *testing.T) {
		s := run(t, exporter.Options{Getenv: noEnv})
		assert.True(t, s.ParentSpanID().IsEmpty())
	})
	for _, bad := range []string{"garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7"} {
		t.Run("invalid "+bad, func(t *testing.T) {
			err := exportRuns(context.Background(), []*testrun.Run{readRun(t, "coverage/run.json")},
				exporter.Options{Format: exporter.FormatOTel, Output: &bytes.Buffer{}, Parent: bad})
			require.ErrorIs(t, err, exporter.ErrParent)
			err = exportRuns(context.Background(), []*testrun.Run{readRun(t, "coverage/run.json")},
				exporter.Options{Format: exporter.FormatOTel, Output: &bytes.Buffer{}, Getenv: func(k string) string {
					if k == "TRACEPARENT" {
						return bad
					}
					return ""
				}})
			require.ErrorIs(t, err, exporter.ErrParent)
			assert.Contains(t, err.Error(), "TRACEPARENT")
		})
	}
}

func TestParentFromProcessEnv(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("TRACEPARENT", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	sc, err := exporter.ParentFromEnv(nil)
	require.NoError(t, err)
	assert.True(t, sc.IsRemote())
	assert.Equal(t, "4bf92f3577b34da6a3ce929d0e0e4736", sc.TraceID().String())
}

func TestNewResource(t *testing.T) {
	get := func(res *resource.Resource, k attribute.Key) string {
		v, _ := res.Set().Value(k)
		return v.AsString()
	}
	ctx := context.Background()
	poisonEnv(t) // the process environment is never read when one is given
	for _, tc := range []struct {
		name, flag string
		env        map[string]string
		want       map[attribute.Key]string
	}{
		{name: "default", want: map[attribute.Key]string{semconv.ServiceNameKey: "testresults", "telemetry.sdk.language": "go"}},
		{
			name: "OTEL_RESOURCE_ATTRIBUTES",
			env:  map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attrs,deployment.environment.name=ci,team=a%20b"},
			want: map[attribute.Key]string{semconv.ServiceNameKey: "from-attrs", "deployment.environment.name": "ci", "team": "a b"},
		},
		{
			name: "OTEL_SERVICE_NAME wins over OTEL_RESOURCE_ATTRIBUTES",
			env:  map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attrs", "OTEL_SERVICE_NAME": "from-name"},
			want: map[attribute.Key]string{semconv.ServiceNameKey: "from-name"},
		},
		{
			name: "the flag wins over both", flag: "from-flag",
			env:  map[string]string{"OTEL_RESOURCE_ATTRIBUTES": "service.name=from-attrs", "OTEL_SERVICE_NAME": "from-name"},
			want: map[attribute.Key]string{semconv.ServiceNameKey: "from-flag"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := exporter.NewResource(ctx, tc.flag, envOf(tc.env))
			require.NoError(t, err)
			for k, v := range tc.want {
				assert.Equal(t, v, get(res, k), k)
			}
		})
	}
	for _, bad := range []string{"no-equals-sign", "=value", "k=%zz"} {
		t.Run("malformed "+bad, func(t *testing.T) {
			_, err := exporter.NewResource(ctx, "", envOf(map[string]string{"OTEL_RESOURCE_ATTRIBUTES": bad}))
			require.ErrorIs(t, err, exporter.ErrConfig)
		})
	}
	t.Run("nil reads the process environment", func(t *testing.T) {
		_, err := exporter.NewResource(ctx, "", nil)
		require.ErrorIs(t, err, exporter.ErrConfig, "the poisoned OTEL_RESOURCE_ATTRIBUTES")
	})
}

func TestExportResourceFromEnv(t *testing.T) {
	poisonEnv(t)
	var buf bytes.Buffer
	require.NoError(t, exportRuns(context.Background(), []*testrun.Run{readRun(t, "coverage/run.json")},
		exporter.Options{Format: exporter.FormatOTel, Output: &buf, Getenv: envOf(map[string]string{
			"OTEL_RESOURCE_ATTRIBUTES": "service.name=ignored,host.name=ci-7",
			"OTEL_SERVICE_NAME":        "verify",
		})}))
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(buf.Bytes())
	require.NoError(t, err)
	attrs := td.ResourceSpans().At(0).Resource().Attributes().AsRaw()
	assert.Equal(t, "verify", attrs["service.name"])
	assert.Equal(t, "ci-7", attrs["host.name"])
}

func TestBatches(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	turns := make([]translate.Turn, 12)
	for i := range turns {
		turns[i] = translate.Turn{Number: i + 1, Runs: []*testrun.Run{manyFailures(t, 1000, 512)}}
	}
	spans, err := translate.SessionSpans(translate.Session{ID: "big", Turns: turns})
	require.NoError(t, err)
	res, err := exporter.NewResource(ctx, "", noEnv)
	require.NoError(t, err)
	batches := exporter.Batches(spans, res, exporter.DefaultMaxRequestBytes)
	require.Greater(t, len(batches), 1, "12 turns of 1,000 events do not fit one request")
	n := 0
	var m ptrace.ProtoMarshaler
	for _, b := range batches {
		n += len(b)
		size := m.TracesSize(translate.Traces(b, res))
		assert.LessOrEqual(t, size, exporter.DefaultMaxRequestBytes)
	}
	assert.Equal(t, len(spans), n, "no span lost")
	assert.Len(t, exporter.Batches(spans[:1], res, 10), 1, "a span larger than the limit goes alone")
	assert.Empty(t, exporter.Batches(nil, res, 10))

	// The file form writes the same batches, one line each.
	var buf bytes.Buffer
	require.NoError(t, exportSession(ctx, translate.Session{ID: "big", Turns: turns}, exporter.Options{
		Format: exporter.FormatOTLPJSON, Output: &buf, Getenv: noEnv,
	}))
	assert.Equal(t, len(batches), bytes.Count(buf.Bytes(), []byte("\n")))

	// And all of it arrives through a receiver with its default 4 MiB limit.
	sink := new(consumertest.TracesSink)
	addr := startReceiver(t, sink)
	require.NoError(t, exportSession(ctx, translate.Session{ID: "big", Turns: turns}, exporter.Options{
		OTLP: exporter.OTLPOptions{Endpoint: addr, Insecure: true, Timeout: 20 * time.Second}, Getenv: noEnv,
	}))
	got := waitSpans(t, sink, len(spans))
	assert.Len(t, got, len(batches))
	require.NoError(t, ptracetest.CompareTraces(translate.Traces(spans, res), mergeScopes(got)))
}

// TestGRPCEnvironment: the OTLP settings come from the injected
// environment, the options override it, and the process environment (here
// poisoned with settings that would fail) is never read.
func TestGRPCEnvironment(t *testing.T) {
	ctx := context.Background()
	runs := []*testrun.Run{readRun(t, "coverage/run.json")}
	t.Run("endpoint, headers and compression from the environment", func(t *testing.T) {
		poisonEnv(t)
		sink := new(consumertest.TracesSink)
		addr := startReceiver(t, sink)
		require.NoError(t, exportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://" + addr,
			"OTEL_EXPORTER_OTLP_ENDPOINT":        "http://127.0.0.1:1",
			"OTEL_EXPORTER_OTLP_HEADERS":         "x-team=ci,authorization=Bearer%20t0k",
			"OTEL_EXPORTER_OTLP_COMPRESSION":     "gzip",
			"OTEL_EXPORTER_OTLP_TIMEOUT":         "10000",
		})}))
		waitSpans(t, sink, 1)
		md := client.FromContext(sink.Contexts()[0]).Metadata
		assert.Equal(t, []string{"ci"}, md.Get("x-team"))
		assert.Equal(t, []string{"Bearer t0k"}, md.Get("authorization"))
	})
	t.Run("insecure host:port from OTEL_EXPORTER_OTLP_INSECURE", func(t *testing.T) {
		poisonEnv(t)
		sink := new(consumertest.TracesSink)
		addr := startReceiver(t, sink)
		require.NoError(t, exportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":        addr,
			"OTEL_EXPORTER_OTLP_TRACES_INSECURE": "true",
		})}))
		waitSpans(t, sink, 1)
		md := client.FromContext(sink.Contexts()[0]).Metadata
		assert.Empty(t, md.Get("x-team"), "no header from the process environment")
	})
	t.Run("options override the environment", func(t *testing.T) {
		poisonEnv(t)
		sink := new(consumertest.TracesSink)
		addr := startReceiver(t, sink)
		require.NoError(t, exportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{
			"OTEL_EXPORTER_OTLP_ENDPOINT":    "http://127.0.0.1:1",
			"OTEL_EXPORTER_OTLP_HEADERS":     "x-team=env",
			"OTEL_EXPORTER_OTLP_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_TIMEOUT":     "1",
		}), OTLP: exporter.OTLPOptions{
			Endpoint: addr, Insecure: true, Headers: map[string]string{"x-team": "flag"},
			Timeout: 10 * time.Second, Compression: exporter.CompressionNone,
		}}))
		waitSpans(t, sink, 1)
		md := client.FromContext(sink.Contexts()[0]).Metadata
		assert.Equal(t, []string{"flag"}, md.Get("x-team"))
	})
	t.Run("gzip", func(t *testing.T) {
		clearOTelEnv(t)
		sink := new(consumertest.TracesSink)
		addr := startReceiver(t, sink)
		require.NoError(t, exportRuns(ctx, runs, exporter.Options{Getenv: noEnv, OTLP: exporter.OTLPOptions{
			Endpoint: addr, Insecure: true, Compression: exporter.CompressionGzip,
		}}))
		waitSpans(t, sink, 1)
	})
	for k, v := range map[string]string{
		"OTEL_EXPORTER_OTLP_TIMEOUT":     "10s",
		"OTEL_EXPORTER_OTLP_INSECURE":    "maybe",
		"OTEL_EXPORTER_OTLP_HEADERS":     "no-equals",
		"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd",
		"OTEL_EXPORTER_OTLP_ENDPOINT":    "ftp://host:1",
		"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent/ca.pem",
	} {
		t.Run("unreadable "+k, func(t *testing.T) {
			clearOTelEnv(t)
			err := exportRuns(ctx, runs, exporter.Options{Getenv: envOf(map[string]string{k: v})})
			require.ErrorIs(t, err, exporter.ErrConfig)
			assert.Contains(t, err.Error(), k)
		})
	}
}

func TestExportFails(t *testing.T) {
	clearOTelEnv(t)
	ctx := context.Background()
	runs := []*testrun.Run{readRun(t, "failures/run.json")}
	t.Run("nothing listens", func(t *testing.T) {
		start := time.Now()
		err := exportRuns(ctx, runs, exporter.Options{Getenv: noEnv, OTLP: exporter.OTLPOptions{
			Endpoint: testnet.FreeAddr(t), Insecure: true, Timeout: time.Second,
		}})
		require.Error(t, err)
		assert.True(t, strings.HasPrefix(err.Error(), "exporter: nothing delivered (1 span, 1 run): OTLP/gRPC "), err.Error())
		assert.Less(t, time.Since(start), 10*time.Second)
	})
	t.Run("the receiver refuses", func(t *testing.T) {
		addr := startReceiver(t, consumertest.NewErr(errors.New("pipeline full")))
		err := exportRuns(ctx, runs, exporter.Options{Getenv: noEnv, OTLP: exporter.OTLPOptions{
			Endpoint: addr, Insecure: true, Timeout: 2 * time.Second,
		}})
		require.Error(t, err)
	})
	t.Run("invalid runs", func(t *testing.T) {
		err := exportRuns(ctx, nil, exporter.Options{Format: exporter.FormatOTel, Output: &bytes.Buffer{}, Getenv: noEnv})
		require.ErrorIs(t, err, translate.ErrInvalid)
		assert.True(t, strings.HasPrefix(err.Error(), "exporter: "), err.Error())
	})
	t.Run("the file cannot be written", func(t *testing.T) {
		err := exportRuns(ctx, runs, exporter.Options{Format: exporter.FormatOTel, Output: failingWriter{}, Getenv: noEnv})
		require.ErrorIs(t, err, assert.AnError)
	})
	for name, o := range map[string]exporter.Options{
		"unknown format":      {Format: "zipkin"},
		"otel without output": {Format: exporter.FormatOTel},
		"unknown compression": {OTLP: exporter.OTLPOptions{Compression: "zstd"}},
		"negative timeout":    {OTLP: exporter.OTLPOptions{Timeout: -time.Second}},
		"negative request":    {MaxRequestBytes: -1},
		"negative case cap":   {MaxCaseEvents: -1},
		"unknown protocol":    {OTLP: exporter.OTLPOptions{Protocol: "http/json"}},
	} {
		t.Run(name, func(t *testing.T) {
			o.Getenv = noEnv
			require.ErrorIs(t, exportRuns(ctx, runs, o), exporter.ErrConfig)
		})
	}
	t.Run("a session has no job", func(t *testing.T) {
		err := exportSession(ctx, translate.Session{ID: "s"}, exporter.Options{JobID: "j"})
		require.ErrorIs(t, err, exporter.ErrConfig)
	})
}

func TestExportSpansReportsExporterError(t *testing.T) {
	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{readRun(t, "failures/run.json")})
	require.NoError(t, err)
	err = exporter.ExportSpans(context.Background(), errExporter{}, spans, resource.Empty())
	require.ErrorIs(t, err, assert.AnError)
}

type errExporter struct{}

func (errExporter) ExportSpans(context.Context, []sdktrace.ReadOnlySpan) error { return assert.AnError }
func (errExporter) Shutdown(context.Context) error                             { return nil }

// manyFailures returns a run with n failing tests with messages of msgLen
// characters.
func manyFailures(t testing.TB, n, msgLen int) *testrun.Run {
	t.Helper()
	run := &testrun.Run{
		ID: "many", Kind: testrun.KindAfterTurn, Command: "pytest", Status: testrun.StatusFailure, Complete: true,
		StartedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), EndedAt: time.Date(2025, 1, 1, 0, 10, 0, 0, time.UTC),
		Counts: &testrun.Counts{Total: n, Failed: n}, Cases: make(map[string]testrun.Outcome, n),
	}
	msg := strings.Repeat("m", msgLen)
	for i := range n {
		id := "tests/test_mod.py::test_" + strings.Repeat("x", i%7) + string(rune('a'+i%26)) + "_" + strconv.Itoa(i)
		run.Cases[id] = testrun.OutcomeFailed
		run.Failures = append(run.Failures, testrun.Failure{ID: id, Outcome: testrun.OutcomeFailed, Message: msg})
	}
	return run
}

// TestExportRedactsWithInjectedEnviron: failure messages are redacted
// against the environment the caller gives, not the process's.
func TestExportRedactsWithInjectedEnviron(t *testing.T) {
	clearOTelEnv(t)
	t.Setenv("PROCESS_TOKEN", "process-only-value")
	run := manyFailures(t, 1, 1)
	run.Failures[0].Message = "login with injected-value-42 and process-only-value failed"
	var buf bytes.Buffer
	require.NoError(t, exportRuns(context.Background(), []*testrun.Run{run}, exporter.Options{
		Format: exporter.FormatOTel, Output: &buf, Getenv: noEnv,
		Environ: func() []string { return []string{"DEPLOY_TOKEN=injected-value-42"} },
	}))
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(buf.Bytes())
	require.NoError(t, err)
	var msg string
	events := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0).Events()
	for i := range events.Len() {
		if v, ok := events.At(i).Attributes().Get("hangar.test.message"); ok {
			msg = v.Str()
		}
	}
	assert.Equal(t, "login with "+testrun.Redacted+" and process-only-value failed", msg)
}
