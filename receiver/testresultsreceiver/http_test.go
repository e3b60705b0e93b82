package testresultsreceiver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/open-telemetry/opentelemetry-collector-contrib/pkg/pdatatest/ptracetest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/collector/client"
	"go.opentelemetry.io/collector/config/configoptional"
	"go.opentelemetry.io/collector/consumer/consumertest"
	"go.opentelemetry.io/collector/processor/processortest"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/metric/metricdata/metricdatatest"

	"github.com/hangar-dev/testresults/internal/testnet"
	"github.com/hangar-dev/testresults/processor/testresultsprocessor"
	"github.com/hangar-dev/testresults/receiver/testresultsreceiver/internal/metadatatest"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

const testSecret = "a-shared-secret-of-some-length"

// httpConfig is an upload server on a free port of 127.0.0.1 with the
// shared secret, its uploads authenticated as subject.
func httpConfig(t *testing.T, subject string) *Config {
	cfg := createDefaultConfig()
	cfg.Watch = configoptional.None[WatchConfig]()
	h := defaultHTTPConfig()
	h.NetAddr.Endpoint = testnet.FreeAddr(t)
	h.Secret = testSecret
	h.SecretSubject = subject
	cfg.HTTP = configoptional.Some(h)
	cfg.Kind = string(testrun.KindAfterTurn)
	cfg.ResourceAttributes = map[string]string{"service.name": "ci-uploads"}
	return cfg
}

func uploadURL(cfg *Config) string {
	return "http://" + cfg.HTTP.Get().NetAddr.Endpoint + UploadPath
}

// multipartBody holds files (name → content) as multipart/form-data.
func multipartBody(t *testing.T, files map[string][]byte) (*bytes.Buffer, string) {
	t.Helper()
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	for name, content := range files {
		w, err := mw.CreateFormFile("report", name)
		require.NoError(t, err)
		_, err = w.Write(content)
		require.NoError(t, err)
	}
	require.NoError(t, mw.Close())
	return &buf, mw.FormDataContentType()
}

type response struct {
	status int
	body   map[string]any
}

func post(t *testing.T, url, contentType, token string, body io.Reader) response {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, body)
	require.NoError(t, err)
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	r := response{status: resp.StatusCode}
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	_ = json.Unmarshal(b, &r.body)
	return r
}

func readRepoFile(t *testing.T, rel string) []byte {
	b, err := os.ReadFile(repoFile(t, rel))
	require.NoError(t, err)
	return b
}

func TestUploadCredentials(t *testing.T) {
	cfg := httpConfig(t, "ci-uploader")
	h := startHarness(t, cfg, nopHost())
	for _, tc := range []struct {
		name, token string
		want        int
	}{
		{"none", "", http.StatusUnauthorized},
		{"wrong", "not-the-secret-at-all-no", http.StatusUnauthorized},
		{"prefix of the secret", testSecret[:20], http.StatusUnauthorized},
		{"the secret", testSecret, http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := multipartBody(t, map[string][]byte{"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml")})
			r := post(t, uploadURL(cfg), ct, tc.token, body)
			assert.Equal(t, tc.want, r.status, "%v", r.body)
		})
	}
	require.Len(t, h.traces.AllTraces(), 1, "only the authenticated upload is delivered")
	info := client.FromContext(h.traces.Contexts()[0])
	require.NotNil(t, info.Auth)
	assert.Equal(t, "ci-uploader", info.Auth.GetAttribute("subject"))
}

func TestUploadOverLimit(t *testing.T) {
	cfg := httpConfig(t, "ci")
	hc := cfg.HTTP.Get()
	hc.MaxRequestBodySize = 4096
	cfg.HTTP = configoptional.Some(*hc)
	h := startHarness(t, cfg, nopHost())
	big := readRepoFile(t, pytestReports+"/pytest-xunit2.xml")
	require.Greater(t, len(big), 4096)

	body, ct := multipartBody(t, map[string][]byte{"pytest.xml": big})
	r := post(t, uploadURL(cfg), ct, testSecret, body)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "with a Content-Length: %v", r.body)

	// Without a Content-Length (chunked), the limit is met while reading.
	body, ct = multipartBody(t, map[string][]byte{"pytest.xml": big})
	r = post(t, uploadURL(cfg), ct, testSecret, io.MultiReader(body))
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "chunked: %v", r.body)
	assert.Empty(t, h.traces.AllTraces())
}

