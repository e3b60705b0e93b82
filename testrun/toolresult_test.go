package testrun

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const junitSum = "5f8f3e5c6ad3d4f1e3cbb5c2a1f0e9d8c7b6a5f4e3d2c1b0a9f8e7d6c5b4a392"

func goodResult() map[string]any {
	return map[string]any{
		"ok": true, "returncode": 0, "failed": 0, "passed": 12, "skipped": 1,
		"junit_sha256": junitSum, "junit_path": "out/junit.xml", "cmd": []any{"pytest", "-q"},
	}
}

// goodEvidence is the file goodResult describes: 13 tests, 12 passed, 1
// skipped.
func goodEvidence() JUnitEvidence {
	return JUnitEvidence{Path: "/repo/out/junit.xml", Dir: "/repo", Bytes: 512, SHA256: junitSum,
		Total: ptr(13), Passed: ptr(12), Failing: ptr(0), Skipped: ptr(1)}
}

func ptr(n int) *int { return &n }

func TestCheckToolResult(t *testing.T) {
	two := 2
	for _, tc := range []struct {
		name    string
		edit    func(m map[string]any)
		raw     string // used instead of the edited result when set
		ev      func(e *JUnitEvidence)
		reasons []string // each must appear in one reason; nil: accepted
	}{
		{name: "accepted"},
		{name: "accepted with an absolute junit_path", edit: func(m map[string]any) { m["junit_path"] = "/repo/out/junit.xml" }},
		{name: "accepted with an upper-case digest", edit: func(m map[string]any) { m["junit_sha256"] = strings.ToUpper(junitSum) }},
		{name: "missing failed is rejected (absence is not zero)", edit: func(m map[string]any) { delete(m, "failed") },
			reasons: []string{`missing property 'failed'`}},
		{name: "missing ok", edit: func(m map[string]any) { delete(m, "ok") }, reasons: []string{`missing property 'ok'`}},
		{name: "null failed", edit: func(m map[string]any) { m["failed"] = nil }, reasons: []string{"/failed: got null, want integer"}},
		{name: "digest mismatch", edit: func(m map[string]any) { m["junit_sha256"] = strings.Repeat("0", 64) },
			reasons: []string{"junit_sha256 0000000000000000000000000000000000000000000000000000000000000000 does not match the JUnit file's sha256 " + junitSum}},
		{name: "digest not 64 hex", edit: func(m map[string]any) { m["junit_sha256"] = "abc" }, reasons: []string{"/junit_sha256: "}},
		{name: "path mismatch", edit: func(m map[string]any) { m["junit_path"] = "other/junit.xml" },
			reasons: []string{`junit_path "other/junit.xml" is not the JUnit file given (/repo/out/junit.xml)`}},
		{name: "count mismatch", ev: func(e *JUnitEvidence) { e.Failing = &two },
			reasons: []string{"the JUnit file has 2 failures + errors, the result says failed 0"}},
		{name: "count unknown", ev: func(e *JUnitEvidence) { e.Failing = nil }, reasons: []string{"the JUnit file's failures + errors are unknown"}},
		{name: "no test case: a tool that ran nothing is not 0 failures",
			edit:    func(m map[string]any) { m["passed"], m["skipped"] = 0, 0 },
			ev:      func(e *JUnitEvidence) { e.Total, e.Passed, e.Skipped = ptr(0), ptr(0), ptr(0) },
			reasons: []string{"the JUnit file /repo/out/junit.xml holds no test case"}},
		{name: "test cases unknown", ev: func(e *JUnitEvidence) { e.Total = nil }, reasons: []string{"the JUnit file's test cases are unknown"}},
		{name: "passed mismatch", edit: func(m map[string]any) { m["passed"] = 999 },
			reasons: []string{"the JUnit file has 12 passed tests, the result says passed 999"}},
		{name: "skipped mismatch", edit: func(m map[string]any) { m["skipped"] = 0 },
			reasons: []string{"the JUnit file has 1 skipped tests, the result says skipped 0"}},
		{name: "passed unknown", ev: func(e *JUnitEvidence) { e.Passed = nil }, reasons: []string{"the JUnit file's passed tests are unknown"}},
		{name: "skipped unknown", ev: func(e *JUnitEvidence) { e.Skipped = nil }, reasons: []string{"the JUnit file's skipped tests are unknown"}},
		{name: "evidence that contradicts itself", ev: func(e *JUnitEvidence) { e.Total = ptr(20) },
			reasons: []string{"12 passed + 0 failing + 1 skipped is not 20 tests"}},
		{name: "passed as a string", edit: func(m map[string]any) { m["passed"] = "12" }, reasons: []string{"/passed: got string, want integer"}},
		{name: "empty file", ev: func(e *JUnitEvidence) { e.Bytes = 0 }, reasons: []string{"the JUnit file /repo/out/junit.xml is empty"}},
		{name: "missing file", ev: func(e *JUnitEvidence) { e.Err = "no such file or directory" },
			reasons: []string{"the JUnit file /repo/out/junit.xml: no such file or directory"}},
		{name: "returncode 124 (timeout)", edit: func(m map[string]any) { m["returncode"] = 124 },
			reasons: []string{"returncode is 124, not 0", "ok is true beside returncode 124"}},
		{name: "returncode out of range", edit: func(m map[string]any) { m["returncode"] = 300 }, reasons: []string{"/returncode: maximum"}},
		{name: "negative failed", edit: func(m map[string]any) { m["failed"] = -1 }, reasons: []string{"/failed: minimum"}},
		{name: "fractional failed", edit: func(m map[string]any) { m["failed"] = 0.5 }, reasons: []string{"/failed: got number, want integer"}},
		{name: "extra field", edit: func(m map[string]any) { m["warn"] = true }, reasons: []string{"additional properties 'warn' not allowed"}},
		{name: "ok false", edit: func(m map[string]any) { m["ok"] = false }, reasons: []string{"ok is false"}},
		{name: "ok as a string", edit: func(m map[string]any) { m["ok"] = "true" }, reasons: []string{"/ok: got string, want boolean"}},
		{name: "ok true with failures", edit: func(m map[string]any) { m["failed"], m["passed"] = 2, 10 },
			ev:      func(e *JUnitEvidence) { e.Passed, e.Failing = ptr(10), &two },
			reasons: []string{"failed is 2, not 0", "ok is true beside failed 2: the result contradicts itself"}},
		{name: "empty cmd", edit: func(m map[string]any) { m["cmd"] = []any{} }, reasons: []string{"/cmd: minItems"}},
		{name: "cmd not strings", edit: func(m map[string]any) { m["cmd"] = []any{"pytest", 3} }, reasons: []string{"/cmd/1: got number, want string"}},
		{name: "duplicate keys", raw: `{"ok": true, "returncode": 0, "failed": 3, "failed": 0, "passed": 1, "skipped": 0, "junit_sha256": "` + junitSum + `", "junit_path": "out/junit.xml", "cmd": ["x"]}`,
			reasons: []string{`key "failed" given twice`}},
		{name: "keys differing only in case", raw: `{"ok": true, "OK": false}`, reasons: []string{`keys "ok" and "OK" differ only in case`}},
		{name: "not JSON", raw: `{"ok": tru`, reasons: []string{"not one JSON document"}},
		{name: "two documents", raw: `{} {}`, reasons: []string{"data after the top-level value"}},
		{name: "an array", raw: `[]`, reasons: []string{"/: got array, want object"}},
		{name: "too large", raw: `"` + strings.Repeat("x", MaxToolResultBytes) + `"`, reasons: []string{"larger than"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := []byte(tc.raw)
			if tc.raw == "" {
				m := goodResult()
				if tc.edit != nil {
					tc.edit(m)
				}
				var err error
				raw, err = json.Marshal(m)
				require.NoError(t, err)
			}
			ev := goodEvidence()
			if tc.ev != nil {
				tc.ev(&ev)
			}
			v := CheckToolResult(raw, ev)
			if tc.reasons == nil {
				assert.True(t, v.Accepted, "%v", v.Reasons)
				assert.Equal(t, []string{}, v.Reasons)
				return
			}
			assert.False(t, v.Accepted)
			all := strings.Join(v.Reasons, "\n")
			for _, want := range tc.reasons {
				assert.Contains(t, all, want)
			}
		})
	}
}

