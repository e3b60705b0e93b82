package term

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testpty"
)

func TestEscape(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain", "tests/test_a.py::test_ok", "tests/test_a.py::test_ok"},
		{"unicode kept", "héllo › wörld ✓", "héllo › wörld ✓"},
		{"tab and newline kept", "a\tb\nc", "a\tb\nc"},
		{"ANSI colour", "\x1b[31mred\x1b[0m", `\x1b[31mred\x1b[0m`},
		{"cursor movement and clear", "ok\x1b[2J\x1b[H", `ok\x1b[2J\x1b[H`},
		{"bell", "ding\a", `ding\x07`},
		{"carriage return rewrites a line", "PASS\rFAIL", `PASS\rFAIL`},
		{"backspace", "abc\b\b", `abc\x08\x08`},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"C1 CSI", "a\u009b31mb", `a\u009b31mb`},
		{"bidi override", "test_\u202eevil", `test_\u202eevil`},
		{"bidi isolate", "x\u2066y\u2069", `x\u2066y\u2069`},
		{"not UTF-8", "a\xff\xfeb", `a\xff\xfeb`},
		{"NUL", "a\x00b", `a\x00b`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Escape(tt.in)
			assert.Equal(t, tt.want, got)
			for _, c := range []byte(got) {
				assert.False(t, c < 0x20 && c != '\t' && c != '\n' || c == 0x7f, "control byte %#x left in %q", c, got)
			}
		})
	}
}

func TestWriterEscapesButRawDoesNot(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	n, err := fmt.Fprintf(w, "failed: %s\n", "\x1b]0;pwned\a")
	require.NoError(t, err)
	assert.Equal(t, len("failed: \x1b]0;pwned\a\n"), n)
	require.NoError(t, w.Raw("\x1b[1m"))
	assert.Equal(t, "failed: \\x1b]0;pwned\\x07\n\x1b[1m", buf.String())
	assert.False(t, w.Color)
}

func TestForTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "out")
	require.NoError(t, err)
	defer f.Close()
	none := func(string) string { return "" }
	assert.False(t, IsTerminal(f), "a regular file is not a terminal")
	assert.False(t, ForTerminal(f, none).Color)
	assert.False(t, IsTerminal(nil))
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer r.Close()
	defer w.Close()
	assert.False(t, ForTerminal(w, none).Color, "a pipe is not a terminal")

	master, tty, err := testpty.Open()
	if errors.Is(err, errors.ErrUnsupported) {
		t.Skip("no pseudo-terminal here")
	}
	require.NoError(t, err)
	defer master.Close()
	defer tty.Close()
	tw := ForTerminal(tty, none)
	assert.True(t, tw.Terminal)
	assert.True(t, tw.Color)
	for k, v := range map[string]string{"NO_COLOR": "1", "TERM": "dumb"} {
		tw := ForTerminal(tty, func(key string) string {
			if key == k {
				return v
			}
			return ""
		})
		assert.True(t, tw.Terminal)
		assert.False(t, tw.Color, "%s=%s turns colour off", k, v)
	}
}

// TestPrintfPaints: a Painted argument is written in its style only when
// the writer takes colour; everything else, the painted text included, is
// escaped, so a report's own escape codes are shown as text.
func TestPrintfPaints(t *testing.T) {
	var buf bytes.Buffer
	w := &Writer{w: &buf, Color: true}
	_, err := w.Printf("  %-8s %s\n", Paint(StyleRed, "failed"), "c::\x1b[31mevil")
	require.NoError(t, err)
	assert.Equal(t, "  \x1b[31mfailed\x1b[0m   c::\\x1b[31mevil\n", buf.String())

	buf.Reset()
	_, err = w.Printf("%s|%d|%v\n", Paint(StyleYellow, "a\x1b[2Jb"), 3, errors.New("e\a"))
	require.NoError(t, err)
	assert.Equal(t, "\x1b[33ma\\x1b[2Jb\x1b[0m|3|e\\x07\n", buf.String())

	buf.Reset()
	_, err = w.Printf("%s\n", Paint(Style("31m\x1b]0;x"), "t"))
	require.NoError(t, err)
	assert.Equal(t, "t\n", buf.String(), "a style that is no SGR parameter list is not written")

	buf.Reset()
	w.Color = false
	_, err = w.Printf("  %-8s %s\n", Paint(StyleRed, "failed"), "c::\x1b[31mevil")
	require.NoError(t, err)
	assert.Equal(t, "  failed   c::\\x1b[31mevil\n", buf.String(), "no colour: no codes at all")

	assert.Equal(t, `x\x1by`, fmt.Sprintf("%s", Paint(StyleRed, "x\x1by")), "outside Printf a Painted is its escaped text")
}

func TestEscapeLine(t *testing.T) {
	assert.Equal(t, `a\tb\nc\x1b`, EscapeLine("a\tb\nc\x1b"))
	assert.Equal(t, `zero\u200bwidth`, Escape("zero\u200bwidth"))
	assert.Equal(t, `line\u2028sep`, Escape("line\u2028sep"))
}

func FuzzEscape(f *testing.F) {
	for _, s := range []string{"", "plain", "\x1b[31m", "\u202e", "\xff", "a\tb\nc\r"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		for _, c := range []byte(got) {
			if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				t.Fatalf("control byte %#x left in %q", c, got)
			}
		}
		if Escape(got) != got {
			t.Fatalf("escaping is not stable: %q", got)
		}
	})
}
