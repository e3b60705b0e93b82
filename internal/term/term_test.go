package term

import (
	"bytes"
	"fmt"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	assert.False(t, IsTerminal(f), "a regular file is not a terminal")
	assert.False(t, ForTerminal(f, func(string) string { return "" }).Color)
	assert.False(t, IsTerminal(nil))
	tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no terminal to check colour against: %v", err)
	}
	defer tty.Close()
	assert.True(t, ForTerminal(tty, func(string) string { return "" }).Color)
	assert.False(t, ForTerminal(tty, func(k string) string {
		if k == "NO_COLOR" {
			return "1"
		}
		return ""
	}).Color, "NO_COLOR turns colour off")
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
