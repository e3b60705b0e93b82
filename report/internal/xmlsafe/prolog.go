package xmlsafe

import "bytes"

// The prolog: byte order mark, XML declaration and its encoding.

// start reads the byte order mark and the XML declaration.
func (r *Reader) start() error {
	r.started = true
	if err := r.ensure(4); err != nil {
		return err
	}
	s := r.buf[r.r:r.w]
	bom := false
	switch {
	case len(s) == 0:
		return r.fail(ErrEmpty)
	case bytes.HasPrefix(s, []byte{0xEF, 0xBB, 0xBF}):
		r.r += 3
		bom = true
	case bytes.HasPrefix(s, []byte{0xFE, 0xFF}), bytes.HasPrefix(s, []byte{0xFF, 0xFE}):
		return r.syntax(r.r, Reason(ErrEncoding, "UTF-16 documents are not supported"))
	case bytes.HasPrefix(s, []byte{0, 0, 0xFE, 0xFF}), bytes.HasPrefix(s, []byte{0xFF, 0xFE, 0, 0}):
		return r.syntax(r.r, Reason(ErrEncoding, "UTF-32 documents are not supported"))
	}
	if err := r.ensure(6); err != nil {
		return err
	}
	if bytes.HasPrefix(r.buf[r.r:r.w], []byte("<?xml")) && r.w-r.r > 5 && isSpace(r.buf[r.r+5]) {
		if err := r.decl(bom); err != nil {
			return err
		}
	}
	r.encKnown = true
	return r.validate()
}

// decl parses the XML declaration at r.r.
func (r *Reader) decl(bom bool) error {
	var end int
	for {
		end = bytes.Index(r.buf[r.r:r.w], piEnd)
		if end >= 0 {
			break
		}
		if r.eof || r.w-r.r > maxDeclBytes {
			return r.syntax(r.r, Reason(ErrTruncated, "unterminated XML declaration"))
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
	body := r.buf[r.r+5 : r.r+end]
	p := r.r
	r.r += end + 2
	r.sawMarkup = true
	enc := ""
	version := ""
	for len(body) > 0 {
		body = bytes.TrimLeft(body, " \t\r\n")
		if len(body) == 0 {
			break
		}
		eq := bytes.IndexByte(body, '=')
		if eq <= 0 {
			return r.syntaxf(p, "malformed XML declaration")
		}
		name := string(bytes.TrimSpace(body[:eq]))
		rest := bytes.TrimLeft(body[eq+1:], " \t\r\n")
		if len(rest) == 0 || (rest[0] != '"' && rest[0] != '\'') {
			return r.syntaxf(p, "malformed XML declaration")
		}
		q := bytes.IndexByte(rest[1:], rest[0])
		if q < 0 {
			return r.syntaxf(p, "malformed XML declaration")
		}
		val := string(rest[1 : 1+q])
		body = rest[q+2:]
		switch name {
		case "version":
			version = val
		case "encoding":
			enc = val
		case "standalone":
		default:
			return r.syntaxf(p, "unknown XML declaration attribute %q", name)
		}
	}
	if version != "1.0" && version != "1.1" {
		return r.syntaxf(p, "unsupported XML version %q", version)
	}
	switch asciiLower(enc) {
	case "", "utf-8", "utf8", "us-ascii", "ascii":
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "iso-latin-1":
		if bom {
			return r.syntax(p, Reason(ErrEncoding, "UTF-8 byte order mark but encoding %q declared", enc))
		}
		r.latin1 = true
	default:
		return r.syntax(p, Reason(ErrEncoding, "unsupported encoding %q (only UTF-8, US-ASCII and ISO-8859-1 are read)", enc))
	}
	return nil
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
