package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/pcommon"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/semconv"
)

// The receiver's end-to-end tests run otelcol-testresults with
// testdata/receiver/collector.yaml: the testresults receiver watching a
// folder of the test's (checkpoints in file_storage) and accepting
// uploads with a shared secret, the processor, and the file exporter.

const (
	receiverSecret = "e2e-upload-secret-0123456789"
	// receiverPoll is the watch's poll interval in these tests.
	receiverPoll = 50 * time.Millisecond
)

// receiverSpec is the receiver configuration with its folders: watch (the
// watched folder), state (file_storage) and the output, all under dir.
func receiverSpec(t *testing.T, dir string, poll time.Duration) collectorSpec {
	config, err := filepath.Abs(filepath.Join("testdata", "receiver", "collector.yaml"))
	require.NoError(t, err)
	metricsPort := testnet.FreePort(t)
	spec := collectorSpec{
		config:     config,
		dir:        dir,
		otlp:       fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		output:     filepath.Join(dir, "traces.jsonl"),
	}
	for _, sub := range []string{"watch", "state", "work"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, sub), 0o755))
	}
	spec.env = map[string]string{
		"E2E_OTLP_ENDPOINT": spec.otlp,
		"E2E_OUTPUT":        spec.output,
		"E2E_METRICS_PORT":  fmt.Sprint(metricsPort),
		"E2E_WATCH":         filepath.Join(dir, "watch"),
		"E2E_STATE":         filepath.Join(dir, "state"),
		"E2E_WORKDIR":       filepath.Join(dir, "work"),
		"E2E_POLL":          poll.String(),
		"E2E_UPLOAD":        fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		"E2E_UPLOAD_SECRET": receiverSecret,
	}
	return spec
}

func watchDir(spec collectorSpec) string { return spec.env["E2E_WATCH"] }

