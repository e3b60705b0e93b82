package testrun

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func ntests(n int) *int { return &n }

func exec(scope, id string, o Outcome, msg string) Execution {
	return Execution{ID: id, Scope: scope, Outcome: o, Message: msg}
}

func TestBuilderMerge(t *testing.T) {
	tests := []struct {
		name     string
		execs    []Execution
		counts   Counts
		cases    map[string]Outcome
		flaky    []string
		failures []Failure
	}{
		{
			name:   "distinct ids",
			execs:  []Execution{exec("s1", "a::x", OutcomePassed, ""), exec("s1", "a::y", OutcomeFailed, "boom"), exec("s1", "a::z", OutcomeSkipped, ""), exec("s1", "a::w", OutcomeError, "err")},
			counts: Counts{Total: 4, Passed: 1, Failed: 1, Errors: 1, Skipped: 1},
			cases:  map[string]Outcome{"a::x": OutcomePassed, "a::y": OutcomeFailed, "a::z": OutcomeSkipped, "a::w": OutcomeError},
			failures: []Failure{
				{ID: "a::y", Outcome: OutcomeFailed, Message: "boom"},
				{ID: "a::w", Outcome: OutcomeError, Message: "err"},
			},
		},
		{
			name:   "retry in one suite: failed then passed is flaky and passed",
			execs:  []Execution{exec("s1", "a::x", OutcomeFailed, "first"), exec("s1", "a::x", OutcomePassed, "")},
			counts: Counts{Total: 1, Passed: 1, Flaky: 1},
			cases:  map[string]Outcome{"a::x": OutcomePassed},
			flaky:  []string{"a::x"},
		},
		{
			name:     "retry in one suite: last outcome wins",
			execs:    []Execution{exec("s1", "a::x", OutcomeFailed, "first"), exec("s1", "a::x", OutcomeError, "second")},
			counts:   Counts{Total: 1, Errors: 1},
			cases:    map[string]Outcome{"a::x": OutcomeError},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeError, Message: "second"}},
		},
		{
			name:     "retry in one suite: the last failure's message, even none",
			execs:    []Execution{exec("s1", "a::x", OutcomeFailed, "first"), exec("s1", "a::x", OutcomePassed, ""), exec("s1", "a::x", OutcomeFailed, "")},
			counts:   Counts{Total: 1, Failed: 1, Flaky: 1},
			cases:    map[string]Outcome{"a::x": OutcomeFailed},
			flaky:    []string{"a::x"},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeFailed, Message: "", Flaky: true}},
		},
		{
			name:     "configurations: worst outcome wins, not flaky",
			execs:    []Execution{exec("chromium", "a::x", OutcomePassed, ""), exec("firefox", "a::x", OutcomeFailed, "ff"), exec("webkit", "a::x", OutcomeSkipped, "")},
			counts:   Counts{Total: 1, Failed: 1},
			cases:    map[string]Outcome{"a::x": OutcomeFailed},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeFailed, Message: "ff"}},
		},
		{
			name:     "configurations: error beats failed",
			execs:    []Execution{exec("s1", "a::x", OutcomeFailed, "f"), exec("s2", "a::x", OutcomeError, "e")},
			counts:   Counts{Total: 1, Errors: 1},
			cases:    map[string]Outcome{"a::x": OutcomeError},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeError, Message: "e"}},
		},
		{
			name:   "configurations: passed beats skipped",
			execs:  []Execution{exec("s1", "a::x", OutcomeSkipped, ""), exec("s2", "a::x", OutcomePassed, "")},
			counts: Counts{Total: 1, Passed: 1},
			cases:  map[string]Outcome{"a::x": OutcomePassed},
		},
		{
			name:     "flaky in one suite, failed in another: failed and flaky",
			execs:    []Execution{exec("s1", "a::x", OutcomeFailed, "1"), exec("s1", "a::x", OutcomePassed, ""), exec("s2", "a::x", OutcomeFailed, "2")},
			counts:   Counts{Total: 1, Failed: 1, Flaky: 1},
			cases:    map[string]Outcome{"a::x": OutcomeFailed},
			flaky:    []string{"a::x"},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeFailed, Message: "2", Flaky: true}},
		},
		{
			name:   "runner-reported flaky",
			execs:  []Execution{{ID: "a::x", Scope: "s1", Outcome: OutcomePassed, RunnerFlaky: true}},
			counts: Counts{Total: 1, Passed: 1, Flaky: 1},
			cases:  map[string]Outcome{"a::x": OutcomePassed},
			flaky:  []string{"a::x"},
		},
		{
			name:     "runner configured flaky as failure",
			execs:    []Execution{{ID: "a::x", Scope: "s1", Outcome: OutcomeFailed, Message: "passed on attempt 4/4", RunnerFlaky: true}},
			counts:   Counts{Total: 1, Failed: 1, Flaky: 1},
			cases:    map[string]Outcome{"a::x": OutcomeFailed},
			flaky:    []string{"a::x"},
			failures: []Failure{{ID: "a::x", Outcome: OutcomeFailed, Message: "passed on attempt 4/4", Flaky: true}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := NewBuilder(WithRedactor(NewRedactor(nil)))
			b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(tt.execs))}, tt.execs, nil)
			r := b.Build()
			require.NotNil(t, r.Counts)
			assert.Equal(t, tt.counts, *r.Counts)
			assert.Equal(t, tt.cases, r.Cases)
			assert.Equal(t, tt.flaky, r.Flaky)
			assert.Equal(t, tt.failures, r.Failures)
			assert.True(t, r.Complete)
			c := r.Counts
			assert.Equal(t, c.Total, c.Passed+c.Failed+c.Errors+c.Skipped)
		})
	}
}

