package testrun

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRunJSONUnknownIsNull(t *testing.T) {
	r := NewBuilder().Build()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	for _, k := range []string{"id", "kind", "grade", "command", "status", "exit_code", "commit", "tree", "agent_run_id", "started_at", "ended_at", "counts", "coverage", "cases", "failures", "flaky"} {
		v, ok := m[k]
		assert.True(t, ok, "field %s present", k)
		assert.Nil(t, v, "field %s is null", k)
	}
	for _, k := range []string{"reports", "incomplete_reasons"} {
		assert.IsType(t, []any{}, m[k], "field %s is a list", k)
	}
	assert.Equal(t, false, m["complete"])
	assert.Equal(t, false, m["trusted"])
	assert.Equal(t, false, m["counted"])
	assert.Len(t, m, 21)
}

func TestRunJSONRoundTrip(t *testing.T) {
	b := NewBuilder(WithRedactor(NewRedactor(nil)))
	b.AddReport(ReportInfo{Path: "r.xml", Dialect: "pytest-xunit2", Bytes: 10, SHA256: "ab", Tests: ntests(2)}, []Execution{
		exec("s", "t::a", OutcomePassed, ""), exec("s", "t::b", OutcomeFailed, "bad"),
	}, nil)
	b.AddReport(ReportInfo{Path: "coverage.xml", Dialect: "cobertura", Bytes: 5, SHA256: "cd"}, nil, &CoverageReport{LineRate: f64(0.5)})
	r := b.Build()
	code := 1
	r.ID, r.Kind, r.Command, r.Status, r.ExitCode = "run-1", KindAfterTurn, "pytest -q", StatusFailure, &code
	r.Commit, r.Tree, r.AgentRunID = "abc123", "tree1", "agent-7"
	r.StartedAt = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r.EndedAt = r.StartedAt.Add(time.Minute)

	data, err := json.MarshalIndent(r, "", "  ")
	require.NoError(t, err)
	assert.Contains(t, string(data), `"trusted": true`)
	assert.Contains(t, string(data), `"counted": true`)
	assert.Contains(t, string(data), `"error": null`)
	assert.Contains(t, string(data), `"tests": null`)

	var back Run
	require.NoError(t, json.Unmarshal(data, &back))
	assert.Equal(t, *r, back)
}

func TestRunJSONCasesLeftOut(t *testing.T) {
	r, err := ReadRun(strings.NewReader(validRunJSON))
	require.NoError(t, err)
	r.Durations = map[string]time.Duration{"t::a": time.Second}
	out, err := r.MarshalJSONCasesLeftOut()
	require.NoError(t, err)
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(out, &m))
	assert.Equal(t, "null", string(m["cases"]), "left out is unknown, not none")
	assert.NotContains(t, m, "durations")
	assert.JSONEq(t, `["t::a"]`, string(m["flaky"]), "only the cases are left out")

	back, err := ReadRun(strings.NewReader(string(out)))
	require.NoError(t, err, "the form reads back strictly")
	assert.Nil(t, back.Cases)
	assert.Equal(t, r.Failures, back.Failures)
	assert.Len(t, r.Cases, 3, "the run itself keeps its cases")

	full, err := json.Marshal(Run{Counts: &Counts{}})
	require.NoError(t, err)
	assert.Contains(t, string(full), `"cases":{}`, "the whole form of a run that kept no case still says none")
}

// validRunJSON is a run's exact JSON form, as MarshalJSON writes it; the
// hostile cases below change one thing in it each.
const validRunJSON = `{"id":"run-1","kind":"after_turn","grade":null,"command":"pytest -q","status":"failure",` +
	`"exit_code":1,"commit":"abc","tree":"t1","agent_run_id":null,"started_at":"2026-01-02T03:04:05Z","ended_at":null,` +
	`"counts":{"total":3,"passed":1,"failed":1,"errors":0,"skipped":1,"flaky":1},"complete":true,` +
	`"incomplete_reasons":[],"trusted":true,"counted":true,` +
	`"failures":[{"id":"t::b","outcome":"failed","message":"bad","flaky":false}],` +
	`"cases":{"t::a":"passed","t::b":"failed","t::c":"skipped"},"flaky":["t::a"],` +
	`"coverage":{"line_rate":0.5,"lines_covered":1,"lines_valid":2},` +
	`"reports":[{"path":"r.xml","dialect":"junit","bytes":10,"sha256":"ab","tests":3,"error":null}]}`

