package xmlsafe

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode/utf8"
)

var (
	nameStart [256]bool
	nameByte  [256]bool
	space     [256]bool // space, tab, CR, LF
)

func init() {
	for c := 0; c < 256; c++ {
		b := byte(c)
		start := 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || b == '_' || b == ':' || b >= 0x80
		nameStart[c] = start
		nameByte[c] = start || '0' <= b && b <= '9' || b == '-' || b == '.'
		space[c] = b == ' ' || b == '\t' || b == '\r' || b == '\n'
	}
}

func isSpace(c byte) bool { return space[c] }

// isNameStart and isNameByte accept the ASCII name characters of XML 1.0
// and any non-ASCII byte (names are compared as bytes, never interpreted).
func isNameStart(c byte) bool { return nameStart[c] }
func isNameByte(c byte) bool  { return nameByte[c] }

// checkRef checks the reference at the start of s (s[0] == '&') and returns
// its length. A reference to anything but the five predefined entities or
// a character is ErrEntity. errShort means s ends before the reference does
// and more input may follow (atEOF false).
func checkRef(s []byte, atEOF bool) (int, error) {
	end := -1
	for i := 1; i < len(s) && i <= maxRefBytes; i++ {
		if s[i] == ';' {
			end = i
			break
		}
		if !isNameByte(s[i]) && s[i] != '#' {
			break
		}
	}
	if end < 0 {
		if !atEOF && len(s) <= maxRefBytes {
			return 0, errShort
		}
		return 0, fmt.Errorf("'&' that does not start a reference (write &amp;)")
	}
	body := s[1:end]
	if len(body) == 0 {
		return 0, fmt.Errorf("empty reference &;")
	}
	if body[0] == '#' {
		v, ok := charRef(body[1:])
		if !ok {
			return 0, fmt.Errorf("invalid character reference &%s;", body)
		}
		if !IsChar(v) {
			return 0, Reason(ErrChar, "character reference &%s; (U+%04X) is not a character XML 1.0 allows", body, v)
		}
		return end + 1, nil
	}
	switch string(body) {
	case "lt", "gt", "amp", "apos", "quot":
		return end + 1, nil
	}
	if !isNameStart(body[0]) {
		return 0, fmt.Errorf("malformed reference &%s;", body)
	}
	return 0, Reason(ErrEntity, "reference to undefined entity &%s; refused", body)
}

// charRef parses the digits of &#...; (without '#').
func charRef(d []byte) (rune, bool) {
	if len(d) == 0 {
		return 0, false
	}
	base := rune(10)
	if d[0] == 'x' {
		base = 16
		d = d[1:]
		if len(d) == 0 {
			return 0, false
		}
	}
	var v rune
	for _, c := range d {
		var n rune
		switch {
		case '0' <= c && c <= '9':
			n = rune(c - '0')
		case base == 16 && 'a' <= c && c <= 'f':
			n = rune(c-'a') + 10
		case base == 16 && 'A' <= c && c <= 'F':
			n = rune(c-'A') + 10
		default:
			return 0, false
		}
		v = v*base + n
		if v > utf8.MaxRune {
			return 0, false
		}
	}
	return v, true
}

// IsChar reports whether c is a character of XML 1.0's Char production:
// tab, LF, CR, U+0020..U+D7FF, U+E000..U+FFFD and U+10000..U+10FFFF. Other
// C0 controls (ESC, BEL, NUL), surrogates, U+FFFE and U+FFFF are not.
func IsChar(c rune) bool {
	switch {
	case c == '\t' || c == '\n' || c == '\r':
		return true
	case c < 0x20:
		return false
	case c <= 0xD7FF:
		return true
	case c < 0xE000:
		return false
	case c <= 0xFFFD:
		return true
	}
	return c >= 0x10000 && c <= utf8.MaxRune
}

// badByte reports whether a byte of the document is a C0 control XML 1.0
// forbids (any byte below 0x20 but tab, LF and CR).
func badByte(c byte) bool { return c < 0x20 && c != '\t' && c != '\n' && c != '\r' }

