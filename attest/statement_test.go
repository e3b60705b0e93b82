package attest

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	testresult "github.com/in-toto/attestation/go/predicates/test_result/v0"
	intoto "github.com/in-toto/attestation/go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hangar-dev/testresults/testrun"
)

// parseStatement reads a statement's JSON form back with the in-toto Go
// types, as another verifier would, and validates it and every resource
// descriptor in it, and validates its JSON against the predicate's rules
// as the specification states them (testdata/test-result-v0.1.schema.json).
func parseStatement(t *testing.T, b []byte) (*intoto.Statement, *testresult.TestResult, map[string]any) {
	t.Helper()
	require.Empty(t, schemaProblem(t, b), "the statement validates against the predicate's rules")
	st := &intoto.Statement{}
	require.NoError(t, protojson.Unmarshal(b, st))
	require.NoError(t, st.Validate())
	require.Equal(t, intoto.StatementTypeUri, st.GetType())
	require.Equal(t, PredicateType, st.GetPredicateType())
	pb, err := protojson.Marshal(st.GetPredicate())
	require.NoError(t, err)
	tr := &testresult.TestResult{}
	require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(pb, tr))
	require.NotEmpty(t, tr.GetConfiguration(), "configuration is required")
	for _, d := range tr.GetConfiguration() {
		require.NoError(t, d.Validate())
	}
	require.True(t, Result(tr.GetResult()).Valid(), tr.GetResult())
	var raw map[string]any
	require.NoError(t, json.Unmarshal(pb, &raw))
	ext, _ := raw[ExtensionKey].(map[string]any)
	require.NotNil(t, ext, "the extension is there")
	return st, tr, ext
}

func TestStatementOfRealRun(t *testing.T) {
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	run := runOf(t, testrun.KindAfterTurn, sep)
	run.Tree = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
	require.True(t, run.Counted())

	st, err := NewStatement(run, WithURL("https://github.com/acme/app/actions/runs/42"), WithReportsRelativeTo(filepath.Dir(filepath.Dir(sep))))
	require.NoError(t, err)
	b, err := MarshalStatement(st)
	require.NoError(t, err)
	again, err := MarshalStatement(st)
	require.NoError(t, err)
	assert.Equal(t, string(b), string(again), "the same statement gives the same bytes")

	got, tr, ext := parseStatement(t, b)
	assert.Equal(t, map[string]string{"gitCommit": commitA, TreeDigestKey: run.Tree}, got.GetSubject()[0].GetDigest())
	assert.Equal(t, "PASSED", tr.GetResult())
	assert.Equal(t, "https://github.com/acme/app/actions/runs/42", tr.GetUrl())
	assert.Len(t, tr.GetPassedTests(), 3)
	assert.Empty(t, tr.GetFailedTests())
	cfg := tr.GetConfiguration()
	require.Len(t, cfg, 2)
	assert.Equal(t, "reports/TEST-calc.SeparatorTest.xml", cfg[0].GetName())
	assert.Equal(t, run.Reports[0].SHA256, cfg[0].GetDigest()["sha256"])
	assert.Equal(t, RoleReport, cfg[0].GetAnnotations().GetFields()[RoleAnnotation].GetStringValue())
	assert.Equal(t, "mvn test", cfg[1].GetAnnotations().GetFields()["command"].GetStringValue())
	assert.Equal(t, true, ext["counted"])
	assert.Equal(t, true, ext["trusted"])
	assert.Equal(t, true, ext["complete"])
	assert.Equal(t, map[string]any{"total": 3.0, "passed": 3.0, "failed": 0.0, "errors": 0.0, "skipped": 0.0, "flaky": 0.0}, ext["counts"])
	assert.Equal(t, []any{}, ext["incomplete_reasons"])
}

func TestStatementResults(t *testing.T) {
	calc := runnerReport(t, "maven/reports/TEST-calc.CalcTest.xml") // failures, errors and flaky tests
	rerun := runnerReport(t, "go/reports/gotestsum-rerun.xml")
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	for _, tc := range []struct {
		name   string
		run    *testrun.Run
		result string
	}{
		{"failures", runOf(t, testrun.KindAfterTurn, calc), "FAILED"},
		{"gate: not trusted", runOf(t, testrun.KindGate, sep), "FAILED"},
		{"no kind", runOf(t, "", sep), "FAILED"},
		{"gotestsum retries", runOf(t, testrun.KindAfterTurn, rerun), "FAILED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := NewStatement(tc.run)
			require.NoError(t, err)
			b, err := MarshalStatement(st)
			require.NoError(t, err)
			_, tr, ext := parseStatement(t, b)
			assert.Equal(t, tc.result, tr.GetResult())
			assert.NotEmpty(t, ext["result_reasons"])
			failing, err := testrun.FailingIDs(tc.run)
			require.NoError(t, err)
			assert.Len(t, tr.GetFailedTests(), len(failing))
			assert.Len(t, tr.GetWarnedTests(), len(tc.run.Flaky))
		})
	}
}

func TestStatementWarned(t *testing.T) {
	run := runOf(t, testrun.KindAfterTurn, runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	// One of its tests passed after failing, as a runner's retry reports it.
	ids := make([]string, 0, len(run.Cases))
	for id := range run.Cases {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	run.Counts.Flaky, run.Flaky = 1, ids[:1]
	require.NoError(t, run.Validate())
	st, err := NewStatement(run)
	require.NoError(t, err)
	b, err := MarshalStatement(st)
	require.NoError(t, err)
	_, tr, _ := parseStatement(t, b)
	assert.Equal(t, "WARNED", tr.GetResult())
	assert.Equal(t, run.Flaky, tr.GetWarnedTests())
	assert.Len(t, tr.GetPassedTests(), 2, "a flaky test is warned, not passed")
}

func TestStatementRefusesRunWithoutCommit(t *testing.T) {
	run := runOf(t, testrun.KindAfterTurn, runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	for _, c := range []string{"", "abc123", commitA + "00", "g" + commitA[1:]} {
		run.Commit = c
		_, err := NewStatement(run)
		require.ErrorIs(t, err, ErrRun, "commit %q", c)
	}
}

func TestPredicateOnly(t *testing.T) {
	run := runOf(t, testrun.KindAfterTurn, runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml"))
	st, err := NewStatement(run)
	require.NoError(t, err)
	b, err := MarshalPredicate(st)
	require.NoError(t, err)
	tr := &testresult.TestResult{}
	require.NoError(t, protojson.UnmarshalOptions{DiscardUnknown: true}.Unmarshal(b, tr))
	assert.Equal(t, "PASSED", tr.GetResult())
	var raw map[string]any
	require.NoError(t, json.Unmarshal(b, &raw))
	assert.NotContains(t, raw, "_type", "the bare predicate, not the statement")
	assert.Contains(t, raw, ExtensionKey)
}

func TestExtensionKeys(t *testing.T) {
	b, err := json.Marshal(Extension{})
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	assert.ElementsMatch(t, keys, extensionKeys, "extensionKeys lists the extension's JSON keys")
}
