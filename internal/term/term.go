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
	"unicode"
	"unicode/utf8"

	xterm "golang.org/x/term"
)

// Escape returns s with every character that a terminal would act on shown
// as a Go-style escape: C0 controls other than tab and newline (ESC is
// \x1b, CR is \r), DEL, C1 controls (U+0080–U+009F), Unicode format
// characters (the bidirectional overrides and isolates, which reorder what
// is shown, zero-width characters), the line and paragraph separators, and
// bytes that are not UTF-8. Everything else is kept as it is.
func Escape(s string) string { return escape(s, false) }

// EscapeLine is Escape that also escapes tab and newline (\t, \n), for a
// value shown within one line: a test id, a path.
func EscapeLine(s string) string { return escape(s, true) }

func escape(s string, line bool) string {
	needsEscape := needsEscape
	if line {
		needsEscape = func(r rune, size int) bool { return r == '\t' || r == '\n' || needsEscapeText(r, size) }
	}
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

var needsEscape = needsEscapeText

func needsEscapeText(r rune, size int) bool {
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
	case r == 0x2028 || r == 0x2029 || unicode.Is(unicode.Cf, r):
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
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\t':
		b.WriteString(`\t`)
	case r < 0x80 || r == 0x7f:
		fmt.Fprintf(b, `\x%02x`, r)
	default:
		fmt.Fprintf(b, `\u%04x`, r)
	}
}

// Writer escapes (see Escape) everything written to it before passing it
// on. Only Raw, and the styles of Painted values given to Printf, write
// bytes unescaped: the colour codes a program chooses itself.
type Writer struct {
	w io.Writer
	// Terminal is true when the destination is a terminal.
	Terminal bool
	// Color is true when colour codes may be written: the destination is a
	// terminal, NO_COLOR is not set and TERM is not dumb.
	Color bool
}

// NewWriter returns a Writer that escapes what it passes to w. Colour is
// off; see ForTerminal.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// ForTerminal returns a Writer for f that allows colour when f is a
// terminal, getenv("NO_COLOR") is empty (https://no-color.org) and
// getenv("TERM") is not "dumb".
func ForTerminal(f *os.File, getenv func(string) string) *Writer {
	tty := IsTerminal(f)
	return &Writer{w: f, Terminal: tty, Color: tty && ColorAllowed(getenv)}
}

// ColorAllowed reports whether the environment allows colour on a
// terminal: NO_COLOR is empty and TERM is not "dumb".
func ColorAllowed(getenv func(string) string) bool {
	return getenv("NO_COLOR") == "" && getenv("TERM") != "dumb"
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

// IsTerminal reports whether f is a terminal, which is what deciding on
// colour needs: a pipe, a file or another character device such as
// /dev/null is not.
func IsTerminal(f *os.File) bool {
	return f != nil && xterm.IsTerminal(int(f.Fd()))
}

// Style is how Painted text is shown: an SGR parameter the program chose.
type Style string

// The styles the CLI uses.
const (
	StyleRed    Style = "31"
	StyleGreen  Style = "32"
	StyleYellow Style = "33"
	StyleBold   Style = "1"
)

// Painted is text to show in a style. Formatted by package fmt (%s, %v,
// with a width) it is its text, escaped, without colour; Writer.Printf
// writes it in its style when the writer takes colour.
type Painted struct {
	Style Style
	Text  string
}

// Paint returns text to show in style.
func Paint(style Style, text string) Painted { return Painted{Style: style, Text: text} }

// Format writes p's text escaped, without colour. (The Format methods
// here ignore the errors of writing to f: fmt's State writes to fmt's
// buffer, which never fails; fmt reports the error of the final write.)
func (p Painted) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, Escape(fmt.Sprintf(fmt.FormatString(f, verb), p.Text)))
}

// colored is a Painted that Printf writes with its style's codes around its
// escaped text; padding stays outside the codes.
type colored Painted

func (c colored) Format(f fmt.State, verb rune) {
	padded := fmt.Sprintf(fmt.FormatString(f, verb), c.Text)
	i := strings.Index(padded, c.Text)
	if i < 0 || c.Text == "" {
		_, _ = io.WriteString(f, Escape(padded))
		return
	}
	_, _ = io.WriteString(f, Escape(padded[:i])+"\x1b["+string(c.Style)+"m"+Escape(c.Text)+"\x1b[0m"+Escape(padded[i+len(c.Text):]))
}

// escaped formats a value as package fmt does, then escapes the result.
type escaped struct{ v any }

func (e escaped) Format(f fmt.State, verb rune) {
	_, _ = io.WriteString(f, Escape(fmt.Sprintf(fmt.FormatString(f, verb), e.v)))
}

// Printf formats as fmt.Fprintf does and writes the result: the format and
// every argument escaped (see Escape), and each Painted argument in its
// style when w.Color is true (its text escaped within the codes). Only the
// codes of the styles reach the destination unescaped.
func (w *Writer) Printf(format string, args ...any) (int, error) {
	wrapped := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case Painted:
			if w.Color && validStyle(v.Style) {
				wrapped[i] = colored(v)
			} else {
				wrapped[i] = v
			}
		default:
			wrapped[i] = escaped{a}
		}
	}
	return io.WriteString(w.w, fmt.Sprintf(Escape(format), wrapped...))
}

// validStyle is true for an SGR parameter list: digits and semicolons.
func validStyle(s Style) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if (c < '0' || c > '9') && c != ';' {
			return false
		}
	}
	return true
}

// Colors reports whether w takes colour (w.Color).
func (w *Writer) Colors() bool { return w.Color }

// Paints reports whether text written to w may be painted: w is a Writer
// that takes colour, and the environment allows it (ColorAllowed). Colour
// goes through that Writer, never as codes inside printed text, which it
// would show escaped.
func Paints(w io.Writer, getenv func(string) string) bool {
	tw, ok := w.(interface{ Colors() bool })
	return ok && tw.Colors() && ColorAllowed(getenv)
}