func TestRunJSONValidFormReads(t *testing.T) {
	var r Run
	require.NoError(t, json.Unmarshal([]byte(validRunJSON), &r))
	assert.True(t, r.Counted())
	out, err := json.Marshal(r)
	require.NoError(t, err)
	assert.JSONEq(t, validRunJSON, string(out))
}

// hostileRuns change validRunJSON in one place each: the reader must refuse
// every one, naming what is wrong.
var hostileRuns = []struct {
	name, old, new string // replace the first old in validRunJSON by new
	want           string
}{
	// Absence is never zero.
	{"count missing", `"errors":0,`, ``, `counts: missing "errors"`},
	{"count null", `"errors":0`, `"errors":null`, `counts.errors is null`},
	{"count float", `"passed":1`, `"passed":1.0`, `counts.passed is 1.0, want an integer`},
	{"count exponent", `"passed":1`, `"passed":1e0`, `counts.passed is 1e0, want an integer`},
	{"count string", `"passed":1`, `"passed":"1"`, `counts.passed is a string, want an integer`},
	{"count too large for int", `"skipped":1`, `"skipped":99999999999999999999`, `skipped`},
	{"counts a list", `"counts":{"total":3,"passed":1,"failed":1,"errors":0,"skipped":1,"flaky":1}`, `"counts":[3]`, `counts is a list, want an object`},
	{"trusted missing", `"trusted":true,`, ``, `run: missing "trusted"`},
	{"counted missing", `"counted":true,`, ``, `run: missing "counted"`},
	{"trusted null", `"trusted":true`, `"trusted":null`, `trusted is null`},
	{"field missing", `"reports":[{"path":"r.xml","dialect":"junit","bytes":10,"sha256":"ab","tests":3,"error":null}]`, `"reports":[]`, ``},
	{"complete missing", `"complete":true,`, ``, `run: missing "complete"`},
	{"failure field missing", `"message":"bad",`, ``, `failures[0]: missing "message"`},
	{"report field missing", `"sha256":"ab",`, ``, `reports[0]: missing "sha256"`},
	{"coverage field missing", `,"lines_valid":2`, ``, `missing "lines_valid"`},
	{"empty string for unknown", `"commit":"abc"`, `"commit":""`, `commit is "": an unknown value is null`},
	// Keys are read as every JSON tool reads them.
	{"duplicate kind", `"kind":"after_turn"`, `"kind":"gate","kind":"after_turn"`, `key "kind" given twice`},
	{"case variant KIND", `"kind":"after_turn"`, `"kind":"gate","KIND":"base"`, `key "KIND" differs only in case from "kind"`},
	{"case variant alone", `"kind":"after_turn"`, `"Kind":"after_turn"`, `key "Kind" differs only in case from "kind"`},
	{"kelvin sign variant", `"kind":"after_turn"`, `"kind":"after_turn","\u212aind":"gate"`, `key "` + "\u212a" + `ind" differs only in case from "kind"`},
	{"escaped duplicate", `"kind":"after_turn"`, `"kind":"after_turn","\u006bind":"gate"`, `key "kind" given twice`},
	{"unknown field", `"id":"run-1"`, `"id":"run-1","verified":true`, `unknown field "verified"`},
	{"duplicate count", `"passed":1`, `"passed":1,"passed":1`, `key "counts.passed" given twice`},
	{"case variant count", `"passed":1`, `"passed":1,"Passed":1`, `key "counts.Passed" differs only in case from "passed"`},
	{"unknown count", `"flaky":1}`, `"flaky":1,"retried":0}`, `unknown field "counts.retried"`},
	{"duplicate in failure", `"outcome":"failed"`, `"outcome":"failed","outcome":"failed"`, `key "failures[0].outcome" given twice`},
	{"case variant in failure", `"flaky":false}`, `"flaky":false,"FLAKY":true}`, `key "failures[0].FLAKY" differs only in case`},
	{"unknown in report", `"error":null}`, `"error":null,"trusted":true}`, `unknown field "reports[0].trusted"`},
	{"duplicate in coverage", `"line_rate":0.5`, `"line_rate":0.5,"line_rate":0.9`, `key "coverage.line_rate" given twice`},
	{"case variant in coverage", `"line_rate":0.5`, `"line_rate":0.5,"Line_Rate":0.9`, `differs only in case from "line_rate"`},
	{"duplicate case id", `"t::c":"skipped"`, `"t::c":"skipped","t::c":"passed"`, `key cases["t::c"] given twice`},
	{"escaped duplicate case id", `"t::c":"skipped"`, `"t::c":"skipped","t::\u0063":"passed"`, `key cases["t::c"] given twice`},
	{"invalid UTF-8", `"command":"pytest -q"`, "\"command\":\"pytest \xff\"", `not valid UTF-8`},
	{"trailing data", `"error":null}]}`, `"error":null}]}{}`, `data after the run's object`},
	{"deep nesting", `"flaky":["t::a"]`, `"flaky":[` + strings.Repeat("[", 100000), `flaky[0] is a list, want a string`},
	{"null run", validRunJSON, `null`, `run is null`},
	// A run that contradicts itself.
	{"complete with reasons", `"incomplete_reasons":[]`, `"incomplete_reasons":["r.xml: too large"]`, `complete is true beside incomplete_reasons`},
	{"complete with refused report", `"error":null`, `"error":"too large"`, `complete is true beside report "r.xml" refused`},
	{"more failures than failing", `"failures":[`, `"failures":[{"id":"t::x","outcome":"error","message":"","flaky":false},`, `failures hold 2 distinct ids, more than failed + errors (1)`},
	{"more failing cases than failing", `"t::c":"skipped"`, `"t::c":"error"`, `cases hold 2 failing ids, more than failed + errors (1)`},
	{"failure outcome against case", `"t::b":"failed"`, `"t::b":"error"`, `failure "t::b" has outcome "failed" but cases say "error"`},
	{"more flaky than counted", `"flaky":["t::a"]`, `"flaky":["t::a","t::c"]`, `flaky holds 2 distinct ids`},
	{"failures without counts", `"counts":{"total":3,"passed":1,"failed":1,"errors":0,"skipped":1,"flaky":1}`, `"counts":null`, `counts are null but failures, cases or flaky are not empty`},
	{"negative report bytes", `"bytes":10`, `"bytes":-1`, `negative bytes`},
	// A report entry not read (skipped: stale, not a report) adds nothing:
	// it states no tests and no digest, and says why it was skipped.
	{"skipped report with tests", `"tests":3,"error":null}`, `"tests":3,"error":"stale: written before the run started","skipped":true}`, `report "r.xml" is skipped (stale: written before the run started) but states 3 tests`},
	{"skipped report with sha256", `"tests":3,"error":null}`, `"tests":null,"error":"not a report","skipped":true}`, `report "r.xml" is skipped (not a report) but has a sha256`},
	{"skipped report without reason", `"tests":3,"error":null}`, `"tests":null,"error":null,"skipped":true}`, `report "r.xml" is skipped without a reason`},
	{"complete beside expected tests not run", `"flaky":["t::a"]`, `"flaky":["t::a"],"not_run":["t::x"],"not_run_count":1`, `complete is true beside expected tests that never ran (1)`},
	// trusted and counted are never believed.
	{"forged trusted", `"kind":"after_turn"`, `"kind":"gate"`, `trusted is true but the rules give false for kind "gate"`},
	{"forged counted", `"counted":true`, `"counted":false`, `counted is false but the rules give true`},
	{"forged untrusted", `"trusted":true`, `"trusted":false`, `trusted is false but the rules give true`},
	{"counted without counts", `"counts":{"total":3,"passed":1,"failed":1,"errors":0,"skipped":1,"flaky":1}`, `"counts":{"total":0,"passed":0,"failed":0,"errors":0,"skipped":0,"flaky":0}`, `failures hold 1 distinct ids`},
}