func TestBuilderLimits(t *testing.T) {
	b := NewBuilder(WithRedactor(NewRedactor(nil)), WithMaxCases(50), WithMaxFailures(5), WithMaxMessage(10))
	var execs []Execution
	for i := range 100 {
		o := OutcomePassed
		if i%10 == 0 {
			o = OutcomeFailed
		}
		execs = append(execs, exec("s", fmt.Sprintf("t%03d", i), o, strings.Repeat("x", 50)))
	}
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(100)}, execs, nil)
	r := b.Build()
	assert.Equal(t, 100, r.Counts.Total)
	assert.Equal(t, 10, r.Counts.Failed)
	assert.Len(t, r.Cases, 50)
	assert.Len(t, r.Failures, 5)
	for i := range 10 { // failing ids are kept first
		assert.Equal(t, OutcomeFailed, r.Cases[fmt.Sprintf("t%03d", i*10)])
	}
	for _, f := range r.Failures {
		assert.Equal(t, 10, len([]rune(f.Message)))
		assert.True(t, strings.HasSuffix(f.Message, "…"))
	}
	assert.Equal(t, "t000", r.Failures[0].ID)
	assert.Equal(t, "t040", r.Failures[4].ID)
}

// TestBuilderKeepOrder pins which outcomes a run over its case limit
// keeps, over ids retried in one suite and run in several: failing ids
// first, then flaky ones in id order, then the rest in report order, each
// id once.
func TestBuilderKeepOrder(t *testing.T) {
	tests := []struct {
		name     string
		maxCases int
		want     map[string]Outcome
	}{
		{"failing only", 1, map[string]Outcome{"m": OutcomeError}},
		{"failing and flaky", 3, map[string]Outcome{"m": OutcomeError, "f1": OutcomePassed, "f2": OutcomePassed}},
		{"then report order", 5, map[string]Outcome{"m": OutcomeError, "f1": OutcomePassed, "f2": OutcomePassed, "p0": OutcomePassed, "p1": OutcomePassed}},
		{"all", 100, map[string]Outcome{"m": OutcomeError, "f1": OutcomePassed, "f2": OutcomePassed, "p0": OutcomePassed, "p1": OutcomePassed, "p2": OutcomePassed}},
	}
	execs := []Execution{
		exec("a", "p0", OutcomePassed, ""),
		exec("a", "f2", OutcomeFailed, "first try"),
		exec("a", "f2", OutcomePassed, ""),
		exec("a", "p1", OutcomePassed, ""),
		exec("a", "m", OutcomePassed, ""),
		exec("b", "m", OutcomeError, "boom"), // worse in another suite, not flaky
		exec("b", "p0", OutcomePassed, ""),
		{ID: "f1", Scope: "a", Outcome: OutcomePassed, RunnerFlaky: true},
		exec("a", "p2", OutcomePassed, ""),
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBuilder(WithRedactor(NewRedactor(nil)), WithMaxCases(tc.maxCases))
			b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(len(execs))}, execs, nil)
			r := b.Build()
			assert.Equal(t, tc.want, r.Cases)
			assert.Equal(t, []string{"f1", "f2"}, r.Flaky)
			assert.Equal(t, Counts{Total: 6, Passed: 5, Errors: 1, Flaky: 2}, *r.Counts)
			require.Len(t, r.Failures, 1)
			assert.Equal(t, Failure{ID: "m", Outcome: OutcomeError, Message: "boom"}, r.Failures[0])
		})
	}
}