// folderFiles are the report files the receiver reads in a folder: the
// candidate names, sorted.
func folderFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	var files []string
	for _, e := range entries {
		if e.Type().IsRegular() && report.IsCandidate(e.Name()) {
			files = append(files, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(files)
	return files
}

// mtimes are the first and last modification times of files, as RFC 3339.
func mtimes(t *testing.T, files []string) (first, last string) {
	t.Helper()
	var lo, hi time.Time
	for _, f := range files {
		fi, err := os.Lstat(f)
		require.NoError(t, err)
		if lo.IsZero() || fi.ModTime().Before(lo) {
			lo = fi.ModTime()
		}
		if fi.ModTime().After(hi) {
			hi = fi.ModTime()
		}
	}
	return lo.UTC().Format(time.RFC3339Nano), hi.UTC().Format(time.RFC3339Nano)
}

// cliExpected is what the CLI makes of one folder: testresults parse of
// its report files with the receiver's kind and the files' times, then
// testresults export --job FOLDER --format otlp-json. ok is false when
// parse read no report (exit 3), when the receiver delivers nothing.
func cliExpected(t *testing.T, cli, dir, workDir string) (td ptrace.Traces, ok bool) {
	t.Helper()
	files := folderFiles(t, dir)
	first, last := mtimes(t, files)
	runFile := filepath.Join(t.TempDir(), "run.json")
	args := append([]string{"parse", "--quiet", "--kind", "after_turn", "--started-at", first, "--ended-at", last, "--work-dir", workDir}, files...)
	code := cliTo(t, cli, runFile, args)
	if code == 3 {
		return ptrace.Traces{}, false
	}
	require.Equal(t, 0, code, "testresults parse of %s", dir)
	out := filepath.Join(t.TempDir(), "spans.jsonl")
	require.Equal(t, 0, cliTo(t, cli, "", []string{"export", "--quiet", "--job", filepath.Base(dir), "--format", "otlp-json", "-o", out, runFile}))
	batches := readOutput(t, out)
	require.Len(t, batches, 1)
	// The collector's processor writes the trust flags on the job.verify
	// span too: the CLI's spans go through the same rules in process.
	return processInProcess(t, receiverResourceOf(batches[0])), true
}

// cliTo runs the CLI with its stdout in stdout (when not empty) and returns
// its exit code.
func cliTo(t *testing.T, cli, stdout string, args []string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, cli, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "OTEL_SERVICE_NAME=hangar-verifier"}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if stdout != "" {
		f, err := os.Create(stdout)
		require.NoError(t, err)
		defer f.Close()
		cmd.Stdout = f
	}
	err := cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	require.NoError(t, err, "testresults %s:\n%s", strings.Join(args, " "), stderr.String())
	return 0
}

// receiverResourceOf gives td the resource the receiver writes: its
// configured attributes only (service.name), without the SDK's
// telemetry.sdk.* and schema URL, which no receiver has.
func receiverResourceOf(td ptrace.Traces) ptrace.Traces {
	for i := 0; i < td.ResourceSpans().Len(); i++ {
		rs := td.ResourceSpans().At(i)
		rs.SetSchemaUrl("")
		rs.Resource().Attributes().RemoveIf(func(k string, _ pcommon.Value) bool {
			return strings.HasPrefix(k, "telemetry.sdk.")
		})
	}
	return td
}

// byJob indexes the batches of the output by the job id of their job.verify
// span; a job seen in two batches is listed twice.
func byJob(batches []ptrace.Traces) map[string][]ptrace.Traces {
	out := map[string][]ptrace.Traces{}
	for _, td := range batches {
		seen := map[string]bool{}
		forEachSpan(td, func(_ string, s ptrace.Span) {
			if s.Name() != semconv.SpanJobVerify {
				return
			}
			if id := jobID(s); id != "" && !seen[id] {
				seen[id] = true
				out[id] = append(out[id], td)
			}
		})
	}
	return out
}

// TestReceiverCorpus: the shared corpus dropped into a watched folder, one
// folder per runner, yields for each folder the spans testresults parse and
// export --format otlp-json make of the same reports under the same
// configuration (kind, job, times, work folder; the resource is the
// receiver's), both through the processor's rules; a folder none of whose reports can be read is counted as
// refused and never delivered.
func TestReceiverCorpus(t *testing.T) {
	requireE2E(t)
	corpus := testcorpus.Dir(t)
	bin := collectorBinary(t)
	cli := cliBinary(t)
	spec := receiverSpec(t, t.TempDir(), receiverPoll)
	watch := watchDir(spec)

	entries, err := os.ReadDir(corpus)
	require.NoError(t, err)
	want := map[string]ptrace.Traces{}
	var refused []string
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		dst := filepath.Join(watch, e.Name())
		require.NoError(t, os.MkdirAll(dst, 0o755))
		for _, f := range folderFiles(t, filepath.Join(corpus, e.Name())) {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dst, filepath.Base(f)), b, 0o644))
		}
		if len(folderFiles(t, dst)) == 0 {
			continue
		}
		if td, ok := cliExpected(t, cli, dst, spec.env["E2E_WORKDIR"]); ok {
			want[e.Name()] = td
		} else {
			refused = append(refused, e.Name())
		}
	}
	require.NotEmpty(t, want)
	t.Logf("%d corpus folders expected as runs, %d refused whole: %v", len(want), len(refused), refused)

	c := launch(t, bin, spec)
	waitOutput(t, c, 2*time.Minute, func(b []ptrace.Traces) bool { return len(byJob(b)) >= len(want) })
	if len(refused) > 0 {
		waitMetric(t, c, "otelcol_receiver_testresults_runs_refused", `source="watch"`, float64(len(refused)))
	}
	got := byJob(readOutput(t, c.output))
	require.Len(t, got, len(want), "jobs delivered: %v", slices.Sorted(mapsKeys(got)))
	for job, td := range want {
		require.Len(t, got[job], 1, "folder %s delivered once", job)
		assert.NoError(t, ptracetest.CompareTraces(td, got[job][0]), "folder %s", job)
	}
	for _, job := range refused {
		assert.Empty(t, got[job], "folder %s, whose every report is refused, is not delivered", job)
	}
}

// junitWithPrefix is a JUnit report whose first 4 KiB are the same for
// every tail: a long suite of passing cases, then a failing case named
// tail.
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

