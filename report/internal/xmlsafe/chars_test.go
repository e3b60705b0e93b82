package xmlsafe

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