func TestBuilderAbsenceIsNeverZero(t *testing.T) {
	t.Run("nothing read", func(t *testing.T) {
		r := NewBuilder().Build()
		assert.Nil(t, r.Counts)
		assert.False(t, r.Complete)
		assert.NotEmpty(t, r.IncompleteReasons)
		r.Kind = KindBase
		assert.True(t, r.Trusted())
		assert.False(t, r.Counted())
	})
	t.Run("every report refused", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "bad.xml", Error: "entity declarations are refused"}, nil, nil)
		r := b.Build()
		assert.Nil(t, r.Counts)
		assert.False(t, r.Complete)
		assert.Equal(t, []string{"bad.xml: entity declarations are refused"}, r.IncompleteReasons)
	})
	t.Run("a refused report adds only its reason", func(t *testing.T) {
		b := NewBuilder()
		covered, valid := int64(1), int64(2)
		b.AddReport(ReportInfo{Path: "big.xml", Tests: ntests(2), Error: "limit exceeded"},
			[]Execution{exec("s", "a", OutcomePassed, ""), exec("s", "b", OutcomeFailed, "boom")}, nil)
		b.AddReport(ReportInfo{Path: "cut.info", Error: "truncated"}, nil,
			&CoverageReport{LinesCovered: &covered, LinesValid: &valid})
		r := b.Build()
		assert.Nil(t, r.Counts, "no report was read whole")
		assert.Nil(t, r.Cases)
		assert.Nil(t, r.Failures)
		assert.Nil(t, r.Flaky)
		assert.Nil(t, r.Coverage)
		assert.Equal(t, []string{"big.xml: limit exceeded", "cut.info: truncated"}, r.IncompleteReasons)
		r.Kind = KindAfterTurn
		assert.False(t, r.Counted(), "an incomplete run is never counted")
	})
	t.Run("a refused report beside a whole one adds nothing", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "ok.xml", Tests: ntests(1)}, []Execution{exec("s", "a", OutcomePassed, "")}, nil)
		b.AddReport(ReportInfo{Path: "cut.xml", Tests: ntests(1), Error: "truncated"},
			[]Execution{{ID: "b", Scope: "x", Outcome: OutcomeFailed}, {ID: "b", Scope: "x", Outcome: OutcomePassed}}, nil)
		r := b.Build()
		require.NotNil(t, r.Counts)
		assert.Equal(t, Counts{Total: 1, Passed: 1}, *r.Counts)
		assert.NotContains(t, r.Cases, "b")
		assert.Empty(t, r.Flaky)
		assert.False(t, r.Complete)
	})
	t.Run("skipped file does not make the run incomplete", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "pom.xml", Error: "not a test report: root <project>", Skipped: true}, nil, nil)
		b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(1)}, []Execution{exec("s", "a", OutcomePassed, "")}, nil)
		r := b.Build()
		assert.True(t, r.Complete)
		assert.Len(t, r.Reports, 2)
	})
	t.Run("empty report: total 0, not counted", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(0)}, nil, nil)
		r := b.Build()
		require.NotNil(t, r.Counts)
		assert.Equal(t, 0, r.Counts.Total)
		assert.True(t, r.Complete)
		r.Kind = KindBase
		assert.False(t, r.Counted())
	})
	t.Run("invalid execution marks incomplete", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(1)}, []Execution{{ID: "", Outcome: OutcomePassed}}, nil)
		assert.False(t, b.Build().Complete)
	})
}

func i64(v int64) *int64     { return &v }
func f64(v float64) *float64 { return &v }