func TestToolResultSchemaDocument(t *testing.T) {
	var doc map[string]any
	require.NoError(t, json.Unmarshal(ToolResultSchema, &doc))
	assert.Equal(t, "https://json-schema.org/draft/2020-12/schema", doc["$schema"])
	assert.Equal(t, false, doc["additionalProperties"])
	assert.ElementsMatch(t, []any{"ok", "returncode", "failed", "passed", "skipped", "junit_sha256", "junit_path", "cmd"}, doc["required"])
	assert.NotContains(t, string(ToolResultSchema), `"default"`, "no defaults")
}

// libraryFailures validates raw with a general JSON Schema library, the
// reference the gate's own validator is held to, and lists its failed
// keywords as "location keyword".
func libraryFailures(t testing.TB, sch *jsonschema.Schema, raw []byte) ([]string, bool) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, false
	}
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			kw := e.ErrorKind.KeywordPath()
			require.NotEmpty(t, kw, "%v", e)
			out = append(out, "/"+strings.Join(e.InstanceLocation, "/")+" "+kw[len(kw)-1])
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	if err := sch.Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		require.ErrorAs(t, err, &ve)
		walk(ve)
	}
	slices.Sort(out)
	return out, true
}

func ownFailures(t testing.TB, raw []byte) ([]string, bool) {
	sch, err := toolResultSchema()
	require.NoError(t, err)
	inst, err := decodeInstance(raw)
	if err != nil {
		return nil, false
	}
	var out []string
	for _, e := range sch.validate(inst, nil, nil) {
		out = append(out, "/"+strings.Join(e.Location, "/")+" "+e.Keyword)
	}
	slices.Sort(out)
	return out, true
}

