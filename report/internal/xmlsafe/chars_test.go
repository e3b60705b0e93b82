package xmlsafe

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCleanUTF8 checks the one-pass check agrees with checking runes one
// by one, wherever a bad byte, a line end or a rune falls among the
// sixteen bytes it reads at a time, and for runes cut by the end.
func TestCleanUTF8(t *testing.T) {
	pieces := []string{"a", " ", "\t", "\n", "\r", "\x01", "\x1f", "\x7f", "é", "€", "😀", "\u0085",
		"\uFFFD", "\xef\xbf\xbe", "\xef\xbf\xbf", "\xed\xa0\x80", "\xe2\x82", "\xc3", "\x80", "\xff"}
	rng := rand.New(rand.NewPCG(5, 6))
	for n := range 48 {
		for range 400 {
			var b []byte
			for len(b) < n {
				if rng.IntN(5) == 0 {
					b = append(b, pieces[rng.IntN(len(pieces))]...)
				} else {
					b = append(b, 'a'+byte(rng.IntN(26)))
				}
			}
			if !assert.Equal(t, cleanBytes(b), cleanUTF8(b), "%q", b) {
				return
			}
		}
	}
}

// TestForbiddenCharWords checks the word-at-a-time scan finds the same
// first forbidden character as a byte-by-byte one, wherever it falls in a
// word, with tabs, line ends and other bytes near it.
func TestForbiddenCharWords(t *testing.T) {
	alphabet := []byte{'a', ' ', '\t', '\n', '\r', 0x01, 0x1F, 0x20, 0x7F, 0x80, 0xA0, 0xE0, 0xEF, 0xBF, 0xBE, 0xFF}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, latin1 := range []bool{false, true} {
		for n := range 40 {
			for range 500 {
				s := make([]byte, n)
				for i := range s {
					s[i] = 'a'
					if rng.IntN(6) == 0 {
						s[i] = alphabet[rng.IntN(len(alphabet))]
					}
				}
				wantI, wantC := forbiddenIn(s, 0, len(s), latin1)
				gotI, gotC := forbiddenChar(s, latin1)
				if !assert.Equal(t, wantI, gotI, "%q latin1=%v", s, latin1) || !assert.Equal(t, wantC, gotC, "%q", s) {
					return
				}
			}
		}
	}
	tests := []struct {
		name string
		s    string
		i    int
		c    rune
	}{
		{"clean", "hello, world\n\tline two\r\n", -1, 0},
		{"control at word end", "abcdefg\x01", 7, 1},
		{"control in second word", "abcdefgh\nij\x1bk", 11, 0x1b},
		{"FFFE across words", "abcdefg\xef\xbf\xbe", 7, 0xFFFE},
		{"FFFF", "\xef\xbf\xbf", 0, 0xFFFF},
		{"FFFF at end cut short", "abcdefg\xef\xbf", -1, 0},
		{"other EF rune", "abcdefgh\xef\xbc\x81xyz", -1, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			i, c := forbiddenChar([]byte(tc.s), false)
			assert.Equal(t, tc.i, i)
			assert.Equal(t, tc.c, c)
		})
	}
}

// TestForbiddenCharNamed checks a raw U+FFFE or U+FFFF is named as such in
// the error (it was once named U+FFBE).
func TestForbiddenCharNamed(t *testing.T) {
	for doc, want := range map[string]string{
		"<a>x\xef\xbf\xbe</a>": "U+FFFE",
		"<a>x\xef\xbf\xbf</a>": "U+FFFF",
	} {
		t.Run(want, func(t *testing.T) {
			_, err := events(t, strings.NewReader(doc), Limits{})
			require.ErrorIs(t, err, ErrChar)
			assert.Contains(t, err.Error(), want)
		})
	}
}

// BenchmarkForbiddenChar scans indented XML with a line end every few
// words, as reports are written.
func BenchmarkForbiddenChar(b *testing.B) {
	line := "      <testcase classname=\"com.example.pkg1.Sub0\" name=\"test_grüße_3[case-2]\" time=\"0.012\"/>\n" +
		"\tat com.example.service.layer3.Handler.process(Handler.java:121)\r\n"
	s := []byte(strings.Repeat(line, 1<<16/len(line)))
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		if i, _ := forbiddenChar(s, false); i >= 0 {
			b.Fatal(i)
		}
	}
}