func TestBuilderCoverage(t *testing.T) {
	t.Run("one cobertura as stated", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "coverage.xml"}, nil, &CoverageReport{LineRate: f64(0.75), LinesCovered: i64(3), LinesValid: i64(4)})
		c := b.Build().Coverage
		require.NotNil(t, c)
		assert.Equal(t, 0.75, *c.LineRate)
		assert.Equal(t, int64(3), *c.LinesCovered)
		assert.Equal(t, int64(4), *c.LinesValid)
	})
	t.Run("cobertura with rate only", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "coverage.xml"}, nil, &CoverageReport{LineRate: f64(0.5)})
		c := b.Build().Coverage
		assert.Equal(t, 0.5, *c.LineRate)
		assert.Nil(t, c.LinesCovered)
		assert.Nil(t, c.LinesValid)
	})
	t.Run("one lcov with records of totals only is taken as stated", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{
			"a.go": {Lines: map[int64]bool{1: true, 2: false, 3: false}},
			"b.go": {Found: 10, Hit: 5},
		}})
		r := b.Build()
		c := r.Coverage
		assert.Equal(t, int64(6), *c.LinesCovered) // a.go: 1 of 3; b.go: 5 of 10
		assert.Equal(t, int64(13), *c.LinesValid)
		assert.Empty(t, c.Reason)
		assert.True(t, r.Complete)
	})
	t.Run("lcov merged per source file and line", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{
			"a.go": {Lines: map[int64]bool{1: true, 2: false, 3: false}},
			"b.go": {Lines: map[int64]bool{}},
		}})
		b.AddReport(ReportInfo{Path: "b.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{
			"a.go": {Lines: map[int64]bool{2: true, 4: false}},
			"c.go": {Lines: map[int64]bool{1: true}},
		}})
		c := b.Build().Coverage
		assert.Equal(t, int64(3), *c.LinesCovered) // a.go: 1,2 of 1..4; c.go: 1 of 1
		assert.Equal(t, int64(5), *c.LinesValid)
		assert.InDelta(t, 0.6, *c.LineRate, 1e-9)
	})
	t.Run("the same run written as cobertura and lcov counts each line once", func(t *testing.T) {
		lines := map[int64]bool{4: true, 5: true, 9: false}
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "coverage.xml"}, nil, &CoverageReport{LineRate: f64(2.0 / 3), LinesCovered: i64(2), LinesValid: i64(3),
			Files: map[string]*FileCoverage{"pkg/a.py": {Lines: lines}}})
		b.AddReport(ReportInfo{Path: "lcov.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"pkg/a.py": {Lines: lines}}})
		c := b.Build().Coverage
		assert.Equal(t, int64(2), *c.LinesCovered)
		assert.Equal(t, int64(3), *c.LinesValid)
	})
	t.Run("totals beside other reports are unknown, with the reason", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "coverage.xml"}, nil, &CoverageReport{LineRate: f64(0.5), LinesCovered: i64(5), LinesValid: i64(10)})
		b.AddReport(ReportInfo{Path: "lcov.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{1: true, 2: true}}}})
		r := b.Build()
		c := r.Coverage
		require.NotNil(t, c)
		assert.Nil(t, c.LineRate)
		assert.Nil(t, c.LinesCovered)
		assert.Nil(t, c.LinesValid)
		assert.Equal(t, "coverage.xml states only coverage totals, not lines: they cannot be merged with the run's 1 other coverage report(s), so the totals are unknown", c.Reason)
		assert.True(t, r.Complete, "unknown coverage does not make the run incomplete")

		// The reason is kept in the run's JSON form and read back.
		r.ID, r.Kind = "run-1", KindBase
		data, err := json.Marshal(r)
		require.NoError(t, err)
		assert.Contains(t, string(data), `"coverage":{"line_rate":null,"lines_covered":null,"lines_valid":null,"reason":"coverage.xml states only`)
		var back Run
		require.NoError(t, json.Unmarshal(data, &back))
		assert.Equal(t, *c, *back.Coverage)
	})
	t.Run("an lcov record of totals only beside another report is unknown", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{1: true}}}})
		b.AddReport(ReportInfo{Path: "b.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"y": {Found: 3, Hit: 1}}})
		c := b.Build().Coverage
		require.NotNil(t, c)
		assert.Nil(t, c.LinesValid)
		assert.Contains(t, c.Reason, "b.info states only coverage totals")
	})
	t.Run("sum with a rate-only report is unknown", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "a.xml"}, nil, &CoverageReport{LineRate: f64(0.5)})
		b.AddReport(ReportInfo{Path: "b.xml"}, nil, &CoverageReport{LineRate: f64(0.5), LinesCovered: i64(1), LinesValid: i64(2)})
		c := b.Build().Coverage
		require.NotNil(t, c)
		assert.Nil(t, c.LineRate)
	})
	t.Run("more lines than the run keeps", func(t *testing.T) {
		b := NewBuilder()
		b.cov.maxLines = 3
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{1: true, 2: true}}}})
		b.AddReport(ReportInfo{Path: "b.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{2: true, 3: false}}}})
		r := b.Build()
		require.NotNil(t, r.Coverage)
		assert.EqualValues(t, 3, *r.Coverage.LinesValid, "at the bound: kept")
		b.AddReport(ReportInfo{Path: "c.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{4: false}}}})
		r = b.Build()
		require.NotNil(t, r.Coverage)
		assert.Nil(t, r.Coverage.LinesValid)
		assert.Equal(t, "coverage of more than 3 source lines (the run's limit): the totals are unknown", r.Coverage.Reason)
		assert.False(t, r.Complete)
		assert.Equal(t, []string{"coverage of more than 3 source lines (the run's limit)"}, r.IncompleteReasons)
	})
	t.Run("a line number out of range", func(t *testing.T) {
		for _, line := range []int64{-1, MaxCoverageLineNumber + 1} {
			b := NewBuilder()
			b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{1: true, line: true}}}})
			r := b.Build()
			assert.Nil(t, r.Coverage.LinesValid)
			assert.Contains(t, r.Coverage.Reason, "a.info: coverage of x states a line number outside 0..2147483647")
			assert.False(t, r.Complete)
		}
	})
	t.Run("line 0 names no line", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{"x": {Lines: map[int64]bool{0: true, 1: false}}}})
		c := b.Build().Coverage
		assert.EqualValues(t, 0, *c.LinesCovered)
		assert.EqualValues(t, 1, *c.LinesValid)
	})
	t.Run("more files than the run keeps", func(t *testing.T) {
		b := NewBuilder()
		b.cov.maxFiles = 2
		b.AddReport(ReportInfo{Path: "a.info"}, nil, &CoverageReport{Files: map[string]*FileCoverage{
			"x": {Lines: map[int64]bool{}}, "y": {Lines: map[int64]bool{}}, "z": {Lines: map[int64]bool{}}}})
		r := b.Build()
		assert.Nil(t, r.Coverage.LinesValid)
		assert.Contains(t, r.Coverage.Reason, "more than 2 source files")
		assert.False(t, r.Complete)
	})
	t.Run("no coverage report", func(t *testing.T) {
		b := NewBuilder()
		b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(0)}, nil, nil)
		assert.Nil(t, b.Build().Coverage)
	})
}