func TestRunJSONRefusesHostile(t *testing.T) {
	for _, tt := range hostileRuns {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.Replace(validRunJSON, tt.old, tt.new, 1)
			require.NotEqual(t, validRunJSON, in, "the case changes the run")
			var r Run
			err := r.UnmarshalJSON([]byte(in))
			if tt.name == "field missing" {
				// An empty list of reports is a valid run: the control case.
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrInvalidRun)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, Run{}, r, "nothing is kept of a refused run")
			// json.Unmarshal refuses it too (a syntax error it finds itself,
			// before calling UnmarshalJSON).
			assert.Error(t, json.Unmarshal([]byte(in), new(Run)))
		})
	}
}

// TestRunJSONMissingCountIsNotZero is the export's hole: two counts given,
// four absent, read as zero and counted.
func TestRunJSONMissingCountIsNotZero(t *testing.T) {
	in := `{"id":"x","kind":"after_turn","counts":{"total":5,"passed":5},"complete":true}`
	var r Run
	err := json.Unmarshal([]byte(in), &r)
	require.ErrorIs(t, err, ErrInvalidRun)
	assert.Contains(t, err.Error(), `counts: missing "failed", "errors", "skipped", "flaky"`)
}

func TestRunJSONForgedFlags(t *testing.T) {
	gate := strings.Replace(validRunJSON, `"kind":"after_turn"`, `"kind":"gate"`, 1)
	honest := strings.Replace(strings.Replace(gate, `"trusted":true`, `"trusted":false`, 1), `"counted":true`, `"counted":false`, 1)
	var r Run
	require.NoError(t, json.Unmarshal([]byte(honest), &r), "a gate run that claims nothing reads")
	assert.False(t, r.Trusted())
	assert.False(t, r.Counted())

	err := json.Unmarshal([]byte(gate), &r)
	require.ErrorIs(t, err, ErrInvalidRun)
	assert.Contains(t, err.Error(), "forged")
}