// forbiddenChar returns the offset and value of the first character in s
// (valid UTF-8, or ISO-8859-1 when latin1) that XML 1.0 forbids, or -1. In
// UTF-8 these are the C0 controls and U+FFFE, U+FFFF (EF BF BE, EF BF BF);
// surrogates are not valid UTF-8 and are refused as such.
//
// It reads sixteen bytes at a time and looks at single bytes only in a
// round holding a forbidden control byte or, in UTF-8, an 0xEF. Tabs and
// line ends, in nearly every line, are told from the forbidden controls
// without leaving the round (see allowedControls).
func forbiddenChar(s []byte, latin1 bool) (int, rune) {
	i := 0
	for rest := s; len(rest) >= 16; rest = rest[16:] {
		x := binary.LittleEndian.Uint64(rest)
		z := binary.LittleEndian.Uint64(rest[8:])
		// A byte's high bit is set in m when the byte is below 0x20 (a
		// byte above one that is may be set too).
		m := ((x-0x20*ones)&^x | (z-0x20*ones)&^z) & highs
		if m != 0 && allowedControls(x) && allowedControls(z) {
			m = 0
		}
		// In UTF-8, a zero byte where x or z holds 0xEF; only words with
		// a byte of 0x80 or above may.
		if !latin1 && (x|z)&highs != 0 {
			y, w := x^0xEF*ones, z^0xEF*ones
			m |= ((y-ones)&^y | (w-ones)&^w) & highs
		}
		if m != 0 {
			if j, c := forbiddenIn(s, i, i+16, latin1); j >= 0 {
				return j, c
			}
		}
		i += 16
	}
	return forbiddenIn(s, i, len(s), latin1)
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
	lows  = 0x7F7F7F7F7F7F7F7F
)

// forbiddenIn is forbiddenChar over s[from:to], one byte at a time; an
// EF BF BE or EF BF BF starting there may end past to.
func forbiddenIn(s []byte, from, to int, latin1 bool) (int, rune) {
	for i := from; i < to; i++ {
		c := s[i]
		if badByte(c) {
			return i, rune(c)
		}
		if !latin1 && c == 0xEF && i+2 < len(s) && s[i+1] == 0xBF && (s[i+2] == 0xBE || s[i+2] == 0xBF) {
			return i, 0xFFC0 | rune(s[i+2]&0x3F) // EF BF BE is U+FFFE
		}
	}
	return -1, 0
}

// decodeRef decodes a reference already checked by checkRef.
func decodeRef(s []byte) (int, rune) {
	end := 1
	for s[end] != ';' {
		end++
	}
	body := s[1:end]
	if body[0] == '#' {
		v, _ := charRef(body[1:])
		return end + 1, v
	}
	switch string(body) {
	case "lt":
		return end + 1, '<'
	case "gt":
		return end + 1, '>'
	case "amp":
		return end + 1, '&'
	case "apos":
		return end + 1, '\''
	}
	return end + 1, '"'
}

// CompleteRunes returns the length of s without a trailing incomplete
// UTF-8 sequence.
func CompleteRunes(s []byte) int {
	n := len(s)
	for k := 1; k <= 3 && k <= n; k++ {
		c := s[n-k]
		if c < 0x80 {
			return n
		}
		if c >= 0xC0 {
			if utf8.FullRune(s[n-k:]) {
				return n
			}
			return n - k
		}
	}
	return n
}