// TestReceiverReadsWholeFiles: two reports whose first 4 KiB are the same
// and whose bodies differ are both ingested, and a report written in three
// chunks 100 ms apart is read once, whole.
func TestReceiverReadsWholeFiles(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	spec := receiverSpec(t, t.TempDir(), receiverPoll)
	watch := watchDir(spec)
	c := launch(t, bin, spec)

	a, b := junitWithPrefix("test_a"), junitWithPrefix("test_b")
	require.Equal(t, a[:4096], b[:4096])
	for name, content := range map[string][]byte{"prefix-a": a, "prefix-b": b} {
		require.NoError(t, os.MkdirAll(filepath.Join(watch, name), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(watch, name, "junit.xml"), content, 0o644))
	}

	whole := junitWithPrefix("test_chunked")
	path := filepath.Join(watch, "chunked", "junit.xml")
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	third := len(whole) / 3
	for i, chunk := range [][]byte{whole[:third], whole[third : 2*third], whole[2*third:]} {
		if i > 0 {
			time.Sleep(100 * time.Millisecond) // the writer's pause, not a synchronisation
		}
		f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		require.NoError(t, err)
		_, err = f.Write(chunk)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}

	waitOutput(t, c, time.Minute, func(b []ptrace.Traces) bool { return len(byJob(b)) >= 3 })
	got := byJob(readOutput(t, c.output))
	require.Len(t, got, 3)
	for _, job := range []string{"prefix-a", "prefix-b", "chunked"} {
		require.Len(t, got[job], 1, job)
	}
	ids := runIDs(readOutput(t, c.output))
	assert.Len(t, ids, 3, "three distinct runs: %v", ids)
	var cases int
	forEachSpan(got["chunked"][0], func(_ string, s ptrace.Span) {
		for i := 0; i < s.Events().Len(); i++ {
			ev := s.Events().At(i)
			if ev.Name() == semconv.EventTestRun {
				v, _ := ev.Attributes().Get(string(semconv.TestTotalKey))
				cases = int(v.Int())
				complete, _ := ev.Attributes().Get(string(semconv.TestCompleteKey))
				assert.True(t, complete.Bool(), "the chunked report is read whole")
			}
		}
	})
	assert.Equal(t, bytes.Count(whole, []byte("<testcase ")), cases)
	assert.NotContains(t, c.log.String(), "report refused", "no chunk was read on its own")
}

// TestReceiverKillRestartExactlyOnce: folders are written while the
// collector polls; it is killed with SIGKILL after some runs are out, then
// started again on the same state: every run is in the output exactly once.
func TestReceiverKillRestartExactlyOnce(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	spec := receiverSpec(t, t.TempDir(), receiverPoll)
	watch := watchDir(spec)
	const n = 60
	c := launch(t, bin, spec)
	write := func(i int) {
		dir := filepath.Join(watch, fmt.Sprintf("kill-%03d", i))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "junit.xml"), junitWithPrefix(fmt.Sprintf("test_%d", i)), 0o644))
	}
	written := 0
	for ; written < n; written++ {
		write(written)
		if len(runIDs(readOutput(t, c.output))) >= n/4 {
			break
		}
		time.Sleep(10 * time.Millisecond) // the writers' pace
	}
	c.kill(t)
	before := len(runIDs(readOutput(t, c.output)))
	require.Positive(t, before, "some runs were out before the kill")
	require.Less(t, before, n, "the kill came before the end")
	t.Logf("%d of %d runs were out when the collector was killed, %d folders written", before, n, written)
	for ; written < n; written++ {
		write(written)
	}

	c = launch(t, bin, spec)
	waitOutput(t, c, 2*time.Minute, func(b []ptrace.Traces) bool { return len(runIDs(b)) >= n })
	// The restarted receiver has delivered what was missing; any run it
	// delivered again would be counted here.
	waitMetric(t, c, "otelcol_receiver_testresults_runs_delivered", `source="watch"`, float64(n-before))
	counts := runIDs(readOutput(t, c.output))
	require.Len(t, counts, n)
	for id, k := range counts {
		assert.Equal(t, 1, k, "run %s", id)
	}
	assert.Equal(t, float64(n-before), metricWith(scrape(t, c.metricsURL), "otelcol_receiver_testresults_runs_delivered", `source="watch"`),
		"the restarted receiver delivered only the runs that were not out")
}