// TestValueRunWords checks the word-at-a-time scan of an attribute value
// stops where a byte-by-byte one does, wherever the stop falls in a word.
func TestValueRunWords(t *testing.T) {
	alphabet := []byte{'a', '"', '\'', '<', '&', '\r', '\n', 0x00, 0x01, 0x7F, 0x80, 0xA2, 0xFF}
	rng := rand.New(rand.NewPCG(3, 4))
	for _, q := range []byte{'"', '\''} {
		for n := range 40 {
			for range 500 {
				s := make([]byte, n)
				for i := range s {
					s[i] = 'a'
					if rng.IntN(8) == 0 {
						s[i] = alphabet[rng.IntN(len(alphabet))]
					}
				}
				want := 0
				for want < len(s) && s[want] != q && s[want] != '<' && s[want] != '&' && s[want] != '\r' {
					want++
				}
				if !assert.Equal(t, want, valueRun(s, q), "%q quoted by %c", s, q) {
					return
				}
			}
		}
	}
}

// TestDecodeUTF8 checks the run-at-a-time decoding of UTF-8 text and
// values gives what the character-at-a-time one does, for every bound.
func TestDecodeUTF8(t *testing.T) {
	pieces := []string{"a", "bc", "é", "日本", "😀", "\r", "\r\n", "\n", "&amp;", "&lt;", "&#233;", "&#x1F600;", "&quot;", " "}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 2000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		raw := []byte(b.String())
		for _, cdata := range []bool{false, true} {
			for max := -1; max <= len(raw)+4; max++ {
				bound := max
				if bound < 0 {
					bound = int(^uint(0) >> 1)
				}
				want := decodeEach([]byte("x"), raw, cdata, false, bound)
				got := decodeUTF8([]byte("x"), raw, cdata, bound)
				if !assert.Equal(t, string(want), string(got), "%q cdata=%v max=%d", raw, cdata, max) {
					return
				}
			}
		}
	}
}

// FuzzDecodeBounded: for whatever text and values a document holds, the
// run-at-a-time decoding and the word-at-a-time scans give what the
// byte-at-a-time ones do, decoding under every bound.
func FuzzDecodeBounded(f *testing.F) {
	f.Add("plain", "a&amp;b&#233;\r\nc")
	f.Add("日本語&lt;テスト&gt;", "x\ry&#x1F600;z")
	f.Fuzz(func(t *testing.T, value, text string) {
		for _, latin1 := range []bool{false, true} {
			i, c := forbiddenChar([]byte(text), latin1)
			j, d := forbiddenIn([]byte(text), 0, len(text), latin1)
			require.Equal(t, j, i, "%q latin1=%v", text, latin1)
			require.Equal(t, d, c, "%q latin1=%v", text, latin1)
		}
		doc := "<a v=\"" + value + "\">" + text + "<![CDATA[" + text + "]]></a>"
		rd := NewReader(strings.NewReader(doc), "f.xml", Limits{})
		for {
			tok, err := rd.Next()
			if err != nil {
				return
			}
			var raws [][]byte
			var cdata []bool
			switch tok.Kind {
			case StartElement:
				for i := range tok.Attrs {
					raw := tok.raw(&tok.Attrs[i])
					raws, cdata = append(raws, raw), append(cdata, false)
					for _, q := range []byte{'"', '\''} {
						want := 0
						for want < len(raw) && raw[want] != q && raw[want] != '<' && raw[want] != '&' && raw[want] != '\r' {
							want++
						}
						require.Equal(t, want, valueRun(raw, q))
					}
				}
			case Text:
				raws, cdata = append(raws, tok.text), append(cdata, tok.cdata)
			}
			for i, raw := range raws {
				for _, max := range []int{0, 1, 2, 3, 5, 8, len(raw) / 2, len(raw), len(raw) + 4} {
					want := decodeEach(nil, raw, cdata[i], false, max)
					got := decodeUTF8(nil, raw, cdata[i], max)
					require.Equal(t, string(want), string(got), "%q cdata=%v max=%d", raw, cdata[i], max)
				}
			}
		}
	})
}
