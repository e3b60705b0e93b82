package xmlsafe

import "unicode/utf8"

// Decoding of attribute values and text: references and line ends.

// Value returns the decoded value of a. It is valid until the next call to
// Value or Next.
func (r *Reader) Value(a *Attr) []byte {
	if a.plain {
		return a.raw
	}
	r.scratch = r.decode(r.scratch[:0], a.raw, false, -1)
	return r.scratch
}

// String returns the decoded value of a as a string.
func (r *Reader) String(a *Attr) string {
	if a.plain {
		return string(a.raw)
	}
	return string(r.Value(a))
}

// AppendValue appends the decoded value of a to dst, stopping before dst
// would grow past max bytes (max < 0: no bound).
func (r *Reader) AppendValue(dst []byte, a *Attr, max int) []byte {
	return r.decode(dst, a.raw, false, max)
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
		case c >= 0x80 && r.latin1:
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
