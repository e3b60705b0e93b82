package xmlsafe

import (
	"bytes"
	"unicode/utf8"
)

// Decoding of attribute values and text: references and line ends.

// Value returns the decoded value of a, an attribute of the token Next
// returned last. It is valid until the next call to Value or Next.
func (r *Reader) Value(a *Attr) []byte {
	if a.plain {
		return r.tok.raw(a)
	}
	r.scratch = r.decode(r.scratch[:0], r.tok.raw(a), false, -1)
	return r.scratch
}

// String returns the decoded value of a, an attribute of the token Next
// returned last, as a string.
func (r *Reader) String(a *Attr) string {
	if a.plain {
		return string(r.tok.raw(a))
	}
	return string(r.Value(a))
}

// MaxValueLen returns the most bytes the decoded value of a, an attribute
// of the token Next returned last, may take: its length as written, twice
// that in an ISO-8859-1 document (a letter there takes two bytes in
// UTF-8).
func (r *Reader) MaxValueLen(a *Attr) int {
	n := int(a.raw.end - a.raw.start)
	if r.latin1 {
		n *= 2
	}
	return n
}

// AppendValue appends the decoded value of a, an attribute of the token
// Next returned last, to dst, stopping before dst
// would grow past max bytes (max < 0: no bound).
func (r *Reader) AppendValue(dst []byte, a *Attr, max int) []byte {
	return r.decode(dst, r.tok.raw(a), false, max)
}

// AppendText appends the decoded text of a Text token to dst, stopping
// before dst would grow past max bytes (max < 0: no bound). A rune is never
// cut.
func (r *Reader) AppendText(dst []byte, t *Token, max int) []byte {
	return r.decode(dst, t.text, t.cdata, max)
}

// decode appends raw (already checked) to dst: references resolved unless
// cdata, CR LF and lone CR read as LF, ISO-8859-1 converted to UTF-8.
func (r *Reader) decode(dst, raw []byte, cdata bool, max int) []byte {
	if max < 0 {
		max = int(^uint(0) >> 1)
	}
	if !r.latin1 {
		return decodeUTF8(dst, raw, cdata, max)
	}
	return decodeEach(dst, raw, cdata, true, max)
}

// decodeEach is decode one character at a time (latin1: raw is
// ISO-8859-1).
func decodeEach(dst, raw []byte, cdata, latin1 bool, max int) []byte {
	for i := 0; i < len(raw); {
		if len(dst) >= max {
			return dst
		}
		c := raw[i]
		switch {
		case c == '&' && !cdata:
			n, ref := decodeRef(raw[i:])
			if len(dst)+utf8.RuneLen(ref) > max {
				return dst
			}
			dst = utf8.AppendRune(dst, ref)
			i += n
		case c == '\r':
			dst = append(dst, '\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
		case c >= 0x80 && latin1:
			if len(dst)+2 > max {
				return dst
			}
			dst = utf8.AppendRune(dst, rune(c))
			i++
		case c >= 0x80:
			_, size := utf8.DecodeRune(raw[i:])
			if len(dst)+size > max {
				return dst
			}
			dst = append(dst, raw[i:i+size]...)
			i += size
		default:
			j := i + 1
			for j < len(raw) && j-i < max-len(dst) {
				b := raw[j]
				if b >= 0x80 || b == '\r' || (b == '&' && !cdata) {
					break
				}
				j++
			}
			dst = append(dst, raw[i:j]...)
			i = j
		}
	}
	return dst
}

// decodeUTF8 is decode for a UTF-8 document: the runs between CRs and
// references are copied whole, found with bytes.IndexByte; a run that
// would pass max is cut on a rune boundary.
func decodeUTF8(dst, raw []byte, cdata bool, max int) []byte {
	next := func(from int, c byte) int {
		if j := bytes.IndexByte(raw[from:], c); j >= 0 {
			return from + j
		}
		return len(raw)
	}
	cr, amp := next(0, '\r'), len(raw)
	if !cdata {
		amp = next(0, '&')
	}
	for i := 0; i < len(raw); {
		if cr < i {
			cr = next(i, '\r')
		}
		if amp < i {
			amp = next(i, '&')
		}
		if end := min(cr, amp); end > i {
			if room := max - len(dst); end-i > room {
				if room <= 0 {
					return dst
				}
				cut := i + room
				for cut > i && !utf8.RuneStart(raw[cut]) {
					cut--
				}
				return append(dst, raw[i:cut]...)
			}
			dst = append(dst, raw[i:end]...)
			i = end
			continue
		}
		if len(dst) >= max {
			return dst
		}
		if raw[i] == '\r' {
			dst = append(dst, '\n')
			i++
			if i < len(raw) && raw[i] == '\n' {
				i++
			}
			continue
		}
		n, ref := decodeRef(raw[i:])
		if len(dst)+utf8.RuneLen(ref) > max {
			return dst
		}
		dst = utf8.AppendRune(dst, ref)
		i += n
	}
	return dst
}