func referenceSchema(t testing.TB) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ToolResultSchema))
	require.NoError(t, err)
	c := jsonschema.NewCompiler()
	require.NoError(t, c.AddResource("toolresult.schema.json", doc))
	sch, err := c.Compile("toolresult.schema.json")
	require.NoError(t, err)
	return sch
}

// schemaCorpus is the good result with each field, in turn, removed or
// replaced by each value of a palette that walks every keyword's edges
// (integers written as decimals and exponents, bounds and one past them,
// huge and tiny numbers, digests of each case and length), and documents
// of every other type.
func schemaCorpus(t testing.TB) [][]byte {
	palette := []string{
		`null`, `true`, `false`, `0`, `-0`, `1`, `1.0`, `1.5`, `1e2`, `1E+2`, `2.5e1`, `25500e-2`, `0.00001e5`,
		`255`, `255.0`, `256`, `255.0000000000000001`, `254.9999999999999999`, `-1`, `-0.5`, `-0.0`,
		`6400000`, `6400000.5`, `6400001`, `64e5`, `6.4000001e6`, `1e400`, `-1e400`, `1e-400`, `-1e-400`,
		`123456789012345678901234567890`, `-123456789012345678901234567890`, `0.1e1`, `10e-1`,
		`""`, `"x"`, `"12"`, `"true"`, `"é"`, `"\u0000"`,
		`"` + junitSum + `"`, `"` + strings.ToUpper(junitSum) + `"`, `"` + junitSum[1:] + `"`, `"` + junitSum + `0"`,
		`"` + junitSum + `\n"`, `"` + strings.Repeat("g", 64) + `"`,
		`[]`, `["a"]`, `[1]`, `["a", null]`, `[[]]`, `["a", "b", 3, true]`, `{}`, `{"a": 1}`,
	}
	good, err := json.Marshal(goodResult())
	require.NoError(t, err)
	out := [][]byte{good, []byte(`{}`), []byte(`[]`), []byte(`null`), []byte(`"x"`), []byte(`0`), []byte(`{"warn": 1, "x": 2}`)}
	fields := []string{"ok", "returncode", "failed", "passed", "skipped", "junit_sha256", "junit_path", "cmd", "warn"}
	for _, f := range fields {
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(good, &m))
		delete(m, f)
		b, err := json.Marshal(m)
		require.NoError(t, err)
		out = append(out, b)
		for _, v := range palette {
			m[f] = json.RawMessage(v)
			b, err := json.Marshal(m)
			require.NoError(t, err)
			out = append(out, b)
		}
	}
	return out
}

