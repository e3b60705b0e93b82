package testrun

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// ToolResultSchema is the JSON Schema (draft 2020-12) of a test tool's
// result, as kept in the repository (testrun/schema/toolresult.schema.json).
//
//go:embed schema/toolresult.schema.json
var ToolResultSchema []byte

// MaxToolResultBytes bounds the size of a tool result.
const MaxToolResultBytes = 1 << 20

var (
	schemaOnce     sync.Once
	compiledSchema *jsonschema.Schema
	schemaErr      error
)

func toolResultSchema() (*jsonschema.Schema, error) {
	schemaOnce.Do(func() {
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(ToolResultSchema))
		if err != nil {
			schemaErr = err
			return
		}
		c := jsonschema.NewCompiler()
		const loc = "toolresult.schema.json"
		if err := c.AddResource(loc, doc); err != nil {
			schemaErr = err
			return
		}
		compiledSchema, schemaErr = c.Compile(loc)
	})
	return compiledSchema, schemaErr
}

// JUnitEvidence is what the gate's caller found of the JUnit file a tool
// result names: testrun reads no file itself (report.ToolEvidence reads
// one).
type JUnitEvidence struct {
	// Path is the JUnit file the gate was given, absolute and clean.
	Path string
	// Dir is the directory a relative junit_path is relative to (the
	// tool's working directory).
	Dir string
	// Err says why the file could not be read whole or parsed ("" when it
	// was); a missing file is one such reason.
	Err string
	// Bytes is the file's size.
	Bytes int64
	// SHA256 is the digest of the bytes that were parsed.
	SHA256 string
	// Total, Passed, Failing and Skipped count the test cases the file
	// holds by test id, as a run counts them (retries of one test are one
	// test): all of them, the passing ones, the failing and erroring ones
	// (failures + errors), the skipped ones. Each is nil when unknown;
	// absence is never zero.
	Total   *int
	Passed  *int
	Failing *int
	Skipped *int
}

// ToolVerdict is the gate's answer. Accepted is true only when Reasons is
// empty.
type ToolVerdict struct {
	Accepted bool     `json:"accepted"`
	Reasons  []string `json:"reasons"`
}

type toolResult struct {
	OK          *bool        `json:"ok"`
	ReturnCode  *json.Number `json:"returncode"`
	Failed      *json.Number `json:"failed"`
	Passed      *json.Number `json:"passed"`
	Skipped     *json.Number `json:"skipped"`
	JUnitSHA256 *string      `json:"junit_sha256"`
	JUnitPath   *string      `json:"junit_path"`
}

// intField returns n as an int when it is an integer within the schema's
// bounds (1.0 is the integer 1, as JSON Schema counts it).
func intField(n *json.Number) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if i, err := n.Int64(); err == nil {
		return i, i >= 0 && i <= MaxCount
	}
	f, err := n.Float64()
	if err != nil || f != float64(int64(f)) || f < 0 || f > MaxCount {
		return 0, false
	}
	return int64(f), true
}

// CheckToolResult is the fail-closed gate for a test tool's JSON result.
// It accepts only when raw matches ToolResultSchema (every field present,
// no other, no key twice), ok is true, returncode and failed are 0, and
// the JUnit file exists, is non-empty, its sha256 and path match, it holds
// at least one test case (a tool that ran nothing is not "0 failures"),
// its failures + errors equal failed, and its passed and skipped tests
// equal passed and skipped. Every other case rejects, with one reason per
// broken rule.
func CheckToolResult(raw []byte, junit JUnitEvidence) ToolVerdict {
	var reasons []string
	reject := func(format string, a ...any) { reasons = append(reasons, fmt.Sprintf(format, a...)) }
	done := func() ToolVerdict {
		return ToolVerdict{Accepted: len(reasons) == 0, Reasons: nonNil(reasons)}
	}
	if len(raw) > MaxToolResultBytes {
		reject("the result is larger than %d bytes", MaxToolResultBytes)
		return done()
	}
	if err := checkDuplicateKeys(raw); err != nil {
		reject("the result is not one JSON document with distinct keys: %v", err)
		return done()
	}
	sch, err := toolResultSchema()
	if err != nil {
		reject("the schema does not compile: %v", err)
		return done()
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		reject("the result is not JSON: %v", err)
		return done()
	}
	if err := sch.Validate(inst); err != nil {
		reasons = append(reasons, schemaReasons(err)...)
	}
	var r toolResult
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&r); err != nil {
		// The schema has said why (a field of the wrong type); keep what
		// decoded field by field.
		r = decodeFields(raw)
	}

	if r.OK != nil && !*r.OK {
		reject("ok is false")
	}
	rc, rcOK := intField(r.ReturnCode)
	if rcOK && rc != 0 {
		reject("returncode is %d, not 0", rc)
	}
	failed, failedOK := intField(r.Failed)
	if failedOK && failed != 0 {
		reject("failed is %d, not 0", failed)
		if r.OK != nil && *r.OK {
			reject("ok is true beside failed %d: the result contradicts itself", failed)
		}
	}
	if r.OK != nil && *r.OK && rcOK && rc != 0 {
		reject("ok is true beside returncode %d: the result contradicts itself", rc)
	}

	switch {
	case junit.Err != "":
		reject("the JUnit file %s: %s", junit.Path, junit.Err)
	case junit.Bytes == 0:
		reject("the JUnit file %s is empty", junit.Path)
	default:
		if r.JUnitSHA256 != nil && isHex64(*r.JUnitSHA256) && !strings.EqualFold(*r.JUnitSHA256, junit.SHA256) {
			reject("junit_sha256 %s does not match the JUnit file's sha256 %s", *r.JUnitSHA256, junit.SHA256)
		}
		checkJUnitCounts(junit, r, reject)
	}
	if r.JUnitPath != nil && *r.JUnitPath != "" {
		p := *r.JUnitPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(junit.Dir, p)
		}
		if filepath.Clean(p) != filepath.Clean(junit.Path) {
			reject("junit_path %q is not the JUnit file given (%s)", *r.JUnitPath, junit.Path)
		}
	}
	return done()
}

