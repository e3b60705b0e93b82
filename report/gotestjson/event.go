package gotestjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
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

// decode reads one line as an event, strictly: one JSON object and
// nothing after it, no key given twice, the known fields with their types
// (Time, Action, Package, Test, Output, FailedBuild, ImportPath strings;
// Elapsed a number), and an Action. Fields it does not know (Key, Value,
// Path, those later Go versions add) are checked to be JSON and ignored.
func (ev *event) decode(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return errors.New("not a JSON object")
	}
	var seen [8]string
	nseen := 0
	var extra map[string]bool
	hasAction := false
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key := tok.(string) // object keys are strings
		dup := false
		for _, k := range seen[:nseen] {
			dup = dup || k == key
		}
		if dup || extra[key] {
			return fmt.Errorf("key %q given twice", key)
		}
		var dst *string
		switch key {
		case "Action":
			dst, hasAction = &ev.Action, true
		case "Package":
			dst = &ev.Package
		case "Test":
			dst = &ev.Test
		case "Output":
			dst = &ev.Output
		case "FailedBuild":
			dst = &ev.FailedBuild
		case "ImportPath":
			dst = &ev.ImportPath
		case "Time":
			var t string
			dst = &t
		case "Elapsed":
			tok, err := dec.Token()
			if err != nil {
				return err
			}
			f, ok := tok.(float64)
			if !ok {
				return fmt.Errorf("Elapsed is %s, not a number", kind(tok))
			}
			ev.Elapsed, ev.hasElapsed = f, true
		default:
			if extra == nil {
				extra = map[string]bool{}
			}
			extra[key] = true
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return err
			}
			continue
		}
		seen[nseen] = key
		nseen++
		if dst == nil {
			continue
		}
		tok, err = dec.Token()
		if err != nil {
			return err
		}
		s, ok := tok.(string)
		if !ok {
			return fmt.Errorf("%s is %s, not a string", key, kind(tok))
		}
		*dst = s
	}
	if _, err := dec.Token(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("data after the event's object")
	}
	if !hasAction || ev.Action == "" {
		return errors.New("no Action")
	}
	return nil
}

// kind names the JSON type of a token.
func kind(tok json.Token) string {
	switch tok.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case json.Delim:
		return "an object or an array"
	}
	return "something else"
}
