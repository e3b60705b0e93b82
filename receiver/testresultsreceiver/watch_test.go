package testresultsreceiver

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/hangar-dev/testresults/receiver/testresultsreceiver/internal/metadatatest"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

const pytestReports = "testdata/runners/pytest/reports"

// TestWatchEqualsExport: the run of a watched folder is what testresults
// parse of the same files with the same kind and times, exported with
// --job and --format otlp-json, writes (the resource is the configured one).
func TestWatchEqualsExport(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "job-7")
	var paths []string
	for _, name := range []string{"coverage.xml", "pytest-xunit2.xml"} {
		paths = append(paths, copyFile(t, repoFile(t, pytestReports+"/"+name), dir))
	}
	cfg := watchConfig(root)
	cfg.Job = "ci-{folder}"
	h := startHarness(t, cfg, nopHost())
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)

	run, err := report.ReadRun(paths)
	require.NoError(t, err)
	run.ID = testrun.DeriveID(run.Reports)
	run.Kind = testrun.KindAfterTurn
	run.StartedAt, run.EndedAt = h.r.watcher.times(paths)
	want := exportJSON(t, run, "ci-job-7", cfg.ResourceAttributes)
	require.NoError(t, ptracetest.CompareTraces(want, h.traces.AllTraces()[0]))

	h.poll(3)
	assert.Len(t, h.traces.AllTraces(), 1, "a delivered folder is not delivered again")
}

// TestWatchWaitsUntilSettled: a file is read once its size and time stayed
// the same over two polls.
func TestWatchWaitsUntilSettled(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "a"))
	h := startHarness(t, watchConfig(root), nopHost())
	h.poll(settlePolls)
	assert.Empty(t, h.traces.AllTraces(), "seen, then unchanged once: not settled yet")
	h.poll(1)
	assert.Len(t, h.traces.AllTraces(), 1)
}

// TestWatchChunkedWriteReadOnceWhole: a report written in three chunks,
// with polls in between that see each chunk unchanged, is read once, whole:
// a file whose XML root is open is not settled.
func TestWatchChunkedWriteReadOnceWhole(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile(repoFile(t, pytestReports+"/pytest-xunit2.xml"))
	require.NoError(t, err)
	path := filepath.Join(root, "a", "pytest.xml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	h := startHarness(t, watchConfig(root), nopHost())
	third := len(src) / 3
	for i, chunk := range [][]byte{src[:third], src[third : 2*third], src[2*third:]} {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		_, err = f.Write(chunk)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		h.settle()
		if i < 2 {
			assert.Empty(t, h.traces.AllTraces(), "after chunk %d", i+1)
		}
	}
	require.Len(t, h.traces.AllTraces(), 1)
	assert.Zero(t, h.log.FilterMessage("report refused").Len(), "no chunk was read as a truncated report")
	whole, err := report.ReadRun([]string{path})
	require.NoError(t, err)
	ev := runEvent(t, h.traces.AllTraces()[0])
	total, _ := ev.Get(string(semconv.TestTotalKey))
	assert.Equal(t, int64(whole.Counts.Total), total.Int())
	complete, _ := ev.Get(string(semconv.TestCompleteKey))
	assert.True(t, complete.Bool())
}

// junitWithPrefix is a JUnit report whose first 4 KiB are the same for
// every tail: a long suite of passing cases, then a case named tail.
func junitWithPrefix(tail string) []byte {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n<testsuites><testsuite name=\"s\">\n")
	for i := 0; b.Len() < 5000; i++ {
		fmt.Fprintf(&b, "<testcase classname=\"pkg.Long\" name=\"test_%04d\" time=\"0.001\"/>\n", i)
	}
	fmt.Fprintf(&b, "<testcase classname=\"pkg.Tail\" name=\"%s\"><failure message=\"boom\"/></testcase>\n", tail)
	b.WriteString("</testsuite></testsuites>\n")
	return []byte(b.String())
}

