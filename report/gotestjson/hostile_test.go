package gotestjson_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/report/gotestjson"
)

// TestHostile: each file of testdata/hostile is refused whole, for its
// reason, at its line.
func TestHostile(t *testing.T) {
	tests := map[string]struct {
		err  error
		line int
		says string
	}{
		"plain-text-line.json":         {gotestjson.ErrMalformed, 2, "not a go test -json event"},
		"duplicate-key.json":           {gotestjson.ErrMalformed, 2, `key "Test" given twice`},
		"key-case-twice.json":          {gotestjson.ErrMalformed, 3, `key "ACTION" given twice`},
		"key-escaped-twice.json":       {gotestjson.ErrMalformed, 3, `key "Action" given twice`},
		"key-other-case.json":          {gotestjson.ErrMalformed, 1, `key "package" is not "Package"`},
		"elapsed-string.json":          {gotestjson.ErrMalformed, 3, "Elapsed is a string, not a number"},
		"no-action.json":               {gotestjson.ErrMalformed, 2, "no Action"},
		"two-events-one-line.json":     {gotestjson.ErrMalformed, 2, "data after the event's object"},
		"array.json":                   {gotestjson.ErrMalformed, 2, "not a JSON object"},
		"null-test.json":               {gotestjson.ErrMalformed, 2, "Test is null"},
		"invalid-utf8.json":            {report.ErrBinary, 2, "invalid UTF-8"},
		"nul-byte.json":                {report.ErrBinary, 2, "NUL"},
		"cut-mid-event.json":           {report.ErrTruncated, 3, "in the middle of an event"},
		"package-never-ended.json":     {report.ErrTruncated, 3, `package "p" never ended (test "TestSlow" was running)`},
		"build-failed-unreported.json": {report.ErrTruncated, 2, `the build of "p [p.test]" failed and no package reported it`},
		"package-again-cut-short.json": {report.ErrTruncated, 5, `package "p" never ended`},
		"blank.json":                   {report.ErrEmpty, 0, ""},
	}
	files, err := filepath.Glob(filepath.Join("testdata", "hostile", "*"))
	require.NoError(t, err)
	require.Len(t, files, len(tests), "every hostile file has its case")
	for _, file := range files {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			tt, ok := tests[name]
			require.True(t, ok, "no case for %s", name)
			data, err := os.ReadFile(file)
			require.NoError(t, err)
			rep, err := gotestjson.Parse(bytes.NewReader(data), name)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.err)
			require.NotNil(t, rep)
			assert.Empty(t, rep.Executions, "a refused stream adds no test")
			assert.Zero(t, rep.Len())
			var se *gotestjson.SyntaxError
			if tt.line > 0 {
				require.ErrorAs(t, err, &se)
				assert.Equal(t, tt.line, se.Line)
				assert.Contains(t, report.Describe(err), tt.says)
			}
		})
	}
}

// realStream is the go test -json stream of the fixture module.
func realStream(t *testing.T) []byte { return readReport(t, "go-test.json") }

// TestCutShort: the real stream cut anywhere inside a package, in the
// middle of a line or at a line's end, is refused as truncated, never
// read as fewer tests. Cut just after a package ended (and before the next
// began), it cannot be told from a shorter run: go test -json writes no
// end of stream.
func TestCutShort(t *testing.T) {
	data := realStream(t)
	lastEnd := bytes.LastIndex(data, []byte(`"Action":"fail","Package":"example.com/gotestjson/sub","Elapsed"`))
	require.Positive(t, lastEnd)
	boundaries := 0
	for _, n := range []int{1, 40, len(data) / 3, len(data) / 2, lastEnd} {
		rep, err := gotestjson.Parse(bytes.NewReader(data[:n]), "go-test.json")
		require.ErrorIs(t, err, report.ErrTruncated, "cut at %d", n)
		require.Zero(t, rep.Len(), "cut at %d", n)
	}
	// open holds the packages begun and not ended before the cut (go
	// test writes a package's start as its binary starts, and its other
	// events once it has ended, so starts run ahead).
	open := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	n := 0
	for sc.Scan() {
		line := sc.Bytes()
		n += len(line) + 1
		if n > lastEnd {
			break
		}
		var ev struct{ Action, Package, Test, ImportPath string }
		require.NoError(t, json.Unmarshal(line, &ev))
		switch {
		case ev.ImportPath != "":
			// A build's output alone may be a warning; its failure
			// must be reported by a package.
			if ev.Action == "build-fail" {
				open["build "+ev.ImportPath] = true
			}
		case ev.Action == "fail" && ev.Test == "" && strings.Contains(string(line), `"FailedBuild"`):
			open[ev.Package] = false
			for k := range open {
				if strings.HasPrefix(k, "build ") {
					open[k] = false
				}
			}
		case ev.Test == "" && (ev.Action == "pass" || ev.Action == "fail" || ev.Action == "skip"):
			open[ev.Package] = false
		default:
			open[ev.Package] = true
		}
		rep, err := gotestjson.Parse(bytes.NewReader(data[:n]), "go-test.json")
		if !slices.Contains(slices.Collect(maps.Values(open)), true) {
			boundaries++
			require.NoError(t, err, "cut after %s", line)
			require.Less(t, rep.Len(), 29)
			continue
		}
		require.ErrorIs(t, err, report.ErrTruncated, "cut after %s", line)
		require.Zero(t, rep.Len(), "cut after %s", line)
	}
	assert.Positive(t, boundaries)
	// The whole stream, also without its last line ending, is read.
	rep, err := gotestjson.Parse(bytes.NewReader(bytes.TrimSuffix(data, []byte("\n"))), "go-test.json")
	require.NoError(t, err)
	assert.Equal(t, 29, rep.Len())
}