// TestReceiverRefusedReport: a hostile report alone in a folder shows in
// the receiver's metrics and log and is never delivered as a run.
func TestReceiverRefusedReport(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	spec := receiverSpec(t, t.TempDir(), receiverPoll)
	watch := watchDir(spec)
	c := launch(t, bin, spec)
	hostile, err := os.ReadFile(filepath.Join(repoRoot(t), "report", "testdata", "hostile", "billion-laughs.xml"))
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(watch, "evil"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(watch, "evil", "junit.xml"), hostile, 0o644))
	// A good folder after it shows the poll went past the hostile one.
	require.NoError(t, os.MkdirAll(filepath.Join(watch, "good"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(watch, "good", "junit.xml"), junitWithPrefix("test_good"), 0o644))

	waitMetric(t, c, "otelcol_receiver_testresults_runs_refused", `source="watch"`, 1)
	waitOutput(t, c, time.Minute, func(b []ptrace.Traces) bool { return len(byJob(b)) >= 1 })
	text := scrape(t, c.metricsURL)
	assert.Equal(t, 1.0, metricWith(text, "otelcol_receiver_testresults_reports_refused", `source="watch"`))
	got := byJob(readOutput(t, c.output))
	assert.Empty(t, got["evil"])
	assert.Len(t, got["good"], 1)
	log := c.log.String()
	assert.Contains(t, log, "report refused")
	assert.Contains(t, log, filepath.Join(watch, "evil", "junit.xml"))
}

// TestReceiverUpload: POST /v1/runs without credentials is 401, over the
// body limit 413, with a hostile report 400 (nothing delivered); an upload
// with the secret comes out trusted, its uploader named by the processor's
// trusted_sources.
func TestReceiverUpload(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	spec := receiverSpec(t, t.TempDir(), receiverPoll)
	c := launch(t, bin, spec)
	url := "http://" + spec.env["E2E_UPLOAD"] + "/v1/runs"

	good := junitWithPrefix("test_uploaded")
	hostile, err := os.ReadFile(filepath.Join(repoRoot(t), "report", "testdata", "hostile", "billion-laughs.xml"))
	require.NoError(t, err)
	big := bytes.Repeat([]byte("<!-- padding -->\n"), 2<<20/17)

	for _, tc := range []struct {
		name, token string
		file        []byte
		want        int
	}{
		{"no credentials", "", good, http.StatusUnauthorized},
		{"wrong secret", "e2e-upload-secret-wrong-0000", good, http.StatusUnauthorized},
		{"over the limit", receiverSecret, big, http.StatusRequestEntityTooLarge},
		{"hostile", receiverSecret, hostile, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			status, body := upload(t, url+"?job=refused-upload", tc.token, tc.file)
			assert.Equal(t, tc.want, status, body)
		})
	}
	status, body := upload(t, url+"?job=upload-1", receiverSecret, good)
	require.Equal(t, http.StatusOK, status, body)

	batches := waitOutput(t, c, time.Minute, func(b []ptrace.Traces) bool { return len(byJob(b)) >= 1 })
	got := byJob(batches)
	require.Len(t, got["upload-1"], 1)
	assert.Empty(t, got["refused-upload"], "nothing of a refused upload is delivered")
	trusted := false
	forEachSpan(got["upload-1"][0], func(service string, s ptrace.Span) {
		assert.Equal(t, "ci-uploads", service)
		for i := 0; i < s.Events().Len(); i++ {
			if ev := s.Events().At(i); ev.Name() == semconv.EventTestRun {
				v, _ := ev.Attributes().Get(string(semconv.TestRunTrustedKey))
				trusted = v.Bool()
			}
		}
	})
	assert.True(t, trusted, "the uploader holding the secret is a trusted source")
	assert.Equal(t, 1.0, metricWith(scrape(t, c.metricsURL), "otelcol_receiver_testresults_runs_refused", `source="http"`))
}

// upload posts file as a multipart report upload.
func upload(t *testing.T, url, token string, file []byte) (int, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	w, err := mw.CreateFormFile("report", "junit.xml")
	require.NoError(t, err)
	_, err = w.Write(file)
	require.NoError(t, err)
	require.NoError(t, mw.Close())
	req, err := http.NewRequest(http.MethodPost, url, &buf)
	require.NoError(t, err)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	return resp.StatusCode, string(b)
}

// metricWith sums the samples of a metric whose labels hold label.
func metricWith(text, name, label string) float64 {
	var lines []string
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, label) {
			lines = append(lines, line)
		}
	}
	return metricValue(strings.Join(lines, "\n"), name)
}

