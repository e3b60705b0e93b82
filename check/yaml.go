package check

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// maxDeclared bounds the globs a repository may declare.
const maxDeclared = 256

var errYAML = errors.New("check: environment.yaml")

// verifyReports reads the verify_reports key of .hangar/environment.yaml:
// a top-level key whose value is a list of strings, as a block
//
//	verify_reports:
//	  - build/reports/**/*.xml
//	  - "out/junit.xml"
//
// or in flow form (verify_reports: [a.xml, "b/*.xml"]), or one string. It
// reads only that key: other keys, anchors, tags and multi-line scalars are
// not understood (a value of another shape is an error). Plain, single- and
// double-quoted scalars are read; a # after white space starts a comment.
func verifyReports(b []byte) ([]string, error) {
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), maxConfigBytes)
	var globs []string
	in, found := false, false
	lineNo := 0
	add := func(s string) error {
		v, err := yamlScalar(s)
		if err != nil {
			return fmt.Errorf("%w: line %d: %v", errYAML, lineNo, err)
		}
		if v == "" {
			return nil
		}
		if len(globs) >= maxDeclared {
			return fmt.Errorf("%w: verify_reports holds more than %d globs", errYAML, maxDeclared)
		}
		globs = append(globs, v)
		return nil
	}
	for sc.Scan() {
		lineNo++
		line := strings.TrimRight(sc.Text(), "\r")
		t := strings.TrimSpace(stripYAMLComment(line))
		if t == "" || t == "---" {
			continue
		}
		top := line[0] != ' ' && line[0] != '\t'
		if in {
			if strings.HasPrefix(t, "- ") || t == "-" {
				if err := add(strings.TrimSpace(t[1:])); err != nil {
					return nil, err
				}
				continue
			}
			if top {
				in = false
			} else {
				return nil, fmt.Errorf("%w: line %d: verify_reports: want a list of globs", errYAML, lineNo)
			}
		}
		if !top {
			continue
		}
		key, rest, ok := strings.Cut(t, ":")
		if !ok || strings.Trim(strings.TrimSpace(key), `"'`) != "verify_reports" {
			continue
		}
		if found {
			return nil, fmt.Errorf("%w: line %d: verify_reports is given twice", errYAML, lineNo)
		}
		found = true
		rest = strings.TrimSpace(rest)
		switch {
		case rest == "":
			in = true
		case strings.HasPrefix(rest, "["):
			if !strings.HasSuffix(rest, "]") {
				return nil, fmt.Errorf("%w: line %d: verify_reports: a flow list must end on its line", errYAML, lineNo)
			}
			for _, item := range splitFlow(rest[1 : len(rest)-1]) {
				if err := add(item); err != nil {
					return nil, err
				}
			}
		default:
			if err := add(rest); err != nil {
				return nil, err
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%w: %v", errYAML, err)
	}
	return globs, nil
}

// stripYAMLComment removes a # comment (one at the start or after white
// space, outside quotes).
func stripYAMLComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#' && (i == 0 || line[i-1] == ' ' || line[i-1] == '\t'):
			return line[:i]
		}
	}
	return line
}

// splitFlow splits the inside of a flow list at commas outside quotes.
func splitFlow(s string) []string {
	var items []string
	var quote byte
	start := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == ',':
			items = append(items, strings.TrimSpace(s[start:i]))
			start = i + 1
		}
	}
	return append(items, strings.TrimSpace(s[start:]))
}

// yamlScalar reads a plain, single-quoted or double-quoted scalar.
func yamlScalar(s string) (string, error) {
	s = strings.TrimSpace(s)
	switch {
	case s == "":
		return "", nil
	case s[0] == '"':
		v, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad double-quoted string %s", s)
		}
		return v, nil
	case s[0] == '\'':
		if len(s) < 2 || s[len(s)-1] != '\'' {
			return "", fmt.Errorf("bad single-quoted string %s", s)
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	case strings.ContainsAny(s[:1], "[{&*!|>%@`"):
		return "", fmt.Errorf("unsupported value %s (want a glob)", s)
	}
	return s, nil
}
