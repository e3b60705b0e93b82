package testresultsreceiver

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
)

type eventKey struct {
	name  string
	time  int64
	attrs string
}

func spanEventKeys(td ptrace.Traces) (keys []eventKey, traceID, spanID string) {
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	evs := span.Events()
	for i := 0; i < evs.Len(); i++ {
		e := evs.At(i)
		keys = append(keys, eventKey{e.Name(), int64(e.Timestamp()), attrString(e.Attributes().AsRaw())})
	}
	return keys, span.TraceID().String(), span.SpanID().String()
}

func attrString(m map[string]any) string {
	b, _ := jsonMarshal(m)
	return string(b)
}

// TestEventsBoth: with events both, the log records are the span events
// (name, time, attributes) of the span that carries the run, and carry its
// trace and span ids; with log, the span has no events and the records
// are the same.
func TestEventsBoth(t *testing.T) {
	root := t.TempDir()
	p := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	require.NoError(t, os.Chtimes(p, testTime, testTime))
	cfg := watchConfig(root)
	cfg.Events = "both"
	h := startHarness(t, cfg, nopHost())
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	require.Len(t, h.logs.AllLogs(), 1)
	want, traceID, spanID := spanEventKeys(h.traces.AllTraces()[0])
	require.NotEmpty(t, want)
	got := logKeys(t, h.logs.AllLogs()[0], traceID, spanID)
	assert.ElementsMatch(t, want, got)
	assert.Equal(t, map[string]any{"service.name": "hangar-verifier"}, h.logs.AllLogs()[0].ResourceLogs().At(0).Resource().Attributes().AsRaw())

	root2 := t.TempDir()
	p2 := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root2, "a"))
	require.NoError(t, os.Chtimes(p2, testTime, testTime))
	cfg2 := watchConfig(root2)
	cfg2.Events = "log"
	h2 := startHarness(t, cfg2, nopHost())
	h2.settle()
	require.Len(t, h2.traces.AllTraces(), 1)
	evs, traceID2, spanID2 := spanEventKeys(h2.traces.AllTraces()[0])
	assert.Empty(t, evs, "with log, the span carries no events")
	require.Len(t, h2.logs.AllLogs(), 1)
	assert.ElementsMatch(t, want, logKeys(t, h2.logs.AllLogs()[0], traceID2, spanID2))
}

func logKeys(t *testing.T, ld plog.Logs, traceID, spanID string) []eventKey {
	t.Helper()
	var keys []eventKey
	lrs := ld.ResourceLogs().At(0).ScopeLogs().At(0).LogRecords()
	for i := 0; i < lrs.Len(); i++ {
		lr := lrs.At(i)
		assert.Equal(t, traceID, lr.TraceID().String())
		assert.Equal(t, spanID, lr.SpanID().String())
		keys = append(keys, eventKey{lr.EventName(), int64(lr.Timestamp()), attrString(lr.Attributes().AsRaw())})
	}
	return keys
}

// refusingLogs refuses log records.
type refusingLogs struct{ nopConsumer }

func (refusingLogs) ConsumeLogs(context.Context, plog.Logs) error {
	return errors.New("logs refused by the test")
}

// TestLogsRefusedSpansNotTwice: with events both, a run whose spans were
// accepted and whose log records were refused is tried again with the log
// records alone.
func TestLogsRefusedSpansNotTwice(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	cfg := watchConfig(root)
	cfg.Events = "both"
	h := startHarness(t, cfg, nopHost())
	sink := h.logs
	h.r.nextLogs = refusingLogs{}
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	assert.Empty(t, sink.AllLogs())
	h.r.nextLogs = sink
	h.poll(1)
	assert.Len(t, h.traces.AllTraces(), 1, "the spans are not delivered again")
	assert.Len(t, sink.AllLogs(), 1)
	h.poll(2)
	assert.Len(t, h.traces.AllTraces(), 1)
	assert.Len(t, sink.AllLogs(), 1, "delivered once both were accepted")
}

// TestLogsRefusedFolderGrows: a report that lands beside a run whose spans
// went out and whose log records were refused waits: the retry is of that
// run, its log records alone, and the new report is a run of its own
// afterwards; no span goes out twice.
func TestLogsRefusedFolderGrows(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "a")
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	cfg := watchConfig(root)
	cfg.Events = "both"
	h := startHarness(t, cfg, nopHost())
	sink := h.logs
	h.r.nextLogs = refusingLogs{}
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	first := h.runIDs()

	copyFile(t, repoFile(t, "testdata/runners/go/reports/gotestsum.xml"), dir)
	h.settle()
	assert.Equal(t, first, h.runIDs(), "the first run's spans are not sent again, inside another run")
	h.r.nextLogs = sink
	h.poll(1)
	assert.Equal(t, first, h.runIDs())
	require.Len(t, sink.AllLogs(), 1, "the first run's log records alone")
	h.settle()
	ids := h.runIDs()
	require.Len(t, ids, 2, "the new report is a run of its own")
	assert.NotEqual(t, first[0], ids[1])
	assert.Len(t, sink.AllLogs(), 2)
}
