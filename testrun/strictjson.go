package testrun

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// MaxJSONBytes is the largest run JSON that is read (16 MiB). A run keeps at
// most DefaultMaxCasesKept outcomes and DefaultMaxFailures clipped messages, so
// an honest run's JSON form is far smaller (about 1.3 MB at those limits);
// a larger input is refused before it is decoded, which also bounds the time
// a hostile file can cost the strict check.
const MaxJSONBytes = 16 << 20

// valueKind is what a field of the run's JSON form holds.
type valueKind uint8

const (
	kindString valueKind = iota
	kindInt              // an integer literal: no fraction, no exponent
	kindNumber           // any number
	kindBool
	kindObject // an object with the fields of the form, no others
	kindMap    // an object whose keys are test ids
	kindArray
)

// spec describes one value of the run's JSON form.
type spec struct {
	kind valueKind
	// null is true when the value may be null. A nullable string is never
	// "": an unknown value is null.
	null bool
	// fields are an object's fields, in the order they are written; all are
	// required but those listed in optional.
	fields   []string
	specs    map[string]*spec
	optional map[string]bool
	// elem is an array's element or a map's value.
	elem *spec
}

func object(null bool, fields ...any) *spec {
	s := &spec{kind: kindObject, null: null, specs: map[string]*spec{}, optional: map[string]bool{}}
	for i := 0; i < len(fields); i += 2 {
		name := fields[i].(string)
		if opt, ok := strings.CutSuffix(name, "?"); ok {
			name = opt
			s.optional[name] = true
		}
		s.fields = append(s.fields, name)
		s.specs[name] = fields[i+1].(*spec)
	}
	return s
}

var (
	jsonString     = &spec{kind: kindString}
	jsonNullString = &spec{kind: kindString, null: true}
	jsonInt        = &spec{kind: kindInt}
	jsonNullInt    = &spec{kind: kindInt, null: true}
	jsonNumber     = &spec{kind: kindNumber}
	jsonNullNumber = &spec{kind: kindNumber, null: true}
	jsonBool       = &spec{kind: kindBool}
)

// runSpec is the exact JSON form of a Run, as MarshalJSON writes it. Its
// deepest value is three levels down (a failure's field), so nesting deeper
// than that is refused at the first level too many.
var runSpec = object(false,
	"id", jsonNullString,
	"kind", jsonNullString,
	"grade", jsonNullString,
	"command", jsonNullString,
	"status", jsonNullString,
	"exit_code", jsonNullInt,
	"commit", jsonNullString,
	"tree", jsonNullString,
	"agent_run_id", jsonNullString,
	"started_at", jsonNullString,
	"ended_at", jsonNullString,
	"counts", object(true,
		"total", jsonInt,
		"passed", jsonInt,
		"failed", jsonInt,
		"errors", jsonInt,
		"skipped", jsonInt,
		"flaky", jsonInt,
	),
	"complete", jsonBool,
	"incomplete_reasons", &spec{kind: kindArray, elem: jsonString},
	"trusted", jsonBool,
	"counted", jsonBool,
	"failures", &spec{kind: kindArray, null: true, elem: object(false,
		"id", jsonString,
		"outcome", jsonString,
		"message", jsonString,
		"flaky", jsonBool,
	)},
	"cases", &spec{kind: kindMap, null: true, elem: jsonString},
	"durations?", &spec{kind: kindMap, elem: jsonNumber},
	"flaky", &spec{kind: kindArray, null: true, elem: jsonString},
	"not_run?", &spec{kind: kindArray, elem: jsonString},
	"not_run_count?", jsonInt,
	"coverage", object(true,
		"line_rate", jsonNullNumber,
		"lines_covered", jsonNullInt,
		"lines_valid", jsonNullInt,
		"reason?", jsonString,
	),
	"reports", &spec{kind: kindArray, elem: object(false,
		"path", jsonString,
		"dialect", jsonNullString,
		"bytes", jsonInt,
		"sha256", jsonNullString,
		"tests", jsonNullInt,
		"error", jsonNullString,
		"skipped?", jsonBool,
	)},
)

// ReadRun reads one run's JSON form from r, at most MaxJSONBytes of it, as
// strictly as UnmarshalJSON does. Every refusal wraps ErrInvalidRun; an
// error of r itself is returned wrapped as it is.
func ReadRun(r io.Reader) (*Run, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("testrun: read run: %w", err)
	}
	var run Run
	if err := run.UnmarshalJSON(data); err != nil {
		return nil, err
	}
	return &run, nil
}

// checkJSON checks that data is exactly one value of the run's JSON form:
// at most MaxJSONBytes of valid UTF-8; every key of an object given once
// and spelled exactly as the form spells it (no unknown field, no case
// variant of a known one); every field present (reports' skipped, the
// run's durations, not_run and not_run_count may be absent), of its type,
// and null only where the form allows it; every
// count an integer. It reads data with the same decoder json.Unmarshal
// uses, so it judges the keys and strings the decoder then sees.
func checkJSON(data []byte) error {
	if len(data) > MaxJSONBytes {
		return invalidf("larger than %d MiB", MaxJSONBytes>>20)
	}
	if !utf8.Valid(data) {
		return invalidf("not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	c := &checker{dec: dec}
	if err := c.value(runSpec); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return invalidf("data after the run's object")
	}
	return nil
}

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRun, fmt.Sprintf(format, args...))
}

