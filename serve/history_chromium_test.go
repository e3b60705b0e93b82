package serve

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/store"
)

// historyShotsEnv names a folder: when set, TestHistoryPagesInChromium
// also takes screenshots of both pages there (history-repo.png,
// history-test.png).
const historyShotsEnv = "SERVE_HISTORY_SCREENSHOTS"

// chromiumLogged runs the browser with its console logged to stderr and
// returns what it wrote to each.
func chromiumLogged(t *testing.T, bin string, args ...string) (stdout, stderr string) {
	t.Helper()
	ctx, cancel := context.WithDeadline(context.Background(), testDeadline(t))
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--enable-logging=stderr", "--v=0", "--user-data-dir=" + t.TempDir()}
	cmd := exec.CommandContext(ctx, bin, append(base, args...)...)
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	require.NoError(t, err, "chromium: %s", errb.String())
	return string(out), errb.String()
}

// consoleTrouble matches what the browser logs of a script error or a
// refused resource.
var consoleTrouble = regexp.MustCompile(`(?i)uncaught|refused to|content security policy|CONSOLE\(\d+\)`)

// jsLink matches an element whose href is a javascript: URL.
var jsLink = regexp.MustCompile(`<a\s[^>]*href="javascript`)

// TestHistoryPagesInChromium seeds a store with 500 runs of a real
// project's report and loads the repository and test pages in a headless
// browser: the DOM holds each chart's SVG with a dot per run, the strip a
// cell per run linking to it, the hostile id as text, and the console no
// error.
func TestHistoryPagesInChromium(t *testing.T) {
	bin := chromium(t)
	st, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	require.NoError(t, err)
	defer st.Close()
	const runs = 500
	flaky, _ := seedProject(t, st, "hangar-dev/sample", runs, 470)
	srv := historyServer(t, st)
	repoURL := srv.URL + "/repos/tests?" + historyQuery("hangar-dev/sample", "") + "&runs=500"
	testURL := srv.URL + "/repos/tests/history?" + historyQuery("hangar-dev/sample", flaky) + "&runs=500"
	hostileURL := srv.URL + "/repos/tests/history?" + historyQuery("hangar-dev/sample", hostileTest)

	dom, logs := chromiumLogged(t, bin, "--dump-dom", repoURL)
	assert.NotRegexp(t, consoleTrouble, logs)
	for _, id := range []string{"pass-rate", "duration", "coverage", "flaky-count"} {
		svg := regexp.MustCompile(`(?s)<svg id="` + id + `".*?</svg>`).FindString(dom)
		require.NotEmpty(t, svg, id)
		assert.Equal(t, runs, strings.Count(svg, `<circle class="point"`), "a dot per run on %s", id)
		assert.Contains(t, svg, `data-run="run-0499"`)
		assert.Contains(t, svg, `<polyline class="series" points="`)
	}
	assert.Contains(t, dom, `<table id="flakiest">`)
	assert.Contains(t, dom, `<table id="slowest">`)
	assert.Contains(t, dom, `<table id="recently-broken">`)
	assert.Contains(t, dom, `pkg/&lt;script&gt;alert("t")&lt;/script&gt;::Test"'&amp;&lt;/svg&gt;`)
	assert.NotContains(t, dom, "<script")

	dom, logs = chromiumLogged(t, bin, "--dump-dom", testURL)
	assert.NotRegexp(t, consoleTrouble, logs)
	assert.Equal(t, runs, strings.Count(dom, `<rect class="cell `), "a strip cell per run")
	assert.Contains(t, dom, `<a href="/api/jobs/job-49/tests?run=run-0499"><rect class="cell `)
	assert.Equal(t, runs, strings.Count(dom, `<circle class="point"`), "a duration dot per run")
	assert.Contains(t, dom, `<td id="flip-rate">`)

	dom, logs = chromiumLogged(t, bin, "--dump-dom", hostileURL)
	assert.NotRegexp(t, consoleTrouble, logs)
	assert.Contains(t, dom, `<code id="test">pkg/&lt;script&gt;`)
	assert.NotContains(t, dom, "<script")
	assert.False(t, jsLink.MatchString(dom), "no link to a script: the id's markup is text")

	if dir := os.Getenv(historyShotsEnv); dir != "" {
		abs, err := filepath.Abs(dir)
		require.NoError(t, err)
		for _, shot := range []struct{ name, url, size string }{
			{"history-repo.png", repoURL, "1200,1700"},
			{"history-test.png", testURL, "1200,950"},
		} {
			path := filepath.Join(abs, shot.name)
			chromiumLogged(t, bin, "--screenshot="+path, "--window-size="+shot.size, "--hide-scrollbars", shot.url)
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Positive(t, fi.Size())
		}
	}
}
