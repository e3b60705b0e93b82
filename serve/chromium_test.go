package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
)

// screenshotEnv names a PNG path: when set, TestJobPageInChromium also
// takes a 1200×900 screenshot of the page there.
const screenshotEnv = "SERVE_SCREENSHOT"

// chromium returns the browser, skipping the test when it is absent
// (failing under CI=true, where scripts/serve-chromium.sh installs it).
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("chromium is absent under CI=true: run scripts/serve-chromium.sh")
	}
	t.Skip("chromium is absent (scripts/serve-chromium.sh installs it)")
	return ""
}

func runChromium(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testDeadline(t))
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", stderr.String())
	return string(out)
}

// TestJobPageInChromium loads /jobs/{id} in a headless browser and reads
// the failing ids, the counts and the escaped message from its DOM.
func TestJobPageInChromium(t *testing.T) {
	bin := chromium(t)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	f := newFixture(t, st)
	url := f.srv.URL + "/jobs/job-1"

	dom := runChromium(t, bin, "--dump-dom", url)
	for _, want := range []string{
		`<td id="count-total">4</td>`,
		`<td id="count-failed" class="fail">2</td>`,
		`<td id="count-passed" class="pass">2</td>`,
		`<code class="failing-id">pkg::TestA</code>`,
		`<code class="failing-id">pkg::TestB</code>`,
		`&lt;script&gt;alert("x")&lt;/script&gt; &amp; more`,
		`<table id="new-failures">`,
	} {
		assert.Contains(t, dom, want)
	}
	assert.NotContains(t, dom, `<script>alert`, "the message is text, not a script")

	if shot := os.Getenv(screenshotEnv); shot != "" {
		abs, err := filepath.Abs(shot)
		require.NoError(t, err)
		runChromium(t, bin, "--screenshot="+abs, "--window-size=1200,900", "--hide-scrollbars", url)
		fi, err := os.Stat(abs)
		require.NoError(t, err)
		assert.Less(t, fi.Size(), int64(300<<10))
	}
}
