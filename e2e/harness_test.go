package e2e

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/internal/testnet"
)

// Environment variables that enable the tests.
const (
	// envE2E=1 runs the tests, building the collector with ocb when envCollector is not set.
	envE2E = "TESTRESULTS_E2E"
	// envCollector is the path of a built otelcol-testresults.
	envCollector = "TESTRESULTS_COLLECTOR"
	// envCLI is the path of a built testresults CLI; without it the tests build one.
	envCLI = "TESTRESULTS_CLI"
)

const ocbVersion = "v0.165.0"

// repoRoot is the folder holding go.mod, found upwards from the test's folder.
func repoRoot(t *testing.T) string { return testcorpus.Root(t) }

// requireE2E skips the test unless the end-to-end tests were asked for.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv(envE2E) != "1" && os.Getenv(envCollector) == "" {
		t.Skipf("end-to-end collector test: set %s=1 (or %s=path/to/otelcol-testresults) to run it; scripts/e2e-collector.sh does", envE2E, envCollector)
	}
}

// collectorBinary returns the collector to test: the one named by
// envCollector, or one built now with ocb from builder-config.yaml.
func collectorBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envCollector); p != "" {
		abs := fromRoot(t, p)
		info, err := os.Stat(abs)
		require.NoError(t, err, "%s", envCollector)
		require.False(t, info.IsDir(), "%s is a folder", envCollector)
		return abs
	}
	root := repoRoot(t)
	ocb := filepath.Join(goEnv(t, "GOPATH"), "bin", "builder")
	if gobin := goEnv(t, "GOBIN"); gobin != "" {
		ocb = filepath.Join(gobin, "builder")
	}
	if out, err := exec.Command(ocb, "version").CombinedOutput(); err != nil || !strings.Contains(string(out), ocbVersion) {
		run(t, root, 5*time.Minute, "go", "install", "go.opentelemetry.io/collector/cmd/builder@"+ocbVersion)
	}
	run(t, root, 15*time.Minute, ocb, "--config", "builder-config.yaml")
	return filepath.Join(root, "_build", "otelcol-testresults")
}

// cliBinary returns the testresults CLI: the one named by envCLI, or one
// built now from ./cmd/testresults into a temporary folder.
func cliBinary(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(envCLI); p != "" {
		return fromRoot(t, p)
	}
	out := filepath.Join(t.TempDir(), "testresults")
	run(t, repoRoot(t), 10*time.Minute, "go", "build", "-o", out, "./cmd/testresults")
	return out
}

// fromRoot resolves a path given in the environment: a relative one is
// taken from the repository root, where the scripts run.
func fromRoot(t *testing.T, p string) string {
	t.Helper()
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(repoRoot(t), p)
}

func goEnv(t *testing.T, name string) string {
	t.Helper()
	out, err := exec.Command("go", "env", name).Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}

// run runs a command in dir, bounded by timeout, and fails the test with
// its output when it fails.
func run(t *testing.T, dir string, timeout time.Duration, name string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s %s:\n%s", name, strings.Join(args, " "), out)
}

// collector is a running otelcol-testresults.
type collector struct {
	spec        collectorSpec
	cmd         *exec.Cmd
	otlp        string // host:port of the OTLP gRPC receiver
	metricsURL  string
	output      string // the file exporter's file
	log         *syncBuffer
	exited      chan struct{}
	exitErr     error
	stopOnce    sync.Once
	stopTimeout time.Duration
}

// collectorSpec is how to start a collector: its configuration, working
// folder and environment, and where to find what it opens.
type collectorSpec struct {
	config     string // absolute path of the configuration
	dir        string // working folder
	env        map[string]string
	otlp       string // host:port of the OTLP gRPC receiver
	metricsURL string
	output     string // the file exporter's file, absolute
}

// startCollector starts bin with testdata/collector.yaml on free ports and
// waits until its receiver and metrics endpoint answer. It is stopped when
// the test ends.
func startCollector(t *testing.T, bin string) *collector {
	t.Helper()
	config, err := filepath.Abs(filepath.Join("testdata", "collector.yaml"))
	require.NoError(t, err)
	dir := t.TempDir()
	spec := collectorSpec{
		config: config,
		dir:    dir,
		otlp:   fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		output: filepath.Join(dir, "traces.jsonl"),
	}
	metricsPort := testnet.FreePort(t)
	spec.metricsURL = fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort)
	spec.env = map[string]string{
		"E2E_OTLP_ENDPOINT": spec.otlp,
		"E2E_OUTPUT":        spec.output,
		"E2E_METRICS_PORT":  fmt.Sprint(metricsPort),
	}
	return launch(t, bin, spec)
}