func TestUploadHostileRefused(t *testing.T) {
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	body, ct := multipartBody(t, map[string][]byte{
		"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml"),
		"evil.xml":   readRepoFile(t, "report/testdata/hostile/billion-laughs.xml"),
	})
	r := post(t, uploadURL(cfg), ct, testSecret, body)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, r.body["detail"], "evil.xml")
	assert.Contains(t, strings.ToLower(fmt.Sprint(r.body["detail"])), "entit")
	assert.Empty(t, h.traces.AllTraces(), "nothing of a refused upload is delivered")
	metadatatest.AssertEqualReceiverTestresultsRunsRefused(t, h.tel, []metricdata.DataPoint[int64]{counter(h.r.set.ID, sourceHTTP, 1)}, metricdatatest.IgnoreTimestamp())
}

// An upload whose body ends without the closing boundary (the client was
// cut short after a file, and meant to send more) is refused, not taken
// for the whole run.
func TestUploadCutBeforeTheClosingBoundary(t *testing.T) {
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	whole, ct := multipartBody(t, map[string][]byte{"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml")})
	closing := []byte("--" + strings.TrimPrefix(ct, "multipart/form-data; boundary=") + "--\r\n")
	require.True(t, bytes.HasSuffix(whole.Bytes(), closing))
	first := whole.Bytes()[:whole.Len()-len(closing)]
	for name, body := range map[string][]byte{
		"no boundary after the file":     first[:len(first)-2],
		"an opening boundary, no more":   append(append([]byte(nil), first...), closing[:len(closing)-4]...),
		"a boundary and a line, no more": append(append(append([]byte(nil), first...), closing[:len(closing)-4]...), "\r\n"...),
	} {
		t.Run(name, func(t *testing.T) {
			r := post(t, uploadURL(cfg), ct, testSecret, bytes.NewReader(body))
			assert.Equal(t, http.StatusBadRequest, r.status, "%v", r.body)
		})
	}
	assert.Empty(t, h.traces.AllTraces(), "nothing of a cut upload is delivered")
	r := post(t, uploadURL(cfg), ct, testSecret, bytes.NewReader(whole.Bytes()))
	assert.Equal(t, http.StatusOK, r.status, "the whole body is taken: %v", r.body)
}

// TestUploadEqualsParse: the run of uploaded reports is the run parse
// builds of the same files under the same names and with the same
// metadata.
func TestUploadEqualsParse(t *testing.T) {
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	content := readRepoFile(t, pytestReports+"/pytest-xunit2.xml")
	body, ct := multipartBody(t, map[string][]byte{"pytest.xml": content})
	const started, ended = "2026-01-02T03:04:05Z", "2026-01-02T03:05:06.5Z"
	r := post(t, uploadURL(cfg)+"?job=j-9&command=pytest&exit_code=1&started_at="+started+"&ended_at="+ended, ct, testSecret, body)
	require.Equal(t, http.StatusOK, r.status, "%v", r.body)
	require.Len(t, h.traces.AllTraces(), 1)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "pytest.xml"), content, 0o644))
	t.Chdir(dir)
	run, err := report.ReadRun([]string{"pytest.xml"})
	require.NoError(t, err)
	run.ID = testrun.DeriveID(run.Reports)
	run.Kind = testrun.KindAfterTurn
	run.Command = "pytest"
	code := 1
	run.ExitCode = &code
	run.Status = testrun.StatusForExitCode(code)
	run.StartedAt = mustTime(t, started)
	run.EndedAt = mustTime(t, ended)
	assert.Equal(t, run.ID, r.body["id"])
	want := exportJSON(t, run, "j-9", cfg.ResourceAttributes)
	require.NoError(t, ptracetest.CompareTraces(want, h.traces.AllTraces()[0]))
}

