package testrun

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"time"
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
	kindAny // any value; an object's keys distinct, also under case folding
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
	jsonNullInt    = &spec{kind: kindInt, null: true}
	jsonNullNumber = &spec{kind: kindNumber, null: true}
	jsonBool       = &spec{kind: kindBool}
	// jsonAny is any JSON value, walked only for its keys (checkDuplicateKeys).
	jsonAny = &spec{kind: kindAny, null: true}
)

// runSpec is the exact JSON form of a Run, read off jsonRun, the type
// MarshalJSON encodes (see specOf): the walker and the encoder share one
// description, so they cannot disagree on a key, its order, its type or
// whether it may be null or absent. Its deepest value is three levels down
// (a failure's field), so nesting deeper than that is refused at the first
// level too many.
var runSpec = specOf(reflect.TypeFor[jsonRun](), false)

// specOf describes the JSON form encoding/json writes for a value of type
// t, as the walker checks it: a struct is an object of its json-tagged
// fields in their order (an omitempty field may be absent, and is then
// never null); a pointer may be null; a slice or a map may be null only
// when its field is tagged run:"null" (otherwise an empty one is written
// as [] or {}); a map is an object keyed by test ids; time.Time is a
// string; an int an integer literal; a float any number. A nullable string
// is never "": an unknown value is null. null says whether the value
// itself may be null. A type it cannot describe panics when the package is
// loaded, so a new field of another kind cannot ship undescribed.
func specOf(t reflect.Type, null bool) *spec {
	if t.Kind() == reflect.Pointer {
		return specOf(t.Elem(), true)
	}
	if t == reflect.TypeFor[time.Time]() {
		return &spec{kind: kindString, null: null}
	}
	switch t.Kind() {
	case reflect.String:
		return &spec{kind: kindString, null: null}
	case reflect.Bool:
		return &spec{kind: kindBool, null: null}
	case reflect.Int, reflect.Int64:
		return &spec{kind: kindInt, null: null}
	case reflect.Float64:
		return &spec{kind: kindNumber, null: null}
	case reflect.Slice:
		return &spec{kind: kindArray, null: null, elem: specOf(t.Elem(), false)}
	case reflect.Map:
		if t.Key().Kind() != reflect.String {
			panic("testrun: JSON form: map key of " + t.String())
		}
		return &spec{kind: kindMap, null: null, elem: specOf(t.Elem(), false)}
	case reflect.Struct:
		s := &spec{kind: kindObject, null: null, specs: map[string]*spec{}, optional: map[string]bool{}}
		for f := range t.Fields() {
			tag, ok := f.Tag.Lookup("json")
			name, opts, _ := strings.Cut(tag, ",")
			if !ok || name == "-" || !f.IsExported() {
				panic("testrun: JSON form: " + t.String() + "." + f.Name + " has no json name")
			}
			omit := strings.Contains(","+opts+",", ",omitempty,")
			fs := specOf(f.Type, false)
			switch {
			case omit:
				// Absent is its empty form; present, it is never null.
				fs.null = false
			case f.Type.Kind() == reflect.Pointer:
				fs.null = true
			case f.Tag.Get("run") == "null":
				fs.null = true
			}
			s.fields = append(s.fields, name)
			s.specs[name] = fs
			s.optional[name] = omit
		}
		return s
	}
	panic("testrun: JSON form: no description for " + t.String())
}

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
	// plain leaves every refusal unwrapped, for a caller that wraps it in
	// its own error; otherwise each wraps ErrInvalidRun.
	plain bool
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

// fail refuses the input: wrap's message, then the text.
func (c *checker) fail(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if c.plain {
		return errors.New(msg)
	}
	return fmt.Errorf("%w: %s", ErrInvalidRun, msg)
}

// invalidf refuses the value at the path: the path, then the text.
func (c *checker) invalidf(format string, args ...any) error {
	return c.fail("%s"+format, append([]any{c.where()}, args...)...)
}

// token reads the next token; a syntax error (or the end of the input)
// refuses the run.
func (c *checker) token() (json.Token, error) {
	tok, err := c.dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		if c.plain {
			return nil, fmt.Errorf("%s: %w", c.where(), err)
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidRun, c.where(), err)
	}
	return tok, nil
}

var kindNames = [...]string{
	kindString: "a string", kindInt: "an integer", kindNumber: "a number", kindBool: "true or false",
	kindObject: "an object", kindMap: "an object", kindArray: "a list", kindAny: "a value",
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
	case kindAny:
		switch tok {
		case json.Delim('{'):
			return c.anyObject()
		case json.Delim('['):
			return c.array(s)
		}
		ok = true
	}
	if !ok {
		return c.invalidf(" is %s, want %s", describe(tok), kindNames[s.kind])
	}
	return nil
}

func (c *checker) array(s *spec) error {
	if err := c.deeper(); err != nil {
		return err
	}
	elem := s.elem
	if s.kind == kindAny {
		elem = s // any value holds any values
	}
	c.path = append(c.path, segment{kind: kindArray})
	for i := 0; c.dec.More(); i++ {
		c.path[len(c.path)-1].index = i
		if err := c.value(elem); err != nil {
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
					return c.fail("key %q differs only in case from %q", c.where(), name)
				}
			}
			return c.fail("unknown field %q", c.where())
		case seen[i]:
			return c.fail("key %q given twice", c.where())
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
			return c.fail("key %s given twice", c.where())
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

// deeper refuses a value nested deeper than maxJSONDepth. The run's form
// is shallower than that by its description; any other value is bounded
// here.
func (c *checker) deeper() error {
	if len(c.path) >= maxJSONDepth {
		return c.fail("nested deeper than %d", maxJSONDepth)
	}
	return nil
}

// anyObject walks an object of any keys: each given once, and no two that
// differ only in case (encoding/json would keep the last silently, and a
// reader downstream may keep the first).
func (c *checker) anyObject() error {
	if err := c.deeper(); err != nil {
		return err
	}
	seen := map[string]string{}
	for c.dec.More() {
		tok, err := c.token()
		if err != nil {
			return err
		}
		key := tok.(string)
		c.path = append(c.path, segment{key: key, kind: kindObject})
		folded := strings.ToLower(key)
		if prev, dup := seen[folded]; dup {
			if prev == key {
				return c.fail("key %q given twice", c.where())
			}
			return c.fail("keys %q and %q differ only in case", prev, key)
		}
		seen[folded] = key
		if err := c.value(jsonAny); err != nil {
			return err
		}
		c.path = c.path[:len(c.path)-1]
	}
	_, err := c.token() // }
	return err
}
