package translate_test

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// TestFileAndLineFromARealReport follows the place of a failing test from
// a report pytest wrote (junit_family=xunit1, which gives file= and a
// 0-based line=) through the run's JSON form to the test.case event and
// the case span: code.file.path is the file the report names and
// code.line.number the line of the test's def in that file, counted from 1.
func TestFileAndLineFromARealReport(t *testing.T) {
	const dir = "../testdata/runners/pytest"
	run, err := report.ReadRun([]string{filepath.Join(dir, "reports", "pytest-xunit1.xml")})
	require.NoError(t, err)
	run.ID = "pytest-xunit1"
	data, err := run.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(data), `"id":"test_sample::test_failure_with_message","outcome":"failed",`)
	back, err := testrun.ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)

	const id = "test_sample::test_failure_with_message"
	var f testrun.Failure
	for _, g := range back.Failures {
		if g.ID == id {
			f = g
		}
	}
	require.Equal(t, "test_sample.py", f.File)
	assert.Equal(t, "def test_failure_with_message():", sourceLine(t, filepath.Join(dir, f.File), f.Line),
		"the line is the test's def, counted from 1")

	spans, err := translate.JobSpans(translate.Job{ID: "j"}, []*testrun.Run{back}, translate.WithCaseSpans(translate.CaseSpansFailed))
	require.NoError(t, err)
	want := []attribute.KeyValue{semconv.CodeFilePathKey.String("test_sample.py"), semconv.CodeLineNumberKey.Int(f.Line)}
	var events, caseSpans int
	for _, s := range spans {
		for _, e := range s.Events {
			if e.Name == semconv.EventTestCase && hasAttr(e.Attrs, semconv.TestCaseNameKey.String(id)) {
				events++
				assert.Subset(t, e.Attrs, want, "the test.case event")
			}
		}
		if s.Name == id {
			caseSpans++
			assert.Subset(t, s.Attrs, want, "the case span")
		}
	}
	assert.Equal(t, 1, events)
	assert.Equal(t, 1, caseSpans)
}

func hasAttr(attrs []attribute.KeyValue, kv attribute.KeyValue) bool {
	for _, a := range attrs {
		if a == kv {
			return true
		}
	}
	return false
}

// sourceLine returns line n (from 1) of the file at path.
func sourceLine(t *testing.T, path string, n int) string {
	t.Helper()
	fh, err := os.Open(path)
	require.NoError(t, err)
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	for i := 1; sc.Scan(); i++ {
		if i == n {
			return sc.Text()
		}
	}
	require.NoError(t, sc.Err())
	t.Fatalf("%s has fewer than %d lines", path, n)
	return ""
}
