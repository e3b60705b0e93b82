package testrun

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// ToolResultSchema is the JSON Schema (draft 2020-12) of a test tool's
// result, as kept in the repository (testrun/schema/toolresult.schema.json).
//
//go:embed schema/toolresult.schema.json
var ToolResultSchema []byte

// MaxToolResultBytes bounds the size of a tool result.
const MaxToolResultBytes = 1 << 20

// toolResultSchema is ToolResultSchema read on first use (see
// compileSchema), never at package init.
var toolResultSchema = sync.OnceValues(func() (*schemaNode, error) {
	return compileSchema(ToolResultSchema)
})

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
// bounds (1.0 and 1e2 are integers, as JSON Schema counts them).
func intField(n *json.Number) (int64, bool) {
	if n == nil {
		return 0, false
	}
	d, ok := parseDecimal(string(*n))
	if !ok || d.frac || d.huge || (d.neg && d.whole != 0) || d.whole > MaxCount {
		return 0, false
	}
	return d.whole, true
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
	inst, err := decodeInstance(raw)
	if err != nil {
		reject("the result is not JSON: %v", err)
		return done()
	}
	reasons = append(reasons, schemaReasons(sch.validate(inst, nil, nil))...)
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

// schemaReasons is one line per failed keyword, sorted:
// "/returncode: maximum: got 300, want 255".
func schemaReasons(errs []schemaError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		out = append(out, e.String())
	}
	sort.Strings(out)
	return out
}

// The tool-result schema is read by the small validator below, which
// knows the JSON Schema 2020-12 keywords that schema uses (type, required,
// properties, additionalProperties false, minimum, maximum, minLength,
// pattern, minItems, items) and refuses to compile a schema that uses any
// other: a keyword it would not check fails the gate closed, never open.
// A general JSON Schema library compiles every draft's metaschema when its
// package is initialised, a cost each command of the binary would pay;
// the tests hold this validator to such a library's verdicts.

// schemaNode is one compiled (sub)schema.
type schemaNode struct {
	typ           string // "" when any type goes
	required      []string
	properties    map[string]*schemaNode
	noAdditional  bool
	minimum       *int64
	maximum       *int64
	minLength     *int
	pattern       *regexp.Regexp
	patternSource string
	minItems      *int
	items         *schemaNode
}

// schemaError is one failed keyword: where in the instance, which keyword,
// and what was wrong.
type schemaError struct {
	Location []string // JSON pointer tokens of the instance value
	Keyword  string
	Message  string
}

func (e schemaError) String() string {
	return "/" + strings.Join(e.Location, "/") + ": " + e.Message
}

// isAnnotation reports whether keyword says what a schema is for and
// checks nothing.
func isAnnotation(keyword string) bool {
	switch keyword {
	case "$id", "$comment", "title", "description":
		return true
	}
	return false
}

// isTypeName reports whether s names a JSON Schema type.
func isTypeName(s string) bool {
	switch s {
	case "null", "boolean", "object", "array", "number", "string", "integer":
		return true
	}
	return false
}

// compileSchema reads a draft 2020-12 schema made only of the keywords
// schemaNode holds.
func compileSchema(doc []byte) (*schemaNode, error) {
	v, err := decodeInstance(doc)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the schema is not an object")
	}
	const draft = "https://json-schema.org/draft/2020-12/schema"
	if m["$schema"] != draft {
		return nil, fmt.Errorf("$schema %v is not %s", m["$schema"], draft)
	}
	return compileNode(m, "")
}

