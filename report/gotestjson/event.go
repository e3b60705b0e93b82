package gotestjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
)

// event is one line of the stream: a test2json TestEvent or a go build
// -json BuildEvent (ImportPath, build-output, build-fail).
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	FailedBuild string
	ImportPath  string
	Elapsed     float64
	hasElapsed  bool
}

// wireEvent is an event as encoding/json reads it: a nil field was absent
// (or null, which decode refuses).
type wireEvent struct {
	Time        *string
	Action      *string
	Package     *string
	Test        *string
	Output      *string
	FailedBuild *string
	ImportPath  *string
	Elapsed     *float64
}

// maxKeys bounds the keys decode compares for duplicates; an event has at
// most eleven (go1.26's TestEvent has ten fields).
const maxKeys = 32

// decode reads one line as an event, strictly: one JSON object and
// nothing after it, no key given twice, the known fields with their types
// (Time, Action, Package, Test, Output, FailedBuild, ImportPath strings;
// Elapsed a number; none null), and an Action. Fields it does not know
// (Key, Value, Path, those later Go versions add) are checked to be JSON
// and ignored.
func (ev *event) decode(line []byte) error {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return errors.New("not a JSON object")
	}
	var w wireEvent
	if err := json.Unmarshal(line, &w); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			want := "a string"
			if te.Type.Kind() == reflect.Float64 {
				want = "a number"
			}
			return fmt.Errorf("%s is a %s, not %s", te.Field, te.Value, want)
		}
		var se *json.SyntaxError
		if errors.As(err, &se) && se.Offset > 0 && json.Valid(line[:se.Offset-1]) {
			return errors.New("data after the event's object")
		}
		return err
	}
	// The line is valid JSON: its keys can be told by tracking strings
	// and nesting alone.
	var keys [maxKeys][]byte
	n, err := topKeys(line, keys[:])
	if err != nil {
		return err
	}
	var names [maxKeys]string
	for i := range n {
		name, err := keyName(keys[i])
		if err != nil {
			return err
		}
		names[i] = name
		for _, prev := range names[:i] {
			// encoding/json matches field names without regard to case:
			// "Action" and "ACTION" are the same key to it.
			if strings.EqualFold(prev, name) {
				return fmt.Errorf("key %q given twice", name)
			}
		}
		for _, known := range knownKeys {
			if name != known && strings.EqualFold(name, known) {
				return fmt.Errorf("key %q is not %q", name, known)
			}
		}
		if w.null(name) {
			return fmt.Errorf("%s is null", name)
		}
	}
	if w.Action == nil || *w.Action == "" {
		return errors.New("no Action")
	}
	set := func(dst *string, src *string) {
		if src != nil {
			*dst = *src
		}
	}
	set(&ev.Action, w.Action)
	set(&ev.Package, w.Package)
	set(&ev.Test, w.Test)
	set(&ev.Output, w.Output)
	set(&ev.FailedBuild, w.FailedBuild)
	set(&ev.ImportPath, w.ImportPath)
	if w.Elapsed != nil {
		ev.Elapsed, ev.hasElapsed = *w.Elapsed, true
	}
	return nil
}

// knownKeys are the fields decode reads.
var knownKeys = [...]string{"Time", "Action", "Package", "Test", "Elapsed", "Output", "FailedBuild", "ImportPath"}

// null reports whether the known field name was left nil although its key
// is there: its value was null.
func (w *wireEvent) null(name string) bool {
	switch name {
	case "Time":
		return w.Time == nil
	case "Action":
		return w.Action == nil
	case "Package":
		return w.Package == nil
	case "Test":
		return w.Test == nil
	case "Output":
		return w.Output == nil
	case "FailedBuild":
		return w.FailedBuild == nil
	case "ImportPath":
		return w.ImportPath == nil
	case "Elapsed":
		return w.Elapsed == nil
	}
	return false
}

// keyName is the name a quoted key, as written, stands for.
func keyName(quoted []byte) (string, error) {
	if bytes.IndexByte(quoted, '\\') < 0 {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var name string
	err := json.Unmarshal(quoted, &name)
	return name, err
}

// topKeys finds the keys of the object that line, valid JSON, holds,
// quoted as written, into keys; it returns how many there are, or an error
// past len(keys).
func topKeys(line []byte, keys [][]byte) (int, error) {
	n, depth, inString, escaped, start := 0, 0, false, false, -1
	expectKey := false
	for i, c := range line {
		if inString {
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
				if start >= 0 {
					if n == len(keys) {
						return n, fmt.Errorf("more than %d keys", len(keys))
					}
					keys[n] = line[start : i+1]
					n++
					start = -1
				}
			}
			continue
		}
		switch c {
		case '"':
			inString = true
			if depth == 1 && expectKey {
				start = i
				expectKey = false
			}
		case '{', '[':
			depth++
			if depth == 1 {
				expectKey = true
			}
		case '}', ']':
			depth--
		case ',':
			if depth == 1 {
				expectKey = true
			}
		}
	}
	return n, nil
}