// TestWatchSamePrefixBothIngested: two reports whose first 4 KiB are the
// same and whose bodies differ are two runs, in two folders or one after
// the other under the same path; the same content written again is not.
func TestWatchSamePrefixBothIngested(t *testing.T) {
	a, b := junitWithPrefix("test_a"), junitWithPrefix("test_b")
	require.Equal(t, a[:4096], b[:4096])
	root := t.TempDir()
	for dir, content := range map[string][]byte{"one": a, "two": b} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, dir), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(root, dir, "junit.xml"), content, 0o644))
	}
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	require.Len(t, h.runIDs(), 2)
	assert.NotEqual(t, h.runIDs()[0], h.runIDs()[1])

	path := filepath.Join(root, "one", "junit.xml")
	require.NoError(t, os.WriteFile(path, b, 0o644))
	h.settle()
	assert.Len(t, h.runIDs(), 3, "a file rewritten with other content is a new run")

	require.NoError(t, os.WriteFile(path, b, 0o644))
	require.NoError(t, os.Chtimes(path, testTime, testTime))
	h.settle()
	assert.Len(t, h.runIDs(), 3, "the same content written again is not")
}

// TestWatchRunFolder: a folder holding TEST-RESULTS.json is one run, read
// from it, whatever reports lie beside it; its kind is the configuration's.
func TestWatchRunFolder(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run-1")
	report1 := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	run, err := report.ReadRun([]string{report1})
	require.NoError(t, err)
	run.ID = "run-folder-1"
	run.Kind = testrun.KindGate
	run.Command = "pytest"
	b, err := testrun.TestResults{Run: run}.MarshalJSON()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), b, 0o644))

	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	require.Equal(t, []string{"run-folder-1"}, h.runIDs())
	ev := runEvent(t, h.traces.AllTraces()[0])
	kind, _ := ev.Get(string(semconv.TestRunKindKey))
	assert.Equal(t, string(testrun.KindAfterTurn), kind.Str(), "the folder is the sender: its kind is the configuration's")
}

// TestWatchRefusedReportNotDelivered: a hostile report alone in its folder
// is counted and logged, never delivered as a run, and not read again.
func TestWatchRefusedReportNotDelivered(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, "report/testdata/hostile/billion-laughs.xml"), filepath.Join(root, "evil"))
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	h.poll(3)
	assert.Empty(t, h.traces.AllTraces())
	id := h.r.set.ID
	metadatatest.AssertEqualReceiverTestresultsRunsRefused(t, h.tel, []metricdata.DataPoint[int64]{counter(id, sourceWatch, 1)}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualReceiverTestresultsReportsRefused(t, h.tel, []metricdata.DataPoint[int64]{counter(id, sourceWatch, 1)}, metricdatatest.IgnoreTimestamp())
	refused := h.log.FilterMessage("report refused").All()
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].ContextMap()["path"], "billion-laughs.xml")
}

// TestWatchRefusedBesideRead: a refused report beside one read whole makes
// a delivered run that says it is incomplete, as parse does; the refused
// one is counted.
func TestWatchRefusedBesideRead(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "mixed")
	copyFile(t, repoFile(t, "report/testdata/hostile/billion-laughs.xml"), dir)
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	ev := runEvent(t, h.traces.AllTraces()[0])
	complete, _ := ev.Get(string(semconv.TestCompleteKey))
	assert.False(t, complete.Bool())
	id := h.r.set.ID
	metadatatest.AssertEqualReceiverTestresultsReportsRefused(t, h.tel, []metricdata.DataPoint[int64]{counter(id, sourceWatch, 1)}, metricdatatest.IgnoreTimestamp())
	metadatatest.AssertEqualReceiverTestresultsReportsRead(t, h.tel, []metricdata.DataPoint[int64]{counter(id, sourceWatch, 1)}, metricdatatest.IgnoreTimestamp())
}

// TestWatchExclude: excluded files are never read.
func TestWatchExclude(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "skip"))
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit1.xml"), filepath.Join(root, "keep"))
	cfg := watchConfig(root)
	w := cfg.Watch.Get()
	w.Exclude = []string{filepath.Join(root, "skip", "**")}
	h := startHarness(t, cfg, nopHost())
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	path := filepath.Join(root, "keep", "pytest-xunit1.xml")
	run, err := report.ReadRun([]string{path})
	require.NoError(t, err)
	assert.Equal(t, []string{testrun.DeriveID(run.Reports)}, h.runIDs())
}