//nolint:gocyclo // one case per schema keyword, the list the gate checks
func compileNode(v any, at string) (*schemaNode, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema that is not an object is not supported", at+"/")
	}
	n := &schemaNode{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		val := m[k]
		bad := func(want string) error { return fmt.Errorf("%s/%s: want %s, got %v", at, k, want, val) }
		switch {
		case isAnnotation(k), k == "$schema" && at == "":
		case k == "type":
			s, ok := val.(string)
			if !ok || !isTypeName(s) {
				return nil, bad("one type name")
			}
			n.typ = s
		case k == "required":
			list, ok := val.([]any)
			if !ok {
				return nil, bad("an array of names")
			}
			for _, e := range list {
				s, ok := e.(string)
				if !ok {
					return nil, bad("an array of names")
				}
				n.required = append(n.required, s)
			}
		case k == "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, bad("an object of schemas")
			}
			n.properties = make(map[string]*schemaNode, len(props))
			for name, p := range props {
				c, err := compileNode(p, at+"/properties/"+name)
				if err != nil {
					return nil, err
				}
				n.properties[name] = c
			}
		case k == "additionalProperties":
			if b, ok := val.(bool); !ok || b {
				return nil, bad("false (no other form is supported)")
			}
			n.noAdditional = true
		case k == "minimum" || k == "maximum":
			num, _ := val.(json.Number)
			d, ok := parseDecimal(string(num))
			if !ok || d.frac || d.huge {
				return nil, bad("an integer")
			}
			b := d.whole
			if d.neg {
				b = -b
			}
			if k == "minimum" {
				n.minimum = &b
			} else {
				n.maximum = &b
			}
		case k == "minLength" || k == "minItems":
			num, _ := val.(json.Number)
			d, ok := parseDecimal(string(num))
			if !ok || d.frac || d.huge || d.neg || d.whole > math.MaxInt32 {
				return nil, bad("a non-negative integer")
			}
			c := int(d.whole)
			if k == "minLength" {
				n.minLength = &c
			} else {
				n.minItems = &c
			}
		case k == "pattern":
			s, ok := val.(string)
			if !ok {
				return nil, bad("a regular expression")
			}
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("%s/pattern: %w", at, err)
			}
			n.pattern, n.patternSource = re, s
		case k == "items":
			c, err := compileNode(val, at+"/items")
			if err != nil {
				return nil, err
			}
			n.items = c
		default:
			return nil, fmt.Errorf("%s/%s: keyword not supported", at, k)
		}
	}
	return n, nil
}

// decodeInstance decodes one JSON document, numbers kept as written.
func decodeInstance(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the top-level value")
	}
	return v, nil
}

// typeName is v's JSON type as a type error names it: every number is
// "number".
func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// validate appends to errs the keywords of n that v fails, at loc. As in
// JSON Schema, a value of the wrong type is checked no further.
//
//nolint:gocyclo // one case per keyword, in the order the schema states them
func (n *schemaNode) validate(v any, loc []string, errs []schemaError) []schemaError {
	fail := func(keyword, format string, a ...any) {
		errs = append(errs, schemaError{Location: slices.Clone(loc), Keyword: keyword, Message: fmt.Sprintf(format, a...)})
	}
	var num decimal
	if s, ok := v.(json.Number); ok {
		var valid bool
		if num, valid = parseDecimal(string(s)); !valid {
			fail("type", "%q is not a JSON number", s)
			return errs
		}
	}
	if n.typ != "" {
		_, isNum := v.(json.Number)
		matched := typeName(v) == n.typ || (isNum && n.typ == "integer" && !num.frac)
		if !matched {
			fail("type", "got %s, want %s", typeName(v), n.typ)
			return errs
		}
	}
	switch v := v.(type) {
	case json.Number:
		if n.minimum != nil && num.less(*n.minimum) {
			fail("minimum", "minimum: got %s, want %d", clipValue(string(v)), *n.minimum)
		}
		if n.maximum != nil && num.greater(*n.maximum) {
			fail("maximum", "maximum: got %s, want %d", clipValue(string(v)), *n.maximum)
		}
	case string:
		if n.minLength != nil {
			if got := utf8.RuneCountInString(v); got < *n.minLength {
				fail("minLength", "minLength: got %d, want %d", got, *n.minLength)
			}
		}
		if n.pattern != nil && !n.pattern.MatchString(v) {
			fail("pattern", "%s does not match pattern %s", singleQuote(clipValue(v)), singleQuote(n.patternSource))
		}
	case []any:
		if n.minItems != nil && len(v) < *n.minItems {
			fail("minItems", "minItems: got %d, want %d", len(v), *n.minItems)
		}
		if n.items != nil {
			for i, e := range v {
				errs = n.items.validate(e, append(loc, strconv.Itoa(i)), errs)
			}
		}
	case map[string]any:
		var missing []string
		for _, name := range n.required {
			if _, ok := v[name]; !ok {
				missing = append(missing, singleQuote(name))
			}
		}
		switch len(missing) {
		case 0:
		case 1:
			fail("required", "missing property %s", missing[0])
		default:
			fail("required", "missing properties %s", strings.Join(missing, ", "))
		}
		names := make([]string, 0, len(v))
		for name := range v {
			names = append(names, name)
		}
		sort.Strings(names)
		var extra []string
		for _, name := range names {
			if p, ok := n.properties[name]; ok {
				errs = p.validate(v[name], append(loc, name), errs)
			} else if n.noAdditional {
				extra = append(extra, singleQuote(clipValue(name)))
			}
		}
		if len(extra) > 0 {
			fail("additionalProperties", "additional properties %s not allowed", strings.Join(extra, ", "))
		}
	}
	return errs
}