func TestRunJSONSizeCap(t *testing.T) {
	big := strings.Replace(validRunJSON, `"command":"pytest -q"`, `"command":"`+strings.Repeat("a", MaxJSONBytes)+`"`, 1)
	var r Run
	err := r.UnmarshalJSON([]byte(big))
	require.ErrorIs(t, err, ErrInvalidRun)
	assert.Contains(t, err.Error(), "larger than 16 MiB")

	_, err = ReadRun(strings.NewReader(big))
	require.ErrorIs(t, err, ErrInvalidRun)

	got, err := ReadRun(strings.NewReader(validRunJSON))
	require.NoError(t, err)
	assert.Equal(t, "run-1", got.ID)
}

func TestRunJSONSyntaxErrorIsInvalid(t *testing.T) {
	for _, in := range []string{`{"kind":`, `{"kind":"gate"`, ``, `[]`, `"run"`} {
		var r Run
		err := r.UnmarshalJSON([]byte(in))
		require.Error(t, err, in)
		assert.ErrorIs(t, err, ErrInvalidRun, in)
	}
}

func TestRunJSONRejectsInvalid(t *testing.T) {
	for name, tt := range map[string][2]string{
		"kind":         {`"kind":"after_turn"`, `"kind":"nightly"`},
		"status":       {`"status":"failure"`, `"status":"maybe"`},
		"counts":       {`"total":3`, `"total":5`},
		"negative":     {`"skipped":1`, `"skipped":-1`},
		"too large":    {`"total":3,"passed":1`, `"total":6400002,"passed":6400000`},
		"case outcome": {`"t::c":"skipped"`, `"t::c":"great"`},
		"failure kind": {`"outcome":"failed"`, `"outcome":"passed"`},
		"line rate":    {`"line_rate":0.5`, `"line_rate":1.5`},
		"time":         {`"started_at":"2026-01-02T03:04:05Z"`, `"started_at":"yesterday"`},
	} {
		t.Run(name, func(t *testing.T) {
			in := strings.Replace(validRunJSON, tt[0], tt[1], 1)
			require.NotEqual(t, validRunJSON, in)
			var r Run
			assert.ErrorIs(t, json.Unmarshal([]byte(in), &r), ErrInvalidRun)
		})
	}
}