// TestRulesGiveTheSender: the first rule whose glob matches the folder
// gives kind, grade, job and resource; the files say nothing of them.
func TestRulesGiveTheSender(t *testing.T) {
	root := t.TempDir()
	copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), filepath.Join(root, "agent", "j1"))
	cfg := watchConfig(root)
	cfg.Rules = []Rule{{
		Match:  []string{filepath.Join(root, "agent", "*")},
		Sender: Sender{Kind: string(testrun.KindGrader), Grade: "isolated", Job: "{folder}", ResourceAttributes: map[string]string{"host.name": "farm-1"}},
	}}
	h := startHarness(t, cfg, nopHost())
	h.settle()
	require.Len(t, h.traces.AllTraces(), 1)
	td := h.traces.AllTraces()[0]
	res := td.ResourceSpans().At(0).Resource().Attributes().AsRaw()
	assert.Equal(t, map[string]any{"service.name": "hangar-verifier", "host.name": "farm-1"}, res)
	span := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans().At(0)
	job, _ := span.Attributes().Get(string(semconv.JobIDKey))
	assert.Equal(t, "j1", job.Str())
	ev := runEvent(t, td)
	kind, _ := ev.Get(string(semconv.TestRunKindKey))
	grade, _ := ev.Get(string(semconv.TestRunGradeKey))
	assert.Equal(t, "grader", kind.Str())
	assert.Equal(t, "isolated", grade.Str())
}

// runEvent returns the attributes of the first test.run event of td.
func runEvent(t *testing.T, td ptrace.Traces) pcommon.Map {
	t.Helper()
	spans := td.ResourceSpans().At(0).ScopeSpans().At(0).Spans()
	for i := 0; i < spans.Len(); i++ {
		evs := spans.At(i).Events()
		for j := 0; j < evs.Len(); j++ {
			if evs.At(j).Name() == semconv.EventTestRun {
				return evs.At(j).Attributes()
			}
		}
	}
	t.Fatal("no test.run event")
	return pcommon.Map{}
}

// testTime is a fixed modification time.
var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// TestWatchOpenRootReadInTheEnd: an XML file whose root element is never
// closed is not waited for forever: after openRootPolls unchanged polls it
// is read, refused as truncated, counted and never delivered.
func TestWatchOpenRootReadInTheEnd(t *testing.T) {
	root := t.TempDir()
	src, err := os.ReadFile(repoFile(t, pytestReports+"/pytest-xunit2.xml"))
	require.NoError(t, err)
	dir := filepath.Join(root, "cut")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pytest.xml"), src[:len(src)/2], 0o644))
	h := startHarness(t, watchConfig(root), nopHost())
	h.poll(openRootPolls)
	assert.Zero(t, h.log.FilterMessage("report refused").Len(), "still waiting for the writer")
	h.poll(1)
	assert.Empty(t, h.traces.AllTraces())
	require.Equal(t, 1, h.log.FilterMessage("report refused").Len())
	metadatatest.AssertEqualReceiverTestresultsRunsRefused(t, h.tel, []metricdata.DataPoint[int64]{counter(h.r.set.ID, sourceWatch, 1)}, metricdatatest.IgnoreTimestamp())
}

// TestWatchChangedAfterSettledWaits: a report that settled and is then
// rewritten before the poll reads it (here: with another whole report, the
// first half of a writer that then puts the first content back) is not read
// in its new state: the file is looked at again after it is read, and a run
// whose files moved waits until they settle again. One run is delivered,
// of the content that settled.
func TestWatchChangedAfterSettledWaits(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "job")
	path := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	first, err := os.ReadFile(path)
	require.NoError(t, err)
	other, err := os.ReadFile(repoFile(t, "testdata/runners/go/reports/gotestsum.xml"))
	require.NoError(t, err)

	h := startHarness(t, watchConfig(root), nopHost())
	h.poll(settlePolls)
	require.Empty(t, h.runIDs())
	groups := h.r.watcher.groups(h.r.watcher.scan())
	require.Len(t, groups, 1, "settled at this poll")
	require.NoError(t, os.WriteFile(path, other, 0o644))
	h.r.deliverGroup(context.Background(), groups[0])
	assert.Empty(t, h.runIDs(), "the file changed after it settled: not read in its new state")

	require.NoError(t, os.WriteFile(path, first, 0o644))
	h.settle()
	run, err := report.ReadRun([]string{path})
	require.NoError(t, err)
	assert.Equal(t, []string{testrun.DeriveID(run.Reports)}, h.runIDs(), "one run, of the content that settled")
}