// singleQuote single-quotes s, escaped as Go would double-quote it.
func singleQuote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q[1:len(q)-1], `\"`, `"`)
	return "'" + strings.ReplaceAll(q, "'", `\'`) + "'"
}

// clipValue cuts s to 64 bytes (at a rune boundary) for a message.
func clipValue(s string) string {
	const max = 64
	if len(s) <= max {
		return s
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "…"
}

// decimal is a JSON number read exactly, however many digits or however
// large an exponent it has: its sign, its integer part (huge when that has
// more than 18 digits) and whether it has a fractional part.
type decimal struct {
	neg, huge, frac bool
	whole           int64
}

// parseDecimal reads s, a number in JSON's syntax.
func parseDecimal(s string) (decimal, bool) {
	var d decimal
	if strings.HasPrefix(s, "-") {
		d.neg, s = true, s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, fracPart, hasPoint := strings.Cut(mant, ".")
	if intPart == "" || (hasPoint && fracPart == "") || !isDigits(intPart) || !isDigits(fracPart) ||
		(len(intPart) > 1 && intPart[0] == '0') {
		return decimal{}, false
	}
	e := 0
	if hasExp {
		sign := 1
		switch {
		case strings.HasPrefix(exp, "+"):
			exp = exp[1:]
		case strings.HasPrefix(exp, "-"):
			sign, exp = -1, exp[1:]
		}
		if exp == "" || !isDigits(exp) {
			return decimal{}, false
		}
		exp = strings.TrimLeft(exp, "0")
		if len(exp) > 8 {
			exp = "99999999" // beyond any number of digits a document holds
		}
		e, _ = strconv.Atoi("0" + exp)
		e *= sign
	}
	digits := intPart + fracPart
	point := len(intPart) + e // where the decimal point falls in digits
	digits = strings.TrimRight(digits, "0")
	lead := len(digits) - len(strings.TrimLeft(digits, "0"))
	digits, point = digits[lead:], point-lead
	switch {
	case digits == "":
		return decimal{}, true // zero, -0 included
	case point <= 0:
		d.frac = true
		return d, true
	case point > 18:
		d.huge = true
		return d, true
	case point < len(digits):
		d.frac = true
		digits = digits[:point]
	default:
		digits += strings.Repeat("0", point-len(digits))
	}
	d.whole, _ = strconv.ParseInt(digits, 10, 64)
	return d, true
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// less reports whether d < b (|b| below 10^18).
func (d decimal) less(b int64) bool {
	switch {
	case d.huge:
		return d.neg
	case d.neg && d.frac: // -whole-f < b
		return -d.whole <= b
	case d.neg:
		return -d.whole < b
	default: // whole(+f) < b
		return d.whole < b
	}
}

// greater reports whether d > b (|b| below 10^18).
func (d decimal) greater(b int64) bool {
	switch {
	case d.huge:
		return !d.neg
	case d.neg: // -whole(-f) > b
		return -d.whole > b
	case d.frac: // whole+f > b
		return d.whole >= b
	default:
		return d.whole > b
	}
}