// event is one line of a stream for the tests.
func event(fields ...string) string {
	var b strings.Builder
	b.WriteString("{")
	for i := 0; i+1 < len(fields); i += 2 {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString(`"` + fields[i] + `":` + fields[i+1])
	}
	b.WriteString("}\n")
	return b.String()
}

// TestLimits: a stream over a limit is refused with the limit named, and
// nothing it held is kept.
func TestLimits(t *testing.T) {
	var many strings.Builder
	many.WriteString(event("Action", `"start"`, "Package", `"p"`))
	for i := 0; i < 11; i++ {
		many.WriteString(event("Action", `"run"`, "Package", `"p"`, "Test", `"T`+strings.Repeat("x", i)+`"`))
	}
	many.WriteString(event("Action", `"pass"`, "Package", `"p"`))

	long := event("Action", `"start"`, "Package", `"p"`) +
		event("Action", `"output"`, "Package", `"p"`, "Output", `"`+strings.Repeat("a", gotestjson.MaxLineBytes)+`"`) +
		event("Action", `"pass"`, "Package", `"p"`)
	// A line one byte over the limit, and one at it.
	head := `{"Action":"output","Package":"p","Output":"`
	overBy := func(n int) string {
		return event("Action", `"start"`, "Package", `"p"`) +
			head + strings.Repeat("b", gotestjson.MaxLineBytes+n-len(head)-2) + "\"}\n" +
			event("Action", `"pass"`, "Package", `"p"`)
	}
	_, err := gotestjson.Parse(strings.NewReader(overBy(0)), "s.json")
	require.NoError(t, err, "a line of MaxLineBytes is read")
	tests := []struct {
		name  string
		data  string
		opts  []gotestjson.Option
		limit report.Limit
		max   int64
	}{
		{"bytes", many.String(), []gotestjson.Option{gotestjson.WithLimits(gotestjson.Limits{MaxBytes: 200})}, report.LimitBytes, 200},
		{"cases", many.String(), []gotestjson.Option{gotestjson.WithLimits(gotestjson.Limits{MaxCases: 10})}, report.LimitCases, 10},
		{"line", long, nil, gotestjson.LimitLineLength, gotestjson.MaxLineBytes},
		{"line one byte over", overBy(1), nil, gotestjson.LimitLineLength, gotestjson.MaxLineBytes},
		{"line one byte over, CRLF", strings.ReplaceAll(overBy(1), "\n", "\r\n"), nil, gotestjson.LimitLineLength, gotestjson.MaxLineBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := gotestjson.Parse(strings.NewReader(tt.data), "s.json", tt.opts...)
			require.ErrorIs(t, err, report.ErrLimit)
			var le *report.LimitError
			require.True(t, errors.As(err, &le))
			assert.Equal(t, tt.limit, le.Limit)
			assert.Equal(t, tt.max, le.Max)
			assert.Zero(t, rep.Len())
			assert.Empty(t, rep.Executions)
		})
	}
	// At the limits, the same streams are read.
	rep, err := gotestjson.Parse(strings.NewReader(many.String()), "s.json", gotestjson.WithLimits(gotestjson.Limits{MaxCases: 11, MaxBytes: int64(many.Len())}))
	require.NoError(t, err)
	assert.Equal(t, 11, rep.Len())
}
