package testresultsreceiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"go.opentelemetry.io/collector/receiver"
	"go.opentelemetry.io/collector/receiver/receivertest"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/component/componenttest"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/receiver/testresultsreceiver/internal/metadatatest"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// harness is a started receiver whose polls the test makes, with sinks for
// what it delivers, its telemetry and its log.
type harness struct {
	t      *testing.T
	r      *testresultsReceiver
	traces *consumertest.TracesSink
	logs   *consumertest.LogsSink
	tel    *componenttest.Telemetry
	log    *observer.ObservedLogs
}

// testHost is a host with extensions (a storage extension).
type testHost struct {
	component.Host
	ext map[component.ID]component.Component
}

func (h testHost) GetExtensions() map[component.ID]component.Component { return h.ext }

func nopHost() component.Host { return testHost{Host: componenttest.NewNopHost()} }

// watchConfig is a configuration watching dir/** with kind after_turn.
func watchConfig(dir string) *Config {
	cfg := createDefaultConfig()
	cfg.Watch = configoptional.Some(WatchConfig{Include: []string{filepath.Join(dir, "**")}, PollInterval: time.Hour})
	cfg.HTTP = configoptional.None[HTTPConfig]()
	cfg.Kind = string(testrun.KindAfterTurn)
	cfg.ResourceAttributes = map[string]string{"service.name": "hangar-verifier"}
	return cfg
}

func startHarness(t *testing.T, cfg *Config, host component.Host) *harness {
	t.Helper()
	h := &harness{t: t, traces: new(consumertest.TracesSink), logs: new(consumertest.LogsSink), tel: componenttest.NewTelemetry()}
	t.Cleanup(func() { require.NoError(t, h.tel.Shutdown(context.Background())) })
	set := metadatatest.NewSettings(h.tel)
	core, logs := observer.New(zapcore.InfoLevel)
	set.Logger = zap.New(core)
	h.log = logs
	f := NewFactory()
	tr, err := f.CreateTraces(context.Background(), set, cfg, h.traces)
	require.NoError(t, err)
	_, err = f.CreateLogs(context.Background(), set, cfg, h.logs)
	require.NoError(t, err)
	h.r = tr.(*testresultsReceiver)
	h.r.manualPoll = true
	require.NoError(t, h.r.Start(context.Background(), host))
	t.Cleanup(func() { require.NoError(t, h.r.Shutdown(context.Background())) })
	return h
}

// poll makes n polls.
func (h *harness) poll(n int) {
	for range n {
		h.r.pollOnce(context.Background())
	}
}

// settle makes the polls that settle a file written before them: it is
// seen, then unchanged twice.
func (h *harness) settle() { h.poll(settlePolls + 1) }

// runIDs are the run ids of the test.run events delivered, in order.
func (h *harness) runIDs() []string {
	var ids []string
	for _, td := range h.traces.AllTraces() {
		ids = append(ids, tracesRunIDs(td)...)
	}
	return ids
}

func tracesRunIDs(td ptrace.Traces) []string {
	var ids []string
	rss := td.ResourceSpans()
	for i := 0; i < rss.Len(); i++ {
		sss := rss.At(i).ScopeSpans()
		for j := 0; j < sss.Len(); j++ {
			spans := sss.At(j).Spans()
			for k := 0; k < spans.Len(); k++ {
				evs := spans.At(k).Events()
				for e := 0; e < evs.Len(); e++ {
					if evs.At(e).Name() != semconv.EventTestRun {
						continue
					}
					if v, ok := evs.At(e).Attributes().Get(string(semconv.TestRunIDKey)); ok {
						ids = append(ids, v.Str())
					}
				}
			}
		}
	}
	return ids
}

// copyFile copies src into dir under its own name and returns the path.
func copyFile(t *testing.T, src, dir string) string {
	t.Helper()
	b, err := os.ReadFile(src)
	require.NoError(t, err)
	dst := filepath.Join(dir, filepath.Base(src))
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(dst, b, 0o644))
	return dst
}

// repoFile is a path under the repository root.
func repoFile(t *testing.T, rel string) string {
	return filepath.Join(testcorpus.Root(t), filepath.FromSlash(rel))
}

// exportJSON is what testresults export --job JOB --format otlp-json writes
// for run, read back as pdata, with the resource the receiver gives
// instead of the SDK's: the attributes of attrs, no telemetry.sdk.*, no
// schema URL.
func exportJSON(t *testing.T, run *testrun.Run, job string, attrs map[string]string) ptrace.Traces {
	t.Helper()
	var buf bytes.Buffer
	env := map[string]string{"OTEL_SERVICE_NAME": attrs["service.name"]}
	_, err := exporter.ExportRuns(context.Background(), []*testrun.Run{run}, exporter.Options{
		Format: exporter.FormatOTLPJSON, Output: &buf, JobID: job,
		Getenv:  func(k string) string { return env[k] },
		Environ: os.Environ,
	})
	require.NoError(t, err)
	var u ptrace.JSONUnmarshaler
	td, err := u.UnmarshalTraces(bytes.TrimSpace(buf.Bytes()))
	require.NoError(t, err)
	return receiverResource(td, attrs)
}

// receiverResource replaces the resource of every resource spans of td
// with attrs alone, as the receiver writes it.
func receiverResource(td ptrace.Traces, attrs map[string]string) ptrace.Traces {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		rs.SetSchemaUrl("")
		m := rs.Resource().Attributes()
		m.Clear()
		putResource(m.PutStr, attrs)
	}
	return td
}

// counter is one data point of a receiver metric for source.
func counter(id component.ID, source string, n int64) metricdata.DataPoint[int64] {
	return metricdata.DataPoint[int64]{
		Attributes: attribute.NewSet(attribute.String(receiverKey, id.String()), attribute.String("source", source)),
		Value:      n,
	}
}

// refusing is a consumer that refuses everything.
type refusing struct{ nopConsumer }

func (refusing) ConsumeTraces(context.Context, ptrace.Traces) error {
	return errors.New("refused by the test")
}

func metadataSettings() receiver.Settings { return receivertest.NewNopSettings(Type) }

func jsonMarshal(v any) ([]byte, error) { return json.Marshal(v) }
