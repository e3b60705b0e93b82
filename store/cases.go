package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
)

// A run's per-case map and its durations are stored as the JSON objects
// json.Marshal writes of them: keys sorted, in the order sort.Strings puts
// the ids. RunPage and RunOutcomes read what they need out of those bytes
// and decode only that: a page of cases, or the failing ones, never the
// 20,000 others.

// errNotSorted is a stored map whose keys are not in order (not as
// json.Marshal writes them): it is then decoded whole instead.
var errNotSorted = errors.New("store: stored map not sorted")

// jsonEntries calls fn with each entry of the JSON object data, as written
// (a key with its quotes and escapes, a value), in order, until fn returns
// false. It checks the object's form as far as it reads it.
func jsonEntries(data string, fn func(key, value string) bool) error {
	i := skipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return errors.New("store: stored map: not an object")
	}
	i = skipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return nil
	}
	for {
		kEnd, err := stringEnd(data, i)
		if err != nil {
			return err
		}
		key := data[i:kEnd]
		i = skipSpace(data, kEnd)
		if i >= len(data) || data[i] != ':' {
			return errors.New("store: stored map: want ':'")
		}
		i = skipSpace(data, i+1)
		vStart := i
		if i < len(data) && data[i] == '"' {
			if i, err = stringEnd(data, i); err != nil {
				return err
			}
		} else {
			for i < len(data) && data[i] != ',' && data[i] != '}' && !isSpace(data[i]) {
				i++
			}
		}
		if !fn(key, data[vStart:i]) {
			return nil
		}
		i = skipSpace(data, i)
		switch {
		case i < len(data) && data[i] == ',':
			i = skipSpace(data, i+1)
		case i < len(data) && data[i] == '}':
			return nil
		default:
			return errors.New("store: stored map: want ',' or '}'")
		}
	}
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// stringEnd returns the index after the JSON string starting at s[i].
func stringEnd(s string, i int) (int, error) {
	if i >= len(s) || s[i] != '"' {
		return 0, errors.New("store: stored map: want a string")
	}
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errors.New("store: stored map: unterminated string")
}

// jsonString decodes a JSON string as written; one without escapes is a
// substring of it.
func jsonString(raw string) (string, error) {
	if !strings.Contains(raw, `\`) {
		return raw[1 : len(raw)-1], nil
	}
	var s string
	err := json.Unmarshal([]byte(raw), &s)
	return s, err
}

// casePage is what pageOf read of a stored map.
type casePage struct {
	cases map[string]testrun.Outcome
	// next is the offset after the page, -1 when no case follows it.
	next int
}

// pageOf decodes the entries [offset, offset+limit) of the stored
// per-case map cases (sorted by id). A map not sorted is refused with
// errNotSorted.
func pageOf(cases string, offset, limit int) (casePage, error) {
	p := casePage{cases: map[string]testrun.Outcome{}, next: -1}
	n := 0
	prev, first := "", true
	var ferr error
	err := jsonEntries(cases, func(rawKey, value string) bool {
		in := n >= offset && n < offset+limit
		if n == offset+limit {
			p.next = n
			return false
		}
		n++
		key, err := jsonString(rawKey)
		if err != nil {
			ferr = err
			return false
		}
		if !first && key <= prev {
			ferr = errNotSorted
			return false
		}
		first, prev = false, key
		if in {
			o, err := outcomeOf(value)
			if err != nil {
				ferr = fmt.Errorf("case %q: %w", key, err)
				return false
			}
			p.cases[key] = o
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	return p, err
}

// outcomeOf decodes an outcome as stored.
func outcomeOf(raw string) (testrun.Outcome, error) {
	var o testrun.Outcome
	if len(raw) >= 2 && raw[0] == '"' && !strings.Contains(raw, `\`) {
		o = testrun.Outcome(raw[1 : len(raw)-1])
	} else if err := json.Unmarshal([]byte(raw), &o); err != nil {
		return "", err
	}
	if !o.Valid() {
		return "", fmt.Errorf("unknown outcome %q", o)
	}
	return o, nil
}

// durationsOf returns, as a JSON object, the stored durations of the ids
// of cases, and of no other.
func durationsOf(durations string, cases map[string]testrun.Outcome) (string, error) {
	var b strings.Builder
	b.WriteByte('{')
	var ferr error
	err := jsonEntries(durations, func(rawKey, value string) bool {
		key, err := jsonString(rawKey)
		if err != nil {
			ferr = err
			return false
		}
		if _, ok := cases[key]; ok {
			if b.Len() > 1 {
				b.WriteByte(',')
			}
			b.WriteString(rawKey)
			b.WriteByte(':')
			b.WriteString(value)
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	b.WriteByte('}')
	return b.String(), err
}

// outcomesOf decodes the failing cases of the stored per-case map cases,
// and those of the ids in also.
func outcomesOf(cases string, also map[string]bool) (map[string]testrun.Outcome, error) {
	out := map[string]testrun.Outcome{}
	var ferr error
	err := jsonEntries(cases, func(rawKey, value string) bool {
		failing := value == `"failed"` || value == `"error"`
		if !failing && strings.Contains(value, `\`) {
			o, _ := outcomeOf(value)
			failing = o.Failing()
		}
		if !failing && len(also) == 0 {
			return true
		}
		key, err := jsonString(rawKey)
		if err != nil {
			ferr = err
			return false
		}
		if !failing && !also[key] {
			return true
		}
		o, err := outcomeOf(value)
		if err != nil {
			ferr = fmt.Errorf("case %q: %w", key, err)
			return false
		}
		out[key] = o
		return true
	})
	if err == nil {
		err = ferr
	}
	return out, err
}
