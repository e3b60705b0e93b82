package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

var errTOML = errors.New("check: pyproject.toml")

// tomlTable reads the keys of one table of a TOML file whose values are a
// string or an array of strings, which is all pytest's options in
// pyproject.toml need. It understands "[a.b.c]" headers (bare or quoted
// keys), "key = value" lines, basic and literal strings, multi-line strings
// (between three double or three single quotes), arrays of strings over
// several lines, and # comments. It does not read inline tables, dotted keys inside the table,
// or "[tool.pytest]" written as a dotted key of a parent table
// (tool.pytest.ini_options = {...}); numbers and booleans are kept as their
// text. addopts given as a string is split into arguments as pytest splits
// it; as an array, each element is one argument. found reports whether the
// table exists.
func tomlTable(b []byte, table string) (opts map[string][]string, found bool, err error) {
	opts = map[string][]string{}
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxConfigBytes)
	lineNo := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		lineNo++
		return sc.Text(), true
	}
	for {
		line, ok := next()
		if !ok {
			break
		}
		t := strings.TrimSpace(line)
		if t == "" || t[0] == '#' {
			continue
		}
		if t[0] == '[' {
			in = tomlHeader(t) == table
			found = found || in
			continue
		}
		if !in {
			// A multi-line value outside the table may hold lines that look
			// like headers; skip its lines whole.
			if err := skipTOMLValue(t, next); err != nil {
				return nil, found, fmt.Errorf("%w: line %d: %v", errTOML, lineNo, err)
			}
			continue
		}
		eq := strings.IndexByte(t, '=')
		if eq < 0 {
			return nil, found, fmt.Errorf("%w: line %d: want key = value", errTOML, lineNo)
		}
		key := strings.Trim(strings.TrimSpace(t[:eq]), `"'`)
		rest := strings.TrimSpace(t[eq+1:])
		vals, err := tomlValue(rest, next)
		if err != nil {
			return nil, found, fmt.Errorf("%w: line %d: %v", errTOML, lineNo, err)
		}
		key = strings.ToLower(key)
		if key == "addopts" && !strings.HasPrefix(rest, "[") && len(vals) == 1 {
			// A string of options is split as pytest splits it (shlex).
			str := vals[0]
			if vals, err = splitArgs(str); err != nil {
				vals = strings.Fields(str)
			}
		}
		opts[key] = vals
	}
	return opts, found, nil
}

// tomlHeader returns the dotted name of a table header, quotes and spaces
// removed ("" for an array of tables).
func tomlHeader(t string) string {
	if strings.HasPrefix(t, "[[") {
		return ""
	}
	end := strings.LastIndexByte(t, ']')
	if end < 0 {
		return ""
	}
	parts := strings.Split(t[1:end], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, ".")
}

// skipTOMLValue passes over the remaining lines of a multi-line value that
// starts on line t.
func skipTOMLValue(t string, next func() (string, bool)) error {
	eq := strings.IndexByte(t, '=')
	if eq < 0 {
		return nil
	}
	rest := strings.TrimSpace(t[eq+1:])
	if strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''") || strings.HasPrefix(rest, "[") {
		_, err := tomlValue(rest, next)
		if err != nil && !errors.Is(err, errTOMLType) {
			return err
		}
	}
	return nil
}

var errTOMLType = errors.New("not a string or an array of strings")

// tomlValue reads a value that starts with rest, reading further lines with
// next when it spans several.
func tomlValue(rest string, next func() (string, bool)) ([]string, error) {
	switch {
	case strings.HasPrefix(rest, `"""`), strings.HasPrefix(rest, "'''"):
		s, _, err := tomlMultiline(rest, next)
		return []string{s}, err
	case strings.HasPrefix(rest, `"`), strings.HasPrefix(rest, "'"):
		s, _, err := tomlString(rest)
		return []string{s}, err
	case strings.HasPrefix(rest, "["):
		return tomlArray(rest[1:], next)
	}
	v := rest
	if i := strings.IndexByte(v, '#'); i >= 0 {
		v = v[:i]
	}
	return []string{strings.TrimSpace(v)}, nil
}

// tomlString reads one single-line string at the start of s and returns it
// and the rest of s after it.
func tomlString(s string) (string, string, error) {
	q := s[0]
	if q == '\'' {
		end := strings.IndexByte(s[1:], '\'')
		if end < 0 {
			return "", "", errors.New("unterminated string")
		}
		return s[1 : 1+end], s[2+end:], nil
	}
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			v, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", fmt.Errorf("string %s: %v", s[:i+1], err)
			}
			return v, s[i+1:], nil
		}
	}
	return "", "", errors.New("unterminated string")
}

// tomlMultiline reads a multi-line string starting at rest.
func tomlMultiline(rest string, next func() (string, bool)) (string, string, error) {
	delim := rest[:3]
	body := rest[3:]
	var b strings.Builder
	first := true
	for {
		if i := strings.Index(body, delim); i >= 0 {
			b.WriteString(body[:i])
			s := b.String()
			if delim == `"""` {
				// Line-ending backslashes join lines; the usual escapes apply.
				s = strings.ReplaceAll(s, "\\\n", "")
				if u, err := strconv.Unquote(`"` + strings.ReplaceAll(strings.ReplaceAll(s, `"`, `\"`), "\n", `\n`) + `"`); err == nil {
					s = u
				}
			}
			return strings.TrimPrefix(s, "\n"), body[i+3:], nil
		}
		if !first || body != "" {
			b.WriteString(body)
		}
		b.WriteByte('\n')
		first = false
		line, ok := next()
		if !ok {
			return "", "", errors.New("unterminated multi-line string")
		}
		body = line
	}
}

// tomlArray reads the elements of an array of strings whose "[" has been
// read.
func tomlArray(rest string, next func() (string, bool)) ([]string, error) {
	vals := []string{}
	for {
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "" || rest[0] == '#':
			line, ok := next()
			if !ok {
				return nil, errors.New("unterminated array")
			}
			rest = line
			continue
		case rest[0] == ',':
			rest = rest[1:]
			continue
		case rest[0] == ']':
			return vals, nil
		case rest[0] == '"' || rest[0] == '\'':
			var s string
			var err error
			if strings.HasPrefix(rest, `"""`) || strings.HasPrefix(rest, "'''") {
				s, rest, err = tomlMultiline(rest, next)
			} else {
				s, rest, err = tomlString(rest)
			}
			if err != nil {
				return nil, err
			}
			vals = append(vals, s)
		default:
			return nil, errTOMLType
		}
	}
}