// TestToolResultSchemaMatchesReference holds the gate's validator to a
// general JSON Schema library: on every document of the corpus both find
// the same keywords failing at the same places, so the same documents
// pass.
func TestToolResultSchemaMatchesReference(t *testing.T) {
	ref := referenceSchema(t)
	accepted := 0
	for _, raw := range schemaCorpus(t) {
		want, okWant := libraryFailures(t, ref, raw)
		got, okGot := ownFailures(t, raw)
		require.Equal(t, okWant, okGot, "%s", raw)
		assert.Equal(t, want, got, "%s", raw)
		if okGot && len(got) == 0 {
			accepted++
		}
	}
	assert.Greater(t, accepted, 10, "the corpus holds documents the schema accepts")
}

func FuzzToolResultSchema(f *testing.F) {
	for _, raw := range schemaCorpus(f) {
		f.Add(raw)
	}
	ref := referenceSchema(f)
	f.Fuzz(func(t *testing.T, raw []byte) {
		if checkDuplicateKeys(raw) != nil {
			return // the gate refuses these before any schema
		}
		want, okWant := libraryFailures(t, ref, raw)
		got, okGot := ownFailures(t, raw)
		require.Equal(t, okWant, okGot)
		require.Equal(t, want, got)
	})
}

// TestToolResultSchemaRefusesUnknownKeywords: a keyword the validator does
// not check makes the schema fail to compile, so the gate fails closed.
func TestToolResultSchemaRefusesUnknownKeywords(t *testing.T) {
	for _, doc := range []string{
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "object", "maxProperties": 3}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "properties": {"a": {"type": "string", "format": "email"}}}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "items": {"type": ["string", "null"]}}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "additionalProperties": {"type": "string"}}`,
		`{"$schema": "https://json-schema.org/draft/2020-12/schema", "minimum": 0.5}`,
		`{"$schema": "http://json-schema.org/draft-07/schema#"}`,
		`{"type": "object"}`,
	} {
		_, err := compileSchema([]byte(doc))
		assert.Error(t, err, doc)
	}
	_, err := compileSchema(ToolResultSchema)
	require.NoError(t, err)
}

func TestParseDecimal(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want decimal
	}{
		{"0", decimal{}}, {"-0", decimal{}}, {"0.000", decimal{}}, {"0e-99999999999", decimal{}},
		{"12", decimal{whole: 12}}, {"12.0", decimal{whole: 12}}, {"1.2e1", decimal{whole: 12}}, {"1200e-2", decimal{whole: 12}},
		{"12.5", decimal{whole: 12, frac: true}}, {"-12.5", decimal{neg: true, whole: 12, frac: true}},
		{"0.5", decimal{frac: true}}, {"5e-1", decimal{frac: true}}, {"1e-99999999999", decimal{frac: true}},
		{"999999999999999999", decimal{whole: 999999999999999999}}, {"1e18", decimal{huge: true}},
		{"1e99999999999", decimal{huge: true}}, {"-1e400", decimal{neg: true, huge: true}},
	} {
		got, ok := parseDecimal(tc.in)
		require.True(t, ok, tc.in)
		assert.Equal(t, tc.want, got, tc.in)
	}
	for _, bad := range []string{"", "-", "01", "1.", ".5", "1e", "1e+", "0x1", "1_0", "+1", "NaN"} {
		_, ok := parseDecimal(bad)
		assert.False(t, ok, bad)
	}
}
