package attest

import (
	"bytes"
	_ "embed"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// predicateSchemaJSON is the statement and predicate's rules as the
// in-toto specification states them, written as a JSON Schema apart from
// the package's code.
//
//go:embed testdata/test-result-v0.1.schema.json
var predicateSchemaJSON []byte

var predicateSchema = sync.OnceValues(func() (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(predicateSchemaJSON))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	if err := c.AddResource("test-result.schema.json", doc); err != nil {
		return nil, err
	}
	return c.Compile("test-result.schema.json")
})

// schemaProblem is why the statement's JSON form b does not validate
// against the predicate's rules ("" when it does).
func schemaProblem(t testing.TB, b []byte) string {
	t.Helper()
	sch, err := predicateSchema()
	require.NoError(t, err)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	require.NoError(t, err)
	if err := sch.Validate(inst); err != nil {
		return err.Error()
	}
	return ""
}

// TestStatementsValidateAgainstThePredicatesRules: the statements of real
// runs (passed, failed, flaky, not counted, with a url) validate against
// the specification's rules, and the schema is not vacuous: each broken
// rule of a forged statement is caught by it.
func TestStatementsValidateAgainstThePredicatesRules(t *testing.T) {
	sep := runnerReport(t, "maven/reports/TEST-calc.SeparatorTest.xml")
	calc := runnerReport(t, "maven/reports/TEST-calc.CalcTest.xml")
	var good []byte
	for _, tc := range []struct {
		kind    testrun.Kind
		reports []string
		opts    []Option
	}{
		{testrun.KindAfterTurn, []string{sep}, []Option{WithURL("https://github.com/acme/app/actions/runs/42/attempts/1")}},
		{testrun.KindAfterTurn, []string{sep, calc}, nil},
		{testrun.KindGate, []string{sep}, nil},
	} {
		st, err := NewStatement(runOf(t, tc.kind, tc.reports...), tc.opts...)
		require.NoError(t, err)
		b, err := MarshalStatement(st)
		require.NoError(t, err)
		require.Empty(t, schemaProblem(t, b), "%s", b)
		if good == nil {
			good = b
		}
	}
	for name, edit := range map[string]func(m map[string]any){
		"another result":         func(m map[string]any) { pred(m)["result"] = "SKIPPED" },
		"no configuration":       func(m map[string]any) { delete(pred(m), "configuration") },
		"a url that is no URI":   func(m map[string]any) { pred(m)["url"] = "runs 42" },
		"a subject of no digest": func(m map[string]any) { m["subject"] = []any{map[string]any{"name": "x"}} },
		"no subject":             func(m map[string]any) { m["subject"] = []any{} },
		"a commit in upper case": func(m map[string]any) {
			m["subject"].([]any)[0].(map[string]any)["digest"].(map[string]any)["gitCommit"] = "3F9D2C1B0A8E7D6C5B4A39281706F5E4D3C2B1A0"
		},
		"a short sha256":           func(m map[string]any) { cfgEntry(m)["digest"] = map[string]any{"sha256": "abc"} },
		"a test name not a string": func(m map[string]any) { pred(m)["passedTests"] = []any{1.0} },
		"another statement type":   func(m map[string]any) { m["_type"] = "https://in-toto.io/Statement/v0.1" },
	} {
		b := editStatement(t, good, edit)
		assert.NotEmpty(t, schemaProblem(t, b), name)
	}
}

func cfgEntry(m map[string]any) map[string]any {
	return pred(m)["configuration"].([]any)[0].(map[string]any)
}
