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

// MaxJSONBytes is the largest run JSON that is read (64 MiB). A run keeps at
// most DefaultMaxCases outcomes and DefaultMaxFailures clipped messages, so
// an honest run's JSON form is far smaller; a larger input is refused before
// it is decoded.
const MaxJSONBytes = 64 << 20

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
	"flaky", &spec{kind: kindArray, null: true, elem: jsonString},
	"coverage", object(true,
		"line_rate", jsonNullNumber,
		"lines_covered", jsonNullInt,
		"lines_valid", jsonNullInt,
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
// variant of a known one); every field present (reports' skipped may be
// absent), of its type, and null only where the form allows it; every
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
	if err := checkValue(dec, "run", runSpec); err != nil {
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

// token reads the next token; a syntax error (or the end of the input)
// refuses the run.
func token(dec *json.Decoder, path string) (json.Token, error) {
	tok, err := dec.Token()
	if err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%w: %s: %w", ErrInvalidRun, path, err)
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

func checkValue(dec *json.Decoder, path string, s *spec) error {
	tok, err := token(dec, path)
	if err != nil {
		return err
	}
	if tok == nil {
		if s.null {
			return nil
		}
		return invalidf("%s is null, want %s", path, kindNames[s.kind])
	}
	ok := false
	switch s.kind {
	case kindString:
		var v string
		v, ok = tok.(string)
		if ok && s.null && v == "" {
			return invalidf(`%s is "": an unknown value is null`, path)
		}
	case kindInt:
		var n json.Number
		n, ok = tok.(json.Number)
		if ok && strings.ContainsAny(string(n), ".eE") {
			return invalidf("%s is %s, want an integer", path, n)
		}
	case kindNumber:
		_, ok = tok.(json.Number)
	case kindBool:
		_, ok = tok.(bool)
	case kindArray:
		if tok == json.Delim('[') {
			return checkArray(dec, path, s)
		}
	case kindObject:
		if tok == json.Delim('{') {
			return checkObject(dec, path, s)
		}
	case kindMap:
		if tok == json.Delim('{') {
			return checkMap(dec, path, s)
		}
	}
	if !ok {
		return invalidf("%s is %s, want %s", path, describe(tok), kindNames[s.kind])
	}
	return nil
}

func checkArray(dec *json.Decoder, path string, s *spec) error {
	for i := 0; dec.More(); i++ {
		if err := checkValue(dec, path+"["+strconv.Itoa(i)+"]", s.elem); err != nil {
			return err
		}
	}
	_, err := token(dec, path) // ]
	return err
}

func checkObject(dec *json.Decoder, path string, s *spec) error {
	seen := make(map[string]bool, len(s.fields))
	for dec.More() {
		tok, err := token(dec, path)
		if err != nil {
			return err
		}
		key := tok.(string) // the decoder yields only strings as keys
		field := key
		if path != "run" {
			field = path + "." + key
		}
		sub, known := s.specs[key]
		switch {
		case !known:
			for _, name := range s.fields {
				if strings.EqualFold(name, key) {
					return invalidf("key %q differs only in case from %q", field, name)
				}
			}
			return invalidf("unknown field %q", field)
		case seen[key]:
			return invalidf("key %q given twice", field)
		}
		seen[key] = true
		if err := checkValue(dec, field, sub); err != nil {
			return err
		}
	}
	if _, err := token(dec, path); err != nil { // }
		return err
	}
	var missing []string
	for _, name := range s.fields {
		if !seen[name] && !s.optional[name] {
			missing = append(missing, strconv.Quote(name))
		}
	}
	if len(missing) > 0 {
		return invalidf("%s: missing %s (absence is never a default)", path, strings.Join(missing, ", "))
	}
	return nil
}

func checkMap(dec *json.Decoder, path string, s *spec) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := token(dec, path)
		if err != nil {
			return err
		}
		key := tok.(string)
		field := path + "[" + strconv.Quote(key) + "]"
		if seen[key] {
			return invalidf("key %s given twice", field)
		}
		seen[key] = true
		if err := checkValue(dec, field, s.elem); err != nil {
			return err
		}
	}
	_, err := token(dec, path) // }
	return err
}