// cleanUTF8 reports whether s is valid UTF-8 that holds no character XML
// 1.0 forbids: what utf8.Valid and forbiddenChar tell together, in one
// pass. It reads sixteen bytes at a time; the C0 controls are found as
// forbiddenChar finds them (a non-ASCII byte never looks like one), and
// only runes that are not ASCII are decoded one by one.
func cleanUTF8(s []byte) bool {
	for len(s) >= 16 {
		x := binary.LittleEndian.Uint64(s)
		z := binary.LittleEndian.Uint64(s[8:])
		if ((x-0x20*ones)&^x|(z-0x20*ones)&^z)&highs != 0 && (!allowedControls(x) || !allowedControls(z)) {
			return false
		}
		if (x|z)&highs == 0 {
			s = s[16:]
			continue
		}
		// Read the runes that start in these sixteen bytes (their ASCII
		// bytes are checked, and passed over by the high bits of the two
		// words); the next round starts after the last, wherever that is.
		hx, hz := x&highs, z&highs
		k := 0
		for k < 16 {
			if k < 8 {
				w := hx >> (8 * uint(k))
				if w == 0 {
					k = 8
					continue
				}
				k += bits.TrailingZeros64(w) >> 3
			} else {
				w := hz >> (8 * uint(k-8))
				if w == 0 {
					break
				}
				k += bits.TrailingZeros64(w) >> 3
			}
			c := s[k]
			// Two- and three-byte runes, nearly all a report's non-ASCII
			// text, are read here; the others by utf8.DecodeRune.
			if size := shortRune(s[k:], c); size > 0 {
				k += size
				continue
			}
			size, ok := nonASCIIRune(s[k:])
			if !ok {
				return false
			}
			k += size
		}
		s = s[max(k, 16):]
	}
	for len(s) > 0 {
		if s[0] < utf8.RuneSelf {
			if badByte(s[0]) {
				return false
			}
			s = s[1:]
			continue
		}
		size, ok := nonASCIIRune(s)
		if !ok {
			return false
		}
		s = s[size:]
	}
	return true
}

// shortRune returns the length of the two- or three-byte rune at the
// start of s, whose first byte is c, when it is valid UTF-8 and a
// character XML allows; 0 when it is not one (a longer rune, or one to be
// refused: nonASCIIRune then tells which).
func shortRune(s []byte, c byte) int {
	switch {
	case c >= 0xC2 && c < 0xE0:
		if len(s) >= 2 && s[1]&0xC0 == 0x80 {
			return 2
		}
	case c >= 0xE0 && c < 0xF0:
		if len(s) < 3 || s[1]&0xC0 != 0x80 || s[2]&0xC0 != 0x80 {
			return 0
		}
		switch c1 := s[1]; c {
		case 0xE0: // no overlong form
			if c1 < 0xA0 {
				return 0
			}
		case 0xED: // no surrogate
			if c1 >= 0xA0 {
				return 0
			}
		case 0xEF: // not U+FFFE or U+FFFF
			if c1 == 0xBF && s[2] >= 0xBE {
				return 0
			}
		}
		return 3
	}
	return 0
}

// nonASCIIRune reads the rune at the start of s, whose first byte is not
// ASCII, and reports its length and whether it is valid UTF-8 and a
// character XML allows (all are but U+FFFE and U+FFFF; surrogates are not
// valid UTF-8).
func nonASCIIRune(s []byte) (int, bool) {
	c, size := utf8.DecodeRune(s)
	return size, (c != utf8.RuneError || size > 1) && c != 0xFFFE && c != 0xFFFF
}

// allowedC0 has bit c set for each C0 control c XML allows.
const allowedC0 = 1<<'\t' | 1<<'\n' | 1<<'\r'

// allowedControls reports whether every byte of x below 0x20 is a tab, LF
// or CR. It looks at those bytes one by one: a word of text holds one or
// two (a line end, an indent), and that costs fewer steps than telling
// the three apart in all eight bytes at once.
func allowedControls(x uint64) bool {
	// The high bit of exactly the bytes below 0x20: (b & 0x7F) + 0x60
	// reaches 0x80 when b & 0x7F >= 0x20, and no sum carries from one
	// byte into the next.
	for below := ^((x & lows) + 0x60*ones) &^ x & highs; below != 0; below &= below - 1 {
		if c := byte(x >> (bits.TrailingZeros64(below) - 7)); allowedC0>>c&1 == 0 {
			return false
		}
	}
	return true
}