// sampleSpec is the repository's sample configuration, otelcol-testresults.yaml,
// started in dir on free ports with its default (relative) output path,
// unless env sets TESTRESULTS_OUTPUT.
func sampleSpec(t *testing.T, dir string) collectorSpec {
	t.Helper()
	metricsPort := testnet.FreePort(t)
	spec := collectorSpec{
		config:     filepath.Join(repoRoot(t), "otelcol-testresults.yaml"),
		dir:        dir,
		otlp:       fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		metricsURL: fmt.Sprintf("http://127.0.0.1:%d/metrics", metricsPort),
		output:     filepath.Join(dir, "_build", "traces.jsonl"),
	}
	spec.env = map[string]string{
		"TESTRESULTS_OTLP_GRPC":    spec.otlp,
		"TESTRESULTS_OTLP_HTTP":    fmt.Sprintf("127.0.0.1:%d", testnet.FreePort(t)),
		"TESTRESULTS_METRICS_PORT": fmt.Sprint(metricsPort),
	}
	return spec
}

// launch starts bin as spec says and waits until its receiver and metrics
// endpoint answer. It is stopped when the test ends.
func launch(t *testing.T, bin string, spec collectorSpec) *collector {
	t.Helper()
	c := &collector{
		spec:        spec,
		otlp:        spec.otlp,
		metricsURL:  spec.metricsURL,
		output:      spec.output,
		log:         &syncBuffer{},
		exited:      make(chan struct{}),
		stopTimeout: 10 * time.Second,
	}
	c.cmd = exec.Command(bin, "--config", "file:"+spec.config)
	c.cmd.Dir = spec.dir
	c.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + spec.dir}
	for k, v := range spec.env {
		c.cmd.Env = append(c.cmd.Env, k+"="+v)
	}
	c.cmd.Stdout = c.log
	c.cmd.Stderr = c.log
	require.NoError(t, c.cmd.Start())
	go func() {
		c.exitErr = c.cmd.Wait()
		close(c.exited)
	}()
	t.Cleanup(func() {
		c.stop(t)
		if t.Failed() {
			t.Logf("collector log (%s):\n%s", filepath.Base(spec.config), c.log.String())
		}
	})

	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-c.exited:
			t.Fatalf("collector exited at start-up: %v\n%s", c.exitErr, c.log.String())
		default:
		}
		if ready(c.otlp, c.metricsURL) {
			return c
		}
		if time.Now().After(deadline) {
			t.Fatalf("collector not ready after 30 s:\n%s", c.log.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// kill ends the collector with SIGKILL, as a crash would, and waits for it.
func (c *collector) kill(t *testing.T) {
	t.Helper()
	c.stopOnce.Do(func() {
		require.NoError(t, c.cmd.Process.Kill())
		<-c.exited
	})
}

func ready(otlp, metricsURL string) bool {
	conn, err := net.DialTimeout("tcp", otlp, time.Second)
	if err != nil {
		return false
	}
	conn.Close()
	client := http.Client{Timeout: time.Second}
	resp, err := client.Get(metricsURL)
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// stop ends the collector by its pid: SIGTERM, a bounded wait, then SIGKILL.
func (c *collector) stop(t *testing.T) {
	t.Helper()
	c.stopOnce.Do(func() {
		select {
		case <-c.exited:
			return
		default:
		}
		if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil && !errors.Is(err, os.ErrProcessDone) {
			t.Errorf("SIGTERM to collector: %v", err)
		}
		select {
		case <-c.exited:
		case <-time.After(c.stopTimeout):
			t.Errorf("collector did not stop within %s of SIGTERM; killing it", c.stopTimeout)
			_ = c.cmd.Process.Kill()
			<-c.exited
		}
	})
}

// readOutput reads every batch the file exporter wrote so far: one
// OTLP/JSON request per line. A last line still being written is left for
// the next read.
func readOutput(t *testing.T, path string) []ptrace.Traces {
	t.Helper()
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	require.NoError(t, err)
	defer f.Close()
	var out []ptrace.Traces
	r := bufio.NewReader(f)
	u := &ptrace.JSONUnmarshaler{}
	for {
		line, err := r.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			return out // an incomplete last line is read next time
		}
		require.NoError(t, err)
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		td, err := u.UnmarshalTraces(line)
		require.NoError(t, err, "file exporter line: %.200s", line)
		out = append(out, td)
	}
}

// waitOutput polls the file exporter's output until done accepts it, for
// at most timeout, and returns the last read.
func waitOutput(t *testing.T, c *collector, timeout time.Duration, done func([]ptrace.Traces) bool) []ptrace.Traces {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		batches := readOutput(t, c.output)
		if done(batches) {
			return batches
		}
		if time.Now().After(deadline) {
			t.Fatalf("the collector's output was not complete after %s (%d batches)", timeout, len(batches))
		}
		select {
		case <-c.exited:
			t.Fatalf("collector exited: %v", c.exitErr)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// scrape returns the collector's own metrics in the Prometheus text format.
func scrape(t *testing.T, url string) string {
	t.Helper()
	client := http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	require.NoError(t, err)
	return string(b)
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
