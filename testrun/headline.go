package testrun

import (
	"strings"
	"unicode/utf8"
)

// MaxHeadline bounds the headline of a failure, in characters.
const MaxHeadline = 200

// Headline returns the first line of a failure's message that says what
// failed, for a one-line summary: blank lines, the runner's framing
// (go's "=== RUN", "--- FAIL: ...", a lone "FAIL"), the bare "Failed" that
// gotestsum and go-junit-report write as the message attribute, and a line
// that only names the test (PHPUnit opens with "Class::method") are passed
// over. The line is trimmed and clipped to MaxHeadline characters ("…"
// marks the cut); "" when no line says more than that the test failed.
func Headline(id, message string) string {
	_, name, _ := strings.Cut(id, "::")
	for line := range strings.Lines(message) {
		line = strings.TrimSpace(line)
		if line == "" || framing(line) || line == id || (name != "" && line == name) ||
			(id != "" && strings.HasPrefix(line, id+" (")) {
			continue
		}
		return clipHeadline(line)
	}
	return ""
}

// framing is a line a runner writes around a test's output, saying only
// that it ran, stopped or failed.
func framing(line string) bool {
	switch line {
	case "Failed", "FAIL", "PASS", "failed", "Error", "error":
		return true
	}
	for _, p := range []string{"=== RUN ", "=== PAUSE ", "=== CONT ", "=== NAME ", "--- FAIL: ", "--- PASS: ", "--- SKIP: ", "FAIL\t", "ok  \t"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

func clipHeadline(s string) string {
	if utf8.RuneCountInString(s) <= MaxHeadline {
		return s
	}
	n := 0
	for i := range s {
		if n == MaxHeadline-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
}
