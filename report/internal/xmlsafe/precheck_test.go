package xmlsafe

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// precheck returns a Precheck given data in writes of size bytes (all of
// it at once when size <= 0).
func precheck(data []byte, size int) *Precheck {
	p := &Precheck{}
	if size <= 0 {
		size = len(data) + 1
	}
	for len(data) > 0 {
		n := min(size, len(data))
		p.Write(data[:n])
		data = data[n:]
	}
	return p
}

// cleanBytes reports whether a Reader's byte checks pass on s, in UTF-8,
// one rune at a time: valid UTF-8 of characters XML allows.
func cleanBytes(s []byte) bool {
	for len(s) > 0 {
		c, size := utf8.DecodeRune(s)
		if c == utf8.RuneError && size <= 1 || !IsChar(c) {
			return false
		}
		s = s[size:]
	}
	return true
}

func TestPrecheckClean(t *testing.T) {
	tests := []struct {
		name string
		data string
		// want is Clean once every byte is written, in any writes; -1
		// is the whole document.
		want int64
		// most is the largest Clean may be after any write; -1 is the
		// whole document.
		most int64
	}{
		{"empty", "", 0, 0},
		{"ascii", "<a>text\t\r\n</a>", -1, -1},
		{"runes of each length", "<a>é€😀\uFFFD</a>", -1, -1},
		{"ESC", "<a>x\x1by</a>", 0, 4},
		{"NUL", "<a>\x00</a>", 0, 3},
		{"U+FFFE", "<a>x\uFFFEy</a>", 0, 4},
		{"U+FFFF", "<a>\uFFFF</a>", 0, 3},
		{"invalid UTF-8", "<a>\xff</a>", 0, 3},
		{"ISO-8859-1 letter", "<a>caf\xe9</a>", 0, 6},
		{"lone continuation byte", "<a>\x80</a>", 0, 3},
		{"rune cut at the end", "<a>\xe2\x82", 3, 3},
		{"surrogate", "<a>\xed\xa0\x80</a>", 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			data := []byte(tt.data)
			if tt.want < 0 {
				tt.want = int64(len(data))
			}
			if tt.most < 0 {
				tt.most = int64(len(data))
			}
			for size := 0; size <= len(data); size++ {
				p := &Precheck{}
				for rest := data; len(rest) > 0; {
					n := len(rest)
					if size > 0 {
						n = min(size, n)
					}
					p.Write(rest[:n])
					rest = rest[n:]
					require.LessOrEqual(t, p.Clean(), tt.most, "write size %d", size)
					require.True(t, cleanBytes(data[:p.Clean()]), "write size %d: clean %d", size, p.Clean())
				}
				if tt.want > 0 || cleanBytes(data) {
					assert.Equal(t, tt.want, p.Clean(), "write size %d", size)
				}
			}
		})
	}
}

// sameRead reads data through a Reader without a Precheck and through
// Readers relying on Prechecks given data in several ways, from sources
// that return it in several ways, and requires every read to see the same
// tokens and stop on the same error.
func sameRead(t *testing.T, data []byte, lim Limits) {
	t.Helper()
	want, wantErr := events(t, bytes.NewReader(data), lim)
	sources := map[string]func() io.Reader{
		"whole":    func() io.Reader { return bytes.NewReader(data) },
		"half":     func() io.Reader { return iotest.HalfReader(bytes.NewReader(data)) },
		"one byte": func() io.Reader { return iotest.OneByteReader(bytes.NewReader(data)) },
	}
	for srcName, src := range sources {
		if srcName == "one byte" && len(data) > 64<<10 {
			continue
		}
		for _, size := range []int{0, 1, 3, 4096, 65536} {
			got, err := eventsWith(t, src(), lim, precheck(data, size))
			require.Equal(t, want, got, "%s source, writes of %d", srcName, size)
			if wantErr == nil {
				require.NoError(t, err, "%s source, writes of %d", srcName, size)
				continue
			}
			require.Error(t, err, "%s source, writes of %d", srcName, size)
			require.Equal(t, wantErr.Error(), err.Error(), "%s source, writes of %d", srcName, size)
		}
	}
}