// checkJUnitCounts rejects a JUnit file that holds no test case, whose
// counts are unknown or contradict each other, or whose failing, passed
// and skipped tests differ from what the result says.
func checkJUnitCounts(junit JUnitEvidence, r toolResult, reject func(string, ...any)) {
	switch {
	case junit.Total == nil:
		reject("the JUnit file's test cases are unknown")
	case *junit.Total == 0:
		reject("the JUnit file %s holds no test case: a tool that ran nothing is not 0 failures", junit.Path)
	case junit.Passed != nil && junit.Failing != nil && junit.Skipped != nil &&
		*junit.Passed+*junit.Failing+*junit.Skipped != *junit.Total:
		reject("the JUnit file's counts contradict each other: %d passed + %d failing + %d skipped is not %d tests",
			*junit.Passed, *junit.Failing, *junit.Skipped, *junit.Total)
	}
	for _, c := range []struct {
		field, what string
		file        *int
		result      *json.Number
	}{
		{"failed", "failures + errors", junit.Failing, r.Failed},
		{"passed", "passed tests", junit.Passed, r.Passed},
		{"skipped", "skipped tests", junit.Skipped, r.Skipped},
	} {
		n, ok := intField(c.result)
		switch {
		case c.file == nil:
			reject("the JUnit file's %s are unknown", c.what)
		case ok && int64(*c.file) != n:
			reject("the JUnit file has %d %s, the result says %s %d", *c.file, c.what, c.field, n)
		}
	}
}

func isHex64(s string) bool { return isSHA256(strings.ToLower(s)) }

// decodeFields decodes each field on its own, so that one field of the
// wrong type does not hide the others.
func decodeFields(raw []byte) toolResult {
	var fields map[string]json.RawMessage
	var r toolResult
	if json.Unmarshal(raw, &fields) != nil {
		return r
	}
	dec := func(key string, into any) {
		if v, ok := fields[key]; ok {
			d := json.NewDecoder(bytes.NewReader(v))
			d.UseNumber()
			_ = d.Decode(into) // a wrong type leaves the field unset; the schema reported it
		}
	}
	var ok bool
	var rc, failed, passed, skipped json.Number
	var sum, path string
	dec("ok", &ok)
	dec("returncode", &rc)
	dec("failed", &failed)
	dec("passed", &passed)
	dec("skipped", &skipped)
	dec("junit_sha256", &sum)
	dec("junit_path", &path)
	if v, found := fields["ok"]; found && (string(v) == "true" || string(v) == "false") {
		r.OK = &ok
	}
	if rc != "" {
		r.ReturnCode = &rc
	}
	if failed != "" {
		r.Failed = &failed
	}
	if passed != "" {
		r.Passed = &passed
	}
	if skipped != "" {
		r.Skipped = &skipped
	}
	if sum != "" {
		r.JUnitSHA256 = &sum
	}
	if path != "" {
		r.JUnitPath = &path
	}
	return r
}

// schemaReasons flattens a validation error into one line per failed
// keyword: "/returncode: maximum: got 300, want 255".
func schemaReasons(err error) []string {
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return []string{err.Error()}
	}
	printer := message.NewPrinter(language.English)
	var out []string
	var walk func(e *jsonschema.ValidationError)
	walk = func(e *jsonschema.ValidationError) {
		if len(e.Causes) == 0 {
			loc := "/" + strings.Join(e.InstanceLocation, "/")
			out = append(out, fmt.Sprintf("%s: %s", loc, e.ErrorKind.LocalizedString(printer)))
			return
		}
		for _, c := range e.Causes {
			walk(c)
		}
	}
	walk(ve)
	sort.Strings(out)
	return out
}