func TestUploadRunJSON(t *testing.T) {
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	run, err := report.ReadRun([]string{repoFile(t, pytestReports+"/pytest-xunit2.xml")})
	require.NoError(t, err)
	run.ID = "uploaded-run"
	run.Kind = testrun.KindGate
	b, err := json.Marshal(run)
	require.NoError(t, err)
	r := post(t, uploadURL(cfg), "application/json", testSecret, bytes.NewReader(b))
	require.Equal(t, http.StatusOK, r.status, "%v", r.body)
	require.Equal(t, []string{"uploaded-run"}, h.runIDs())
	kind, _ := runEvent(t, h.traces.AllTraces()[0]).Get(string(semconv.TestRunKindKey))
	assert.Equal(t, "after_turn", kind.Str(), "the uploader's configuration gives the kind")

	forged := bytes.Replace(b, []byte(`"trusted": false`), []byte(`"trusted": true`), 1)
	forged = bytes.Replace(forged, []byte(`"trusted":false`), []byte(`"trusted":true`), 1)
	require.NotEqual(t, b, forged)
	r = post(t, uploadURL(cfg), "application/json", testSecret, bytes.NewReader(forged))
	assert.Equal(t, http.StatusBadRequest, r.status, "a forged flag refuses the run: %v", r.body)
	assert.Len(t, h.runIDs(), 1)
}

// TestUploadTrustedOnlyWhenNamed: an upload comes out of the processor
// trusted only when a trusted_sources rule names its uploader.
func TestUploadTrustedOnlyWhenNamed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		subjects []string
		want     bool
	}{
		{"named", []string{"ci-uploader"}, true},
		{"another client named", []string{"someone-else"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sink := new(consumertest.TracesSink)
			pf := testresultsprocessor.NewFactory()
			pcfg := pf.CreateDefaultConfig().(*testresultsprocessor.Config)
			pcfg.TrustedSources = []testresultsprocessor.TrustedSource{{
				ResourceAttributes: map[string]string{"service.name": "ci-uploads"},
				AuthSubjects:       tc.subjects,
			}}
			proc, err := pf.CreateTraces(context.Background(), processortest.NewNopSettings(pf.Type()), pcfg, sink)
			require.NoError(t, err)
			require.NoError(t, proc.Start(context.Background(), nopHost()))
			t.Cleanup(func() { require.NoError(t, proc.Shutdown(context.Background())) })

			cfg := httpConfig(t, "ci-uploader")
			h := startHarness(t, cfg, nopHost())
			h.r.nextTraces = proc
			body, ct := multipartBody(t, map[string][]byte{"pytest.xml": readRepoFile(t, pytestReports+"/pytest-xunit2.xml")})
			r := post(t, uploadURL(cfg), ct, testSecret, body)
			require.Equal(t, http.StatusOK, r.status, "%v", r.body)
			require.Len(t, sink.AllTraces(), 1)
			trusted, ok := runEvent(t, sink.AllTraces()[0]).Get(string(semconv.TestRunTrustedKey))
			require.True(t, ok)
			assert.Equal(t, tc.want, trusted.Bool())
		})
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	require.NoError(t, err)
	return tm
}

// TestUploadWritesNothingToDisk: an upload is parsed as it streams in; not
// one file is written, not even the temporary files a parsed multipart form
// spills into.
func TestUploadWritesNothingToDisk(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	files := map[string][]byte{}
	for _, name := range []string{"pytest-xunit1.xml", "pytest-xunit2.xml", "coverage.xml"} {
		files[name] = readRepoFile(t, pytestReports+"/"+name)
	}
	// Past the 10 MiB a parsed multipart form keeps in memory before it
	// spills into temporary files.
	files["big1.xml"] = junitOfSizeTest(6 << 20)
	files["big2.xml"] = bytes.ReplaceAll(junitOfSizeTest(6<<20), []byte("pkg.Big"), []byte("pkg.Big2"))
	body, ct := multipartBody(t, files)
	r := post(t, uploadURL(cfg), ct, testSecret, body)
	require.Equal(t, http.StatusOK, r.status, "%v", r.body)
	require.Len(t, h.traces.AllTraces(), 1)
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries)
}

// junitOfSizeTest is a JUnit report of about size bytes: passing cases
// with long output.
func junitOfSizeTest(size int) []byte {
	var b bytes.Buffer
	b.WriteString("<testsuites><testsuite name=\"big\">\n")
	out := strings.Repeat("output line\n", 1000)
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "<testcase classname=\"pkg.Big\" name=\"test_%07d\" time=\"0.001\"><system-out>%s</system-out></testcase>\n", i, out)
	}
	b.WriteString("</testsuite></testsuites>\n")
	return b.Bytes()
}