// TestReaderPrecheckSameResult: a Reader relying on a Precheck refuses a
// document for the same reason, at the same line, as one checking every
// byte itself, wherever the bad byte stands: in the first bytes or deep in
// a large document, before or after a syntax error, cut by a write.
func TestReaderPrecheckSameResult(t *testing.T) {
	var big strings.Builder
	big.WriteString("<?xml version=\"1.0\"?>\n<testsuites>\n")
	for i := range 3000 {
		fmt.Fprintf(&big, "<testcase name=\"t%d é€😀\"><system-out>line %d\nof output</system-out></testcase>\n", i, i)
	}
	body := big.String()
	end := "</testsuites>\n"
	at := func(off int, ins string) string { return body[:off] + ins + body[off:] + end }
	mid, deep := len(body)/2, len(body)-100
	docs := map[string]string{
		"clean":                      body + end,
		"ESC early":                  at(60, "\x1b"),
		"ESC deep":                   at(deep, "\x1b"),
		"NUL deep":                   at(deep, "\x00"),
		"U+FFFE deep":                at(deep, "\uFFFE"),
		"invalid UTF-8 deep":         at(deep, "\xff"),
		"cut rune at the end":        body + end + "\xe2\x82",
		"NUL after ESC":              at(mid, "\x1b") + "\x00",
		"syntax error before ESC":    body[:mid] + "<a b=c>" + body[mid:mid+5000] + "\x1b" + body[mid+5000:] + end,
		"syntax error after ESC":     body[:mid] + "\x1b" + body[mid:mid+5000] + "<a b=c>" + body[mid+5000:] + end,
		"syntax error far after NUL": body[:1000] + "\x00" + body[1000:] + "<a b=c>" + end,
		"latin1":                     "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a>caf\xe9" + body[40:] + "\x1b" + end,
		"latin1 clean":               "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a>caf\xe9</a>\n",
		"truncated":                  body,
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) {
			sameRead(t, []byte(doc), Limits{})
		})
	}
}

// FuzzPrecheck: Clean never covers a byte a Reader would refuse, covers a
// clean document whole, and a Reader relying on a Precheck reads any
// document exactly as one that checks every byte.
func FuzzPrecheck(f *testing.F) {
	f.Add([]byte("<a>é€😀\uFFFD</a>"), uint8(1))
	f.Add([]byte("<a>x\x1by\uFFFE\xff</a>"), uint8(2))
	f.Add([]byte("<?xml version='1.0' encoding='latin1'?><a>caf\xe9</a>"), uint8(7))
	f.Add([]byte("<a b='1'>\xe2\x82"), uint8(3))
	f.Fuzz(func(t *testing.T, data []byte, size uint8) {
		p := &Precheck{}
		for rest := data; len(rest) > 0; {
			n := min(max(int(size), 1), len(rest))
			p.Write(rest[:n])
			rest = rest[n:]
			if c := p.Clean(); c > int64(len(data)-len(rest)) || !cleanBytes(data[:c]) {
				t.Fatalf("clean %d covers bytes a Reader refuses", c)
			}
		}
		if cleanBytes(data) && p.Clean() != int64(len(data)) {
			t.Fatalf("clean %d of a clean document of %d bytes", p.Clean(), len(data))
		}
		lim := Limits{MaxBytes: 64 << 10, MaxElements: 500, MaxDepth: 8}
		want, wantErr := events(t, bytes.NewReader(data), lim)
		got, err := eventsWith(t, iotest.HalfReader(bytes.NewReader(data)), lim, p)
		if got != want || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("with a Precheck: %q, %v\nwithout: %q, %v", got, err, want, wantErr)
		}
		// A Precheck behind the Reader, as when the goroutine that feeds
		// it is busy: the Reader checks bytes first, and the Precheck
		// skips what it has checked.
		lag := &Precheck{}
		src := &behind{r: iotest.HalfReader(bytes.NewReader(data)), p: lag, size: max(int(size), 1)}
		got, err = eventsWith(t, src, lim, lag)
		if got != want || (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
			t.Fatalf("with a Precheck behind: %q, %v\nwithout: %q, %v", got, err, want, wantErr)
		}
		if c := lag.Clean(); c > int64(len(data)) || !cleanBytes(data[:c]) {
			t.Fatalf("clean %d, behind the Reader, covers bytes a Reader refuses", c)
		}
	})
}

// behind serves r and gives p what it served a read late, in writes of
// size bytes at most.
type behind struct {
	r    io.Reader
	p    *Precheck
	size int
	last []byte
}

func (b *behind) Read(buf []byte) (int, error) {
	for rest := b.last; len(rest) > 0; {
		n := min(b.size, len(rest))
		b.p.Write(rest[:n])
		rest = rest[n:]
	}
	n, err := b.r.Read(buf)
	b.last = append(b.last[:0], buf[:n]...)
	return n, err
}

// BenchmarkPrecheck checks indented XML with a line end every few words,
// some of it not ASCII, in the blocks a report is hashed in.
func BenchmarkPrecheck(b *testing.B) {
	line := "      <testcase classname=\"com.example.pkg1.Sub0\" name=\"test_grüße_3[case-2]\" time=\"0.012\"/>\n" +
		"\tat com.example.service.layer3.Handler.process(Handler.java:121)\r\n" +
		"2026-01-01 12:00:00 INFO  cache warmed, 3 entries loaded: 日本語テスト\n"
	s := []byte(strings.Repeat(line, 1<<16/len(line)))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		var p Precheck
		p.Write(s)
		if p.Clean() != int64(len(s)) {
			b.Fatal(p.Clean())
		}
	}
}