// waitMetric polls the collector's metrics until the metric, among samples
// with label, reaches want.
func waitMetric(t *testing.T, c *collector, name, label string, want float64) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		got := metricWith(scrape(t, c.metricsURL), name, label)
		if got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s{%s} is %v after a minute, want %v\n%s", name, label, got, want, c.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func mapsKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// envReceiverLoad=1 runs TestReceiverLoad; envReceiverLoadRate sets its
// pace in files a second (default 100).
const (
	envReceiverLoad     = "TESTRESULTS_RECEIVER_LOAD"
	envReceiverLoadRate = "TESTRESULTS_RECEIVER_LOAD_RATE"
)

// TestReceiverLoad is the receiver's load benchmark, not a timed test: it
// asserts only that every run arrives once. 1,000 report files of 1 MiB,
// one per folder, are written at 100 files a second (envReceiverLoadRate)
// into the watched folder
// of a running collector; it logs files/s (from the first write to the last
// delivery), the p50 and p99 of the time from a file's last write to its
// run's delivery (the two polls of settling included), the collector's CPU
// time and its peak RSS. It runs only when asked:
//
//	TESTRESULTS_E2E=1 TESTRESULTS_RECEIVER_LOAD=1 go test ./e2e -run TestReceiverLoad -v
func TestReceiverLoad(t *testing.T) {
	requireE2E(t)
	if os.Getenv(envReceiverLoad) != "1" {
		t.Skipf("the receiver's load benchmark: set %s=1 to run it", envReceiverLoad)
	}
	bin := collectorBinary(t)
	const files, size = 1000, 1 << 20
	rate := 100 // files a second
	if v := os.Getenv(envReceiverLoadRate); v != "" {
		n, err := strconv.Atoi(v)
		require.NoError(t, err, envReceiverLoadRate)
		require.Positive(t, n, envReceiverLoadRate)
		rate = n
	}
	content := junitOfSize(size)
	spec := receiverSpec(t, t.TempDir(), 200*time.Millisecond)
	c := launch(t, bin, spec)
	watch := watchDir(spec)
	written := map[string]time.Time{}
	start := time.Now()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	for i := range files {
		<-tick.C
		dir := filepath.Join(watch, fmt.Sprintf("load-%04d", i))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		// Each file differs (its own failing case), so each is a run.
		body := bytes.Replace(content, []byte("LOADTAIL"), []byte(fmt.Sprintf("t%04d", i)), 1)
		path := filepath.Join(dir, "junit.xml")
		require.NoError(t, os.WriteFile(path, body, 0o644))
		fi, err := os.Stat(path)
		require.NoError(t, err)
		written[dir] = fi.ModTime()
	}
	tick.Stop()
	delivered := waitDelivered(t, c, files, 5*time.Minute)
	var lat []time.Duration
	var last time.Time
	for dir, at := range delivered {
		lat = append(lat, at.Sub(written[dir]))
		if at.After(last) {
			last = at
		}
	}
	slices.Sort(lat)
	rss := procPeakRSS(t, c.cmd.Process.Pid)
	cpu := procCPU(t, c.cmd.Process.Pid)
	t.Logf("receiver load: %d files of %d KiB at %d/s: %.1f files/s from the first write to the last delivery; write to delivery p50 %s, p99 %s, max %s; collector CPU %s, peak RSS %d MiB",
		files, size>>10, rate, float64(files)/last.Sub(start).Seconds(),
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*99/100].Round(time.Millisecond), lat[len(lat)-1].Round(time.Millisecond),
		cpu.Round(time.Millisecond), rss>>20)
	counts := runIDs(readOutput(t, c.output))
	assert.Len(t, counts, files)
	for id, k := range counts {
		assert.Equal(t, 1, k, "run %s", id)
	}
}

// junitOfSize is a JUnit report of about size bytes: passing cases and one
// failing case named LOADTAIL (replaced per file).
func junitOfSize(size int) []byte {
	var buf bytes.Buffer
	buf.WriteString(`<?xml version="1.0" encoding="utf-8"?>` + "\n<testsuites><testsuite name=\"load\">\n")
	buf.WriteString(`<testcase classname="pkg.Load" name="LOADTAIL"><failure message="boom">a failure</failure></testcase>` + "\n")
	for i := 0; buf.Len() < size-64; i++ {
		fmt.Fprintf(&buf, "<testcase classname=\"pkg.load.Suite%03d\" name=\"test_case_number_%06d\" time=\"0.00%d\"/>\n", i%100, i, i%10)
	}
	buf.WriteString("</testsuite></testsuites>\n")
	return buf.Bytes()
}