func TestBuilderRedactsAndClips(t *testing.T) {
	b := NewBuilder(WithRedactor(NewRedactor([]string{"MY_TOKEN=s3cr3t-value-123"})))
	msg := "login failed: password=hunter2 token leaked s3cr3t-value-123 " + strings.Repeat("y", 3000)
	b.AddReport(ReportInfo{Path: "r.xml", Tests: ntests(1)}, []Execution{exec("s", "a", OutcomeFailed, msg)}, nil)
	f := b.Build().Failures[0]
	assert.NotContains(t, f.Message, "hunter2")
	assert.NotContains(t, f.Message, "s3cr3t-value-123")
	assert.Contains(t, f.Message, "login failed: password="+Redacted)
	assert.Equal(t, DefaultMaxMessageRunes, len([]rune(f.Message)))
}

// TestOutcomeCodes checks the codes addExecution tells outcomes by.
func TestOutcomeCodes(t *testing.T) {
	for code, o := range outcomeCodes {
		if o == "" {
			continue
		}
		assert.Equal(t, uint8(code), outcomeCode(o), "%s", o)
		assert.Equal(t, o.Failing(), code >= codeFailed, "%s", o)
		assert.Equal(t, o == OutcomePassed, code == codePassed, "%s", o)
	}
}

// BenchmarkBuildExpectedIDs is what WithExpectedIDs adds to Build: a run
// of 100,000 cases checked against as many expected ids (MaxExpectedIDs),
// half of which never ran.
func BenchmarkBuildExpectedIDs(b *testing.B) {
	const n = MaxExpectedIDs
	execs := make([]Execution, n)
	expected := make([]string, n)
	for i := range execs {
		execs[i] = Execution{ID: fmt.Sprintf("pkg/module%03d::test_case_%06d", i%500, 2*i), Scope: "report.xml", Outcome: OutcomePassed}
		expected[i] = fmt.Sprintf("pkg/module%03d::test_case_%06d", i%500, i)
	}
	red := NewRedactor(nil)
	tests := n
	for _, bb := range []struct {
		name string
		opts []Option
	}{{"without", nil}, {"with", []Option{WithExpectedIDs(expected)}}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bl := NewBuilder(append([]Option{WithRedactor(red)}, bb.opts...)...)
				bl.AddReport(ReportInfo{Path: "report.xml", Tests: &tests}, execs, nil)
				if r := bl.Build(); bb.opts != nil && r.NotRun.Count == 0 {
					b.Fatal("no expected test never ran")
				}
			}
		})
	}
}