// TestRunJSONRoundTripGolden reads back every run the report parsers'
// golden files hold: what MarshalJSON writes, UnmarshalJSON reads unchanged.
func TestRunJSONRoundTripGolden(t *testing.T) {
	paths, err := filepath.Glob("../report/testdata/golden/*/expected.json")
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(filepath.Base(filepath.Dir(path)), func(t *testing.T) {
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			var r Run
			require.NoError(t, json.Unmarshal(data, &r))
			out, err := json.Marshal(r)
			require.NoError(t, err)
			assert.JSONEq(t, string(data), string(out))
			var back Run
			require.NoError(t, json.Unmarshal(out, &back))
			assert.Equal(t, r, back)
		})
	}
}

func TestRunJSONRoundTripBuilt(t *testing.T) {
	for name, r := range map[string]*Run{
		"empty":    NewBuilder().Build(),
		"coverage": coverageOnlyRun(),
	} {
		t.Run(name, func(t *testing.T) {
			data, err := json.Marshal(r)
			require.NoError(t, err)
			var back Run
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, *r, back)
		})
	}
}

func coverageOnlyRun() *Run {
	b := NewBuilder()
	b.AddReport(ReportInfo{Path: "lcov.info", Dialect: "lcov", Bytes: 5, SHA256: "ef"}, nil, &CoverageReport{LineRate: f64(0.25)})
	b.AddReport(ReportInfo{Path: "pom.xml", Bytes: 3, Error: "not a report", Skipped: true}, nil, nil)
	r := b.Build()
	r.ID, r.Kind, r.Grade = "cov", KindGrader, GradeIsolated
	return r
}

// bigRun is a run as large as a Run keeps: DefaultMaxCasesKept outcomes and
// DefaultMaxFailures failures with messages of DefaultMaxMessageRunes characters.
func bigRun() *Run {
	b := NewBuilder(WithRedactor(NewRedactor(nil)))
	execs := make([]Execution, 0, DefaultMaxCasesKept)
	msg := strings.Repeat("assertion failed: want 1 got 2 ", DefaultMaxMessageRunes/31+1)
	for i := range DefaultMaxCasesKept {
		e := Execution{ID: "pkg/module_" + strconv.Itoa(i/100) + "::test_case_" + strconv.Itoa(i), Scope: "s", Outcome: OutcomePassed}
		if i%50 == 0 {
			e.Outcome, e.Message = OutcomeFailed, msg
		}
		execs = append(execs, e)
	}
	b.AddReport(ReportInfo{Path: "junit.xml", Dialect: "junit", Bytes: 1, SHA256: "ab", Tests: ntests(len(execs))}, execs, nil)
	r := b.Build()
	r.ID, r.Kind = "big", KindAfterTurn
	return r
}

func TestRunJSONRoundTripBig(t *testing.T) {
	r := bigRun()
	data, err := json.Marshal(r)
	require.NoError(t, err)
	back, err := ReadRun(strings.NewReader(string(data)))
	require.NoError(t, err)
	assert.Equal(t, r, back)
	assert.Less(t, len(data), MaxJSONBytes/8, "the largest run a Run keeps is far under the cap")
}

// BenchmarkRunJSONRead reads the largest run a Run keeps; "decode" is
// encoding/json alone, without the strict check or Validate.
func BenchmarkRunJSONRead(b *testing.B) {
	data, err := json.Marshal(bigRun())
	require.NoError(b, err)
	b.Run("strict", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var r Run
			if err := r.UnmarshalJSON(data); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		for b.Loop() {
			var j jsonRun
			if err := json.Unmarshal(data, &j); err != nil {
				b.Fatal(err)
			}
		}
	})
}