// waitDelivered reads the collector's JSON log until n "run delivered"
// lines are there and returns each folder's delivery time.
func waitDelivered(t *testing.T, c *collector, n int, timeout time.Duration) map[string]time.Time {
	deadline := time.Now().Add(timeout)
	for {
		got := map[string]time.Time{}
		sc := bufio.NewScanner(strings.NewReader(c.log.String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var line struct {
				Msg   string `json:"msg"`
				TS    any    `json:"ts"`
				Where string `json:"where"`
			}
			if json.Unmarshal(sc.Bytes(), &line) != nil || line.Msg != "run delivered" {
				continue
			}
			if ts, ok := logTime(line.TS); ok {
				got[line.Where] = ts
			}
		}
		if len(got) >= n {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d runs delivered after %s, want %d", len(got), timeout, n)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// logTime reads a zap JSON timestamp: ISO 8601 text or epoch seconds.
func logTime(v any) (time.Time, bool) {
	switch ts := v.(type) {
	case string:
		t, err := time.Parse(time.RFC3339Nano, ts)
		if err != nil {
			t, err = time.Parse("2006-01-02T15:04:05.000Z0700", ts)
		}
		return t, err == nil
	case float64:
		sec := int64(ts)
		return time.Unix(sec, int64((ts-float64(sec))*1e9)), true
	}
	return time.Time{}, false
}

// TestReceiverSampleConfig: otelcol-testresults-receiver.yaml does not
// start without the upload secret (the key named in the error); with it, a
// folder of reports comes out as spans and as log-based events, through
// the processor.
func TestReceiverSampleConfig(t *testing.T) {
	requireE2E(t)
	bin := collectorBinary(t)
	dir := t.TempDir()
	reports := filepath.Join(dir, "reports")
	require.NoError(t, os.MkdirAll(reports, 0o755))
	metricsPort := testnet.FreePort(t)
	upload := fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t))
	env := map[string]string{
		"TESTRESULTS_REPORTS":      reports,
		"TESTRESULTS_STATE":        filepath.Join(dir, "state"),
		"TESTRESULTS_OUTPUT":       filepath.Join(dir, "traces.jsonl"),
		"TESTRESULTS_LOGS_OUTPUT":  filepath.Join(dir, "logs.jsonl"),
		"TESTRESULTS_UPLOAD":       upload,
		"TESTRESULTS_METRICS_PORT": fmt.Sprint(metricsPort),
	}
	config := filepath.Join(repoRoot(t), "otelcol-testresults-receiver.yaml")

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--config", "file:"+config)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	require.Error(t, err, "the collector started without the upload secret:\n%s", out)
	assert.Contains(t, string(out), "http::secret")

	env["TESTRESULTS_UPLOAD_SECRET"] = receiverSecret
	spec := collectorSpec{
		config: config, dir: dir, env: env,
		otlp:       upload, // the upload server answering means the collector is up
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		output:     env["TESTRESULTS_OUTPUT"],
	}
	c := launch(t, bin, spec)
	job := filepath.Join(reports, "job-1")
	require.NoError(t, os.MkdirAll(job, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(job, "junit.xml"), junitWithPrefix("test_sample"), 0o644))
	got := byJob(waitOutput(t, c, time.Minute, func(b []ptrace.Traces) bool { return len(byJob(b)) >= 1 }))
	require.Len(t, got["job-1"], 1)
	ids := runIDs(got["job-1"])
	require.Len(t, ids, 1)
	var runID string
	for id := range ids {
		runID = id
	}
	deadline := time.Now().Add(time.Minute)
	for {
		logs, _ := os.ReadFile(env["TESTRESULTS_LOGS_OUTPUT"])
		if bytes.Contains(logs, []byte(runID)) && bytes.Contains(logs, []byte(`"eventName":"test.run"`)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no test.run log record of run %s in the logs file:\n%s", runID, logs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
