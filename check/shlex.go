package check

import (
	"errors"
	"strings"
)

var (
	errUnterminated = errors.New("check: unterminated quote")
	errNoEscaped    = errors.New("check: backslash at the end, with no character to escape")
)

// splitArgs splits s into words as Python's shlex.split (which pytest uses
// for addopts and PYTEST_ADDOPTS) does, checked against a table shlex.split
// made (testdata/shlex): space, tab, \r and \n separate words; '...' keeps
// its content as is; "..." keeps its content but for \" and \\; a
// backslash outside quotes keeps the next character. An unterminated quote
// and a backslash that ends s are errors, as they are for Python.
func splitArgs(s string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch c {
		case ' ', '\t', '\n', '\r':
			if inWord {
				words = append(words, cur.String())
				cur.Reset()
				inWord = false
			}
		case '\'':
			inWord = true
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return words, errUnterminated
			}
			cur.WriteString(s[i+1 : i+1+end])
			i += end + 1
		case '"':
			inWord = true
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && (s[i+1] == '"' || s[i+1] == '\\') {
					i++
				}
				cur.WriteByte(s[i])
			}
			if i >= len(s) {
				return words, errUnterminated
			}
		case '\\':
			inWord = true
			if i+1 >= len(s) {
				return words, errNoEscaped
			}
			i++
			cur.WriteByte(s[i])
		default:
			inWord = true
			cur.WriteByte(c)
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// quoteArgs joins argv into one command line that a POSIX shell would split
// back into argv: words with anything but safe characters are single-quoted.
func quoteArgs(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%") == "" {
			b.WriteString(a)
			continue
		}
		b.WriteByte('\'')
		b.WriteString(strings.ReplaceAll(a, "'", `'\''`))
		b.WriteByte('\'')
	}
	return b.String()
}
