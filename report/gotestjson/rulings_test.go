package gotestjson_test

import (
	"encoding/json"
	"iter"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/testrun"
)

// ev writes one event of package p: action, then test (or ""), then
// optional extra fields as raw JSON ("Elapsed", "0.5").
func ev(action, pkg, test string, extra ...string) string {
	f := []string{"Action", `"` + action + `"`}
	if pkg != "" {
		f = append(f, "Package", `"`+pkg+`"`)
	}
	if test != "" {
		f = append(f, "Test", `"`+test+`"`)
	}
	return event(append(f, extra...)...)
}

func out(pkg, test, text string) string {
	b, _ := json.Marshal(text)
	return ev("output", pkg, test, "Output", string(b))
}

func build(t *testing.T, stream string, opts ...gotestjson.Option) *testrun.Run {
	t.Helper()
	rep, err := gotestjson.Parse(strings.NewReader(stream), "s.json", opts...)
	require.NoError(t, err)
	b := testrun.NewBuilder()
	n := rep.Len()
	b.AddReport(testrun.ReportInfo{Path: "s.json", Tests: &n}, rep.Executions, nil)
	return b.Build()
}

func message(run *testrun.Run, id string) string {
	for _, f := range run.Failures {
		if f.ID == id {
			return f.Message
		}
	}
	return "<none>"
}

// TestRulings: how the events of a stream become outcomes.
func TestRulings(t *testing.T) {
	t.Run("count=2 pass then fail is failed and flaky", func(t *testing.T) {
		// The last outcome wins, as for retries in a JUnit suite; gotestsum's
		// JUnit writes failures first and would read passed.
		run := build(t, ev("start", "p", "")+ev("run", "p", "T")+ev("pass", "p", "T")+
			ev("run", "p", "T")+out("p", "T", "    t_test.go:3: second run fails\n")+ev("fail", "p", "T")+ev("fail", "p", ""))
		assert.Equal(t, testrun.OutcomeFailed, run.Cases["p::T"])
		assert.Equal(t, []string{"p::T"}, run.Flaky)
		assert.Equal(t, "t_test.go:3: second run fails", message(run, "p::T"))
		assert.Equal(t, testrun.Counts{Total: 1, Failed: 1, Flaky: 1}, *run.Counts)
	})
	t.Run("a package tested again in a joined stream is another configuration", func(t *testing.T) {
		one := ev("start", "p", "") + ev("run", "p", "T") + ev("fail", "p", "T") + ev("fail", "p", "")
		two := ev("start", "p", "") + ev("run", "p", "T") + ev("pass", "p", "T") + ev("pass", "p", "")
		run := build(t, one+two)
		assert.Equal(t, testrun.OutcomeFailed, run.Cases["p::T"], "the worst outcome wins")
		assert.Empty(t, run.Flaky)
	})
	t.Run("Go before 1.24: a build failure is only a line of output", func(t *testing.T) {
		run := build(t, out("p", "", "FAIL\tp [build failed]\n")+ev("fail", "p", "", "Elapsed", "0"))
		assert.Equal(t, map[string]testrun.Outcome{"p::<build failed>": testrun.OutcomeError}, run.Cases)
		assert.Equal(t, "FAIL\tp [build failed]", message(run, "p::<build failed>"))
	})
	t.Run("a build failure without its output gives the package's output", func(t *testing.T) {
		run := build(t, ev("start", "p", "")+out("p", "", "FAIL\tp [build failed]\n")+ev("fail", "p", "", "FailedBuild", `"p [p.test]"`))
		assert.Equal(t, "FAIL\tp [build failed]", message(run, "p::<build failed>"))
	})
	t.Run("a failing test explains its package's failure", func(t *testing.T) {
		run := build(t, ev("run", "p", "T")+ev("fail", "p", "T")+out("p", "", "FAIL\nexit status 1\n")+ev("fail", "p", ""))
		assert.Equal(t, map[string]testrun.Outcome{"p::T": testrun.OutcomeFailed}, run.Cases)
	})
	t.Run("a test still running when its package passed failed", func(t *testing.T) {
		run := build(t, ev("run", "p", "T")+out("p", "T", "=== RUN   T\n    t.go:1: waiting\n")+ev("pass", "p", ""))
		assert.Equal(t, map[string]testrun.Outcome{"p::T": testrun.OutcomeFailed}, run.Cases)
		assert.Equal(t, "t.go:1: waiting\n(the test was still running when its package ended)", message(run, "p::T"))
	})
	t.Run("a benchmark that logged ends with bench", func(t *testing.T) {
		run := build(t, out("p", "BenchmarkX", "    b_test.go:5: log\n")+ev("bench", "p", "BenchmarkX")+ev("pass", "p", ""))
		assert.Equal(t, map[string]testrun.Outcome{"p::BenchmarkX": testrun.OutcomePassed}, run.Cases)
	})
	t.Run("test2json run without -p: ids are test names", func(t *testing.T) {
		run := build(t, ev("start", "", "")+ev("run", "", "TestA")+ev("pass", "", "TestA")+ev("fail", "", ""))
		assert.Equal(t, map[string]testrun.Outcome{"TestA": testrun.OutcomePassed, "<package failed>": testrun.OutcomeError}, run.Cases)
	})
	t.Run("unknown actions and fields are passed over", func(t *testing.T) {
		run := build(t, ev("start", "p", "", "Future", `{"a":[1,2]}`)+ev("run", "p", "T")+
			ev("attr", "p", "T", "Key", `"k"`, "Value", `"v"`)+ev("artifacts", "p", "T", "Path", `"/x"`)+
			ev("pass", "p", "T", "Elapsed", "1.25")+ev("pass", "p", ""))
		assert.Equal(t, map[string]testrun.Outcome{"p::T": testrun.OutcomePassed}, run.Cases)
		assert.Equal(t, map[string]time.Duration{"p::T": 1250 * time.Millisecond}, run.Durations)
	})
	t.Run("an Elapsed that is no time is unknown", func(t *testing.T) {
		run := build(t, ev("run", "p", "A")+ev("pass", "p", "A", "Elapsed", "-1")+
			ev("run", "p", "B")+ev("pass", "p", "B", "Elapsed", "1e12")+ev("run", "p", "C")+ev("pass", "p", "C")+ev("pass", "p", ""))
		assert.Empty(t, run.Durations)
	})
	t.Run("framing lines are left out, output after the end too", func(t *testing.T) {
		run := build(t, ev("run", "p", "T")+out("p", "T", "=== RUN   T\n=== PAUSE T\n=== CONT  T\n")+
			out("p", "T", "    t.go:9: got ")+out("p", "T", "4\n")+out("p", "T", "        --- FAIL: T (0.00s)\n")+
			ev("fail", "p", "T")+out("p", "T", "late\n")+ev("fail", "p", ""))
		assert.Equal(t, "t.go:9: got 4", message(run, "p::T"))
	})
	t.Run("CRLF line endings and blank lines are read", func(t *testing.T) {
		s := strings.ReplaceAll(ev("run", "p", "T")+"\n"+ev("skip", "p", "T")+ev("pass", "p", ""), "\n", "\r\n")
		run := build(t, s)
		assert.Equal(t, map[string]testrun.Outcome{"p::T": testrun.OutcomeSkipped}, run.Cases)
	})
}