// checker walks one input. Its path is kept as segments and spelled out
// only in an error: building it for every case id would cost more than the
// walk itself.
type checker struct {
	dec  *json.Decoder
	path []segment
}

// segment is one step of a path: an object's field, a map's key or a
// list's index.
type segment struct {
	key   string
	index int
	kind  valueKind // kindObject, kindMap or kindArray
}

// where spells the path: run, counts.passed, failures[0].id, cases["a"].
func (c *checker) where() string {
	if len(c.path) == 0 {
		return "run"
	}
	var b strings.Builder
	for i, seg := range c.path {
		switch seg.kind {
		case kindObject:
			if i > 0 {
				b.WriteByte('.')
			}
			b.WriteString(seg.key)
		case kindMap:
			b.WriteString("[" + strconv.Quote(seg.key) + "]")
		case kindArray:
			b.WriteString("[" + strconv.Itoa(seg.index) + "]")
		}
	}
	return b.String()
}

func (c *checker) invalidf(format string, args ...any) error {
	return invalidf("%s"+format, append([]any{c.where()}, args...)...)
}

// token reads the next token; a syntax error (or the end of the input)
// refuses the run.
func (c *checker) token() (json.Token, error) {
	tok, err := c.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidRun, c.where(), err)
	}
	return tok, nil
}

var kindNames = [...]string{
	kindString: "a string", kindInt: "an integer", kindNumber: "a number", kindBool: "true or false",
	kindObject: "an object", kindMap: "an object", kindArray: "a list",
}

// describe names a token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return strconv.FormatBool(v)
	case json.Number:
		return string(v)
	case json.Delim:
		if v == '[' {
			return "a list"
		}
		return "an object"
	}
	return fmt.Sprint(tok)
}

func (c *checker) value(s *spec) error {
	tok, err := c.token()
	if err != nil {
		return err
	}
	if tok == nil {
		if s.null {
			return nil
		}
		return c.invalidf(" is null, want %s", kindNames[s.kind])
	}
	ok := false
	switch s.kind {
	case kindString:
		var v string
		v, ok = tok.(string)
		if ok && s.null && v == "" {
			return c.invalidf(` is "": an unknown value is null`)
		}
	case kindInt:
		var n json.Number
		n, ok = tok.(json.Number)
		if ok && strings.ContainsAny(string(n), ".eE") {
			return c.invalidf(" is %s, want an integer", n)
		}
	case kindNumber:
		_, ok = tok.(json.Number)
	case kindBool:
		_, ok = tok.(bool)
	case kindArray:
		if tok == json.Delim('[') {
			return c.array(s)
		}
	case kindObject:
		if tok == json.Delim('{') {
			return c.object(s)
		}
	case kindMap:
		if tok == json.Delim('{') {
			return c.mapping(s)
		}
	}
	if !ok {
		return c.invalidf(" is %s, want %s", describe(tok), kindNames[s.kind])
	}
	return nil
}

func (c *checker) array(s *spec) error {
	c.path = append(c.path, segment{kind: kindArray})
	for i := 0; c.dec.More(); i++ {
		c.path[len(c.path)-1].index = i
		if err := c.value(s.elem); err != nil {
			return err
		}
	}
	c.path = c.path[:len(c.path)-1]
	_, err := c.token() // ]
	return err
}

func (c *checker) object(s *spec) error {
	seen := make([]bool, len(s.fields))
	index := func(name string) int {
		for i, f := range s.fields {
			if f == name {
				return i
			}
		}
		return -1
	}
	for c.dec.More() {
		tok, err := c.token()
		if err != nil {
			return err
		}
		key := tok.(string) // the decoder yields only strings as keys
		c.path = append(c.path, segment{key: key, kind: kindObject})
		i := index(key)
		switch {
		case i < 0:
			for _, name := range s.fields {
				if strings.EqualFold(name, key) {
					return invalidf("key %q differs only in case from %q", c.where(), name)
				}
			}
			return invalidf("unknown field %q", c.where())
		case seen[i]:
			return invalidf("key %q given twice", c.where())
		}
		seen[i] = true
		if err := c.value(s.specs[key]); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	if _, err := c.token(); err != nil { // }
		return err
	}
	var missing []string
	for i, name := range s.fields {
		if !seen[i] && !s.optional[name] {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		return c.invalidf(": missing %s (absence is never a default)", strings.Join(missing, ", "))
	}
	return nil
}

func (c *checker) mapping(s *spec) error {
	seen := map[string]bool{}
	for c.dec.More() {
		tok, err := c.token()
		if err != nil {
			return err
		}
		key := tok.(string)
		c.path = append(c.path, segment{key: key, kind: kindMap})
		if seen[key] {
			return invalidf("key %s given twice", c.where())
		}
		seen[key] = true
		if err := c.value(s.elem); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	_, err := c.token() // }
	return err
}
