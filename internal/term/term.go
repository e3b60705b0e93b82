// Package term makes text from untrusted reports safe to print on a
// terminal: control characters are shown escaped, so a test name or a
// failure message cannot move the cursor, change colours, ring the bell or
// rewrite what the reader already saw. Colour is written on a separate,
// explicit path and only where a person reads a terminal.
package term

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"
)

// Escape returns s with every character that a terminal would act on shown
// as a Go-style escape: C0 controls other than tab and newline (ESC is
// \x1b, CR is \r), DEL, C1 controls (U+0080–U+009F), the Unicode
// bidirectional overrides and isolates (which reorder what is shown), and
// bytes that are not UTF-8. Everything else is kept as it is.
func Escape(s string) string {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			break
		}
		i += size
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if needsEscape(r, size) {
			writeEscaped(&b, s[i:i+size], r)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

func needsEscape(r rune, size int) bool {
	switch {
	case r == utf8.RuneError && size <= 1:
		return true // not UTF-8
	case r == '\t' || r == '\n':
		return false
	case r < 0x20 || r == 0x7f:
		return true
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}

func writeEscaped(b *strings.Builder, raw string, r rune) {
	switch {
	case r == utf8.RuneError:
		for i := 0; i < len(raw); i++ {
			fmt.Fprintf(b, `\x%02x`, raw[i])
		}
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80 || r == 0x7f:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// Writer escapes (see Escape) everything written to it before passing it
// on. Only Raw writes bytes unescaped, for the colour codes a program
// chooses itself.
type Writer struct {
	w io.Writer
	// Color is true when colour codes may be written: the destination is a
	// terminal and NO_COLOR is not set.
	Color bool
}

// NewWriter returns a Writer that escapes what it passes to w. Colour is
// off; see ForTerminal.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// ForTerminal returns a Writer for f that allows colour when f is a
// terminal and getenv("NO_COLOR") is empty (https://no-color.org).
func ForTerminal(f *os.File, getenv func(string) string) *Writer {
	return &Writer{w: f, Color: IsTerminal(f) && getenv("NO_COLOR") == ""}
}

// Write writes p with control characters escaped. It reports len(p) on
// success, as io.Writer requires, though more bytes may reach the
// destination.
func (w *Writer) Write(p []byte) (int, error) {
	s := Escape(string(p))
	if _, err := io.WriteString(w.w, s); err != nil {
		return 0, err
	}
	return len(p), nil
}

// Raw writes p unescaped. Use it only for bytes the program made itself.
func (w *Writer) Raw(p string) error {
	_, err := io.WriteString(w.w, p)
	return err
}

// IsTerminal reports whether f is a character device (a terminal), which
// is what deciding on colour needs; a pipe or a file is not.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