func TestUploadStatuses(t *testing.T) {
	cfg := httpConfig(t, "ci")
	h := startHarness(t, cfg, nopHost())
	report := readRepoFile(t, pytestReports+"/pytest-xunit2.xml")
	for _, tc := range []struct {
		name, method, query, contentType string
		body                             func() io.Reader
		want                             int
		detail                           string
	}{
		{"not POST", http.MethodPut, "", "application/json", func() io.Reader { return strings.NewReader("{}") }, http.StatusMethodNotAllowed, "POST"},
		{"other content type", http.MethodPost, "", "text/plain", func() io.Reader { return strings.NewReader("x") }, http.StatusUnsupportedMediaType, "multipart/form-data"},
		{"no file part", http.MethodPost, "", "", func() io.Reader { return nil }, http.StatusBadRequest, "no report file"},
		{"bad exit code", http.MethodPost, "?exit_code=300", "", func() io.Reader { return nil }, http.StatusBadRequest, "exit_code"},
		{"ended before started", http.MethodPost, "?started_at=2026-01-02T03:04:05Z&ended_at=2026-01-01T00:00:00Z", "", func() io.Reader { return nil }, http.StatusBadRequest, "ended_at"},
		{"malformed run JSON", http.MethodPost, "", "application/json", func() io.Reader { return strings.NewReader(`{"id": "x", "id": "y"}`) }, http.StatusBadRequest, "refused"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, ct := tc.body(), tc.contentType
			if body == nil {
				files := map[string][]byte{"pytest.xml": report}
				if tc.name == "no file part" {
					files = nil
				}
				var b *bytes.Buffer
				b, ct = multipartBody(t, files)
				body = b
			}
			req, err := http.NewRequest(tc.method, uploadURL(cfg)+tc.query, body)
			require.NoError(t, err)
			req.Header.Set("Content-Type", ct)
			req.Header.Set("Authorization", "Bearer "+testSecret)
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			assert.Equal(t, tc.want, resp.StatusCode, "%s", b)
			assert.Equal(t, "application/problem+json", resp.Header.Get("Content-Type"))
			assert.Contains(t, string(b), tc.detail)
		})
	}
	assert.Empty(t, h.traces.AllTraces())
}

// TestUploadPortTaken: a server that cannot listen fails Start with the
// reason, and the receiver still shuts down.
func TestUploadPortTaken(t *testing.T) {
	cfg := httpConfig(t, "ci")
	ln, err := net.Listen("tcp", cfg.HTTP.Get().NetAddr.Endpoint)
	require.NoError(t, err)
	defer ln.Close()
	r, err := shared(cfg, metadataSettings())
	require.NoError(t, err)
	err = r.Start(context.Background(), nopHost())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "http")
	require.NoError(t, r.Shutdown(context.Background()))
}

// TestUploadSlowBodyCut: an upload whose body stalls (a slowloris with the
// secret) does not hold its connection, nor the collector's shutdown, for
// ever: the server's read timeout, on by default, cuts it, and nothing is
// delivered.
func TestUploadSlowBodyCut(t *testing.T) {
	assert.Positive(t, DefaultUploadReadTimeout)
	assert.Equal(t, DefaultUploadReadTimeout, defaultHTTPConfig().ReadTimeout, "a read timeout by default")

	cfg := httpConfig(t, "ci")
	h := cfg.HTTP.Get()
	h.ReadTimeout = 200 * time.Millisecond
	hs := startHarness(t, cfg, nopHost())
	conn, err := net.Dial("tcp", h.NetAddr.Endpoint)
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{\"run\":", UploadPath, testSecret)
	require.NoError(t, err)
	// Bounded wait: the server answers or closes the connection.
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(time.Minute)))
	_, err = io.ReadAll(conn)
	var ne net.Error
	require.False(t, errors.As(err, &ne) && ne.Timeout(), "the server still held the stalled upload after a minute")
	assert.Empty(t, hs.traces.AllTraces())
}
