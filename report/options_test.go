package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLimitOptions: every limit option lowers its limit, and the report
// over it is refused with that limit's LimitError.
func TestLimitOptions(t *testing.T) {
	dir := t.TempDir()
	var cases strings.Builder
	cases.WriteString(`<testsuite name="s">`)
	for i := 0; i < 5; i++ {
		fmt.Fprintf(&cases, `<testcase name="t%d"/>`, i)
	}
	cases.WriteString(`</testsuite>`)
	junit := writeGenerated(t, "junit.xml", []byte(cases.String()))
	deep := writeGenerated(t, "deep.xml", []byte(`<testsuites><testsuite><testsuite><testcase name="t"/></testsuite></testsuite></testsuites>`))
	lcovFile := writeGenerated(t, "lcov.info", []byte("SF:a.go\nDA:1,1\nDA:2,0\nDA:3,1\nend_of_record\n"))

	tests := []struct {
		name  string
		path  string
		opt   Option
		limit string
	}{
		{"bytes", junit, WithMaxBytes(40), "bytes"},
		{"elements", junit, WithMaxElements(3), "elements"},
		{"depth", deep, WithMaxDepth(3), "depth"},
		{"cases", junit, WithMaxCases(4), "cases"},
		{"records", lcovFile, WithMaxRecords(3), "records"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			run, err := ReadRun([]string{tt.path}, tt.opt)
			require.ErrorIs(t, err, ErrNoReports)
			assert.False(t, run.Complete)
			require.Len(t, run.Reports, 1)
			assert.Contains(t, run.Reports[0].Error, tt.limit+" limit of")

			run, err = ReadRun([]string{tt.path})
			require.NoError(t, err, "the default limits read it")
			assert.True(t, run.Complete)
		})
	}

	t.Run("files and run bytes", func(t *testing.T) {
		run, _ := ReadRun([]string{junit, lcovFile}, WithMaxFiles(1))
		assert.False(t, run.Complete)
		assert.Contains(t, run.IncompleteReasons[0], "files limit of 1 exceeded")

		run, _ = ReadRun([]string{junit, lcovFile}, WithMaxRunBytes(150))
		assert.False(t, run.Complete)
		assert.Contains(t, run.IncompleteReasons[0], "run bytes limit of 150 exceeded")
	})

	t.Run("message", func(t *testing.T) {
		p := filepath.Join(dir, "msg.xml")
		require.NoError(t, os.WriteFile(p, []byte(`<testsuite><testcase name="t"><failure message="`+strings.Repeat("m", 100)+`"/></testcase></testsuite>`), 0o644))
		res, err := ParseFile(p, WithMaxMessage(10))
		require.NoError(t, err)
		require.Len(t, res.Executions, 1)
		assert.Equal(t, strings.Repeat("m", 10), res.Executions[0].Message)
	})
}

// TestNewerThan: reports older than the run are not its evidence. A file
// named directly is listed as skipped (stale); an old file in a folder is
// passed over.
func TestNewerThan(t *testing.T) {
	dir := t.TempDir()
	old := filepath.Join(dir, "old.xml")
	fresh := filepath.Join(dir, "fresh.xml")
	require.NoError(t, os.WriteFile(old, []byte(`<testsuite><testcase name="old"/></testsuite>`), 0o644))
	require.NoError(t, os.WriteFile(fresh, []byte(`<testsuite><testcase name="fresh"/></testsuite>`), 0o644))
	start := time.Now().Add(-time.Minute)
	require.NoError(t, os.Chtimes(old, start.Add(-time.Hour), start.Add(-time.Hour)))

	run, err := ReadRun([]string{dir}, WithNewerThan(start))
	require.NoError(t, err)
	assert.Equal(t, 1, run.Counts.Total)
	assert.Contains(t, run.Cases, "fresh")
	assert.True(t, run.Complete)

	run, err = ReadRun([]string{old}, WithNewerThan(start))
	require.ErrorIs(t, err, ErrNoReports)
	require.Len(t, run.Reports, 1)
	assert.True(t, run.Reports[0].Skipped)
	assert.Contains(t, run.Reports[0].Error, "older than the run")
}