// TestWatchForgedRunFolderRefused: a run folder whose TEST-RESULTS.json
// claims trusted (in a gate's folder) is refused by the strict reader, as
// export refuses it: counted and logged, never delivered, not read again.
func TestWatchForgedRunFolderRefused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run-forged")
	report1 := copyFile(t, repoFile(t, pytestReports+"/pytest-xunit2.xml"), dir)
	run, err := report.ReadRun([]string{report1})
	require.NoError(t, err)
	run.ID = "run-forged-1"
	run.Kind = testrun.KindGate
	b, err := testrun.TestResults{Run: run}.MarshalJSON()
	require.NoError(t, err)
	forged := strings.Replace(string(b), `"trusted":false`, `"trusted":true`, 1)
	forged = strings.Replace(forged, `"trusted": false`, `"trusted": true`, 1)
	require.NotEqual(t, string(b), forged)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), []byte(forged), 0o644))

	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	h.poll(3)
	assert.Empty(t, h.traces.AllTraces())
	assert.Len(t, h.log.FilterMessage("run not delivered").All(), 1, "refused once, not read again")
}

// TestWatchOversizeRunFileRefused: a TEST-RESULTS.json over the most a
// run's JSON may hold is refused once, with its reason, never delivered
// and not read again at every poll.
func TestWatchOversizeRunFileRefused(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "run-big")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	big := `{"id": "` + strings.Repeat("a", testrun.MaxJSONBytes) + `"}`
	require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), []byte(big), 0o644))

	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	h.poll(3)
	assert.Empty(t, h.traces.AllTraces())
	refusals := h.log.FilterMessage("run not delivered").All()
	require.Len(t, refusals, 1, "refused once, not read again")
	assert.Contains(t, fmt.Sprint(refusals[0].ContextMap()["error"]), "the most a run's JSON may hold")
}

// TestWatchStreamWaitsLonger: a go test -json stream has no end a reader
// can see; one paused between packages (the next one compiling) is not read
// at the two polls an XML report settles in, but after ten, and a stream
// that grows meanwhile is read once, whole.
func TestWatchStreamWaitsLonger(t *testing.T) {
	whole, err := os.ReadFile(repoFile(t, "testdata/runners/gotestjson/reports/go-test.json"))
	require.NoError(t, err)
	var first []byte
	for _, line := range bytes.SplitAfter(whole, []byte("\n")) {
		if bytes.Contains(line, []byte(`"Package":"example.com/gotestjson/pass"`)) {
			first = append(first, line...)
		}
	}
	require.NotEmpty(t, first)

	root := t.TempDir()
	dir := filepath.Join(root, "job-1")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	stream := filepath.Join(dir, "go-test.json")
	require.NoError(t, os.WriteFile(stream, first, 0o644))
	h := startHarness(t, watchConfig(root), nopHost())
	h.settle()
	h.poll(5)
	assert.Empty(t, h.traces.AllTraces(), "a stream that paused is not read as whole")

	require.NoError(t, os.WriteFile(stream, whole, 0o644))
	h.poll(openRootPolls + 2)
	run, err := report.ReadRun([]string{stream})
	require.NoError(t, err)
	assert.Equal(t, []string{testrun.DeriveID(run.Reports)}, h.runIDs(), "one run, of the whole stream")

	// One that stays as it is is read once it has been quiet that long.
	other := filepath.Join(root, "job-2", "go-test.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(other), 0o755))
	require.NoError(t, os.WriteFile(other, first, 0o644))
	h.poll(openRootPolls + 2)
	assert.Len(t, h.runIDs(), 2)
}