// TestMessageBounded: a test's output is kept up to the message limit,
// from its start, cut on a rune boundary.
func TestMessageBounded(t *testing.T) {
	var b strings.Builder
	line := "    größe: " + strings.Repeat("ü", 50) + "\n"
	b.WriteString(ev("run", "p", "T"))
	for range 1000 {
		b.WriteString(out("p", "T", line))
	}
	b.WriteString(ev("fail", "p", "T") + ev("run", "p", "U"))
	for range 1000 {
		b.WriteString(out("p", "U", strings.Repeat("x", 99)))
	}
	b.WriteString(ev("fail", "p", ""))
	s := b.String()
	full := strings.TrimSpace(strings.Repeat(line, 1000))
	for _, max := range []int{20, 101, 1000} {
		rep, err := gotestjson.Parse(strings.NewReader(s), "s.json", gotestjson.WithMaxMessage(max))
		require.NoError(t, err)
		require.Len(t, rep.Executions, 2)
		for _, e := range rep.Executions {
			assert.LessOrEqual(t, len(e.Message), max, e.ID)
			assert.True(t, utf8.ValidString(e.Message), "%s: %q", e.ID, e.Message)
			switch e.ID {
			case "p::T":
				assert.True(t, strings.HasPrefix(full, e.Message), "%q", e.Message)
				assert.Greater(t, len(e.Message), max-8, "the start of the output up to the limit")
			case "p::U":
				if max > len(stillRunningText)+1 {
					assert.True(t, strings.HasPrefix(e.Message, "xxx"), "%q", e.Message)
					assert.True(t, strings.HasSuffix(e.Message, "\n"+stillRunningText), "%q", e.Message)
				} else {
					assert.True(t, strings.HasPrefix(stillRunningText, e.Message), "%q", e.Message)
				}
			}
		}
	}
}

const stillRunningText = "(the test was still running when its package ended)"

// TestBatches: handed over in batches (as package report reads a run),
// the executions come once the stream was read whole, and none come from
// a refused stream.
func TestBatches(t *testing.T) {
	collect := func(stream string) ([]string, *gotestjson.Report, error) {
		var ids []string
		rep, err := gotestjson.Parse(strings.NewReader(stream), "s.json", parseopt.WithBatches(func(execs iter.Seq[*testrun.Execution]) {
			for e := range execs {
				ids = append(ids, e.ID)
			}
		}))
		return ids, rep, err
	}
	ids, rep, err := collect(ev("run", "p", "A") + ev("pass", "p", "A") + ev("run", "p", "B") + ev("skip", "p", "B") + ev("pass", "p", ""))
	require.NoError(t, err)
	assert.Equal(t, []string{"p::A", "p::B"}, ids)
	assert.Nil(t, rep.Executions)
	assert.Equal(t, 2, rep.Len())

	ids, rep, err = collect(ev("run", "p", "A") + ev("pass", "p", "A") + ev("run", "p", "B"))
	require.ErrorIs(t, err, report.ErrTruncated)
	assert.Empty(t, ids)
	assert.Zero(t, rep.Len())
}

// TestDetect: the sniff tells a go test -json stream from other reports by
// its first line.
func TestDetect(t *testing.T) {
	tests := []struct {
		head string
		want bool
	}{
		{string(readReport(t, "go-test.json")[:4096]), true},
		{string(readReport(t, "go-test-timeout.json")[:100]), true},
		{`{"ImportPath":"p [p.test]","Action":"build-output","Output":"# p\n"}` + "\n", true},
		{"\n  " + `{"Action":"start","Package":"p"}` + "\n", true},
		{`{"Time":"2026-01-01T00:00:00Z","Action":"st`, true},
		{`{"Time":"2026-01-01T00:00:00Z","Pack`, false},
		{`{"name":"x"}` + "\n", false},
		{`{"Action":1}` + "\n", false},
		{`[{"Action":"start"}]` + "\n", false},
		{`<?xml version="1.0"?><testsuites/>`, false},
		{"TN:\nSF:a.go\n", false},
		{"ok  \tp\t0.01s\n", false},
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, gotestjson.Detect([]byte(tt.head)), "%.60q", tt.head)
	}
}
