package xmlsafe

import "bytes"

// Markup declarations: comments, CDATA openings and the DOCTYPE.

// bang handles <!-- -->, <![CDATA[, <!DOCTYPE and refuses <!ENTITY.
func (r *Reader) bang() error {
	if err := r.ensure(len(cdataStart)); err != nil {
		return err
	}
	s := r.buf[r.r:r.w]
	switch {
	case bytes.HasPrefix(s, commentOpen):
		r.sawMarkup = true
		r.r += len(commentOpen)
		return r.skipUntil(commentEnd, "a comment")
	case bytes.HasPrefix(s, cdataStart):
		if r.st != stContent {
			return r.syntaxf(r.r, "CDATA section outside the root element")
		}
		r.r += len(cdataStart)
		r.inCDATA = true
		return nil
	case bytes.HasPrefix(s, entityWord):
		return r.syntax(r.r, Reason(ErrEntity, "entity declaration (<!ENTITY) refused"))
	case bytes.HasPrefix(s, doctypeWord):
		if r.st != stProlog || r.sawDoctype {
			return r.syntaxf(r.r, "DOCTYPE not allowed here")
		}
		return r.doctype()
	}
	if len(s) < len(cdataStart) && !r.eof {
		return r.syntax(r.r, Reason(ErrTruncated, "document ends inside markup"))
	}
	return r.syntaxf(r.r, "unknown markup declaration")
}

// doctype reads <!DOCTYPE name [SYSTEM "uri" | PUBLIC "id" "uri"] [subset]>.
// An internal subset may hold only comments, processing instructions and
// white space: an entity declaration or a parameter entity reference is
// ErrEntity, any other declaration ErrDTD.
func (r *Reader) doctype() error {
	for {
		n, err := r.scanDoctype()
		if err == errShort {
			if r.eof {
				return r.syntax(r.r, Reason(ErrTruncated, "document ends inside the DOCTYPE"))
			}
			if err := r.fill(); err != nil {
				return err
			}
			continue
		}
		if err != nil {
			return err
		}
		r.sawDoctype = true
		r.sawMarkup = true
		r.r += n
		return nil
	}
}

func (r *Reader) scanDoctype() (int, error) {
	s := r.buf[r.r:r.w]
	p := len(doctypeWord)
	if p >= len(s) {
		return 0, errShort
	}
	if !isSpace(s[p]) {
		return 0, r.syntaxf(r.r, "malformed DOCTYPE")
	}
	for p < len(s) {
		c := s[p]
		switch {
		case c == '>':
			return p + 1, nil
		case c == '"' || c == '\'':
			q := bytes.IndexByte(s[p+1:], c)
			if q < 0 {
				return 0, errShort
			}
			p += q + 2
		case c == '%':
			return 0, r.syntax(r.r+p, Reason(ErrEntity, "parameter entity reference in the DOCTYPE refused"))
		case c == '[':
			n, err := r.scanSubset(s, p+1)
			if err != nil {
				return 0, err
			}
			p = n
		case c == '<':
			return 0, r.syntaxf(r.r+p, "malformed DOCTYPE")
		default:
			p++
		}
	}
	return 0, errShort
}

// scanSubset scans an internal DTD subset from p to just past its ']'. An
// entity declaration or parameter entity reference anywhere in it is
// ErrEntity (checked first: it is what makes a subset hostile); any other
// declaration is ErrDTD.
func (r *Reader) scanSubset(s []byte, p int) (int, error) {
	decl := -1
	for p < len(s) {
		c := s[p]
		switch {
		case isSpace(c):
			p++
		case c == ']':
			if decl >= 0 {
				return 0, r.syntax(r.r+decl, Reason(ErrDTD, "declaration in the internal DTD subset refused"))
			}
			return p + 1, nil
		case c == '%':
			return 0, r.syntax(r.r+p, Reason(ErrEntity, "parameter entity reference in the DTD subset refused"))
		case c == '<':
			rest := s[p:]
			switch {
			case bytes.HasPrefix(rest, entityWord):
				return 0, r.syntax(r.r+p, Reason(ErrEntity, "entity declaration (<!ENTITY) refused"))
			case bytes.HasPrefix(rest, commentOpen):
				q := bytes.Index(rest[4:], commentEnd)
				if q < 0 {
					return 0, errShort
				}
				p += 4 + q + 3
			case bytes.HasPrefix(rest, []byte("<?")):
				q := bytes.Index(rest[2:], piEnd)
				if q < 0 {
					return 0, errShort
				}
				p += 2 + q + 2
			case len(rest) < len(entityWord):
				return 0, errShort
			case bytes.HasPrefix(rest, []byte("<!")):
				// <!ELEMENT, <!ATTLIST, <!NOTATION: refused once the subset
				// has been checked for entities.
				if decl < 0 {
					decl = p
				}
				q := p + 2
				for q < len(s) && s[q] != '>' {
					if s[q] == '"' || s[q] == '\'' {
						e := bytes.IndexByte(s[q+1:], s[q])
						if e < 0 {
							return 0, errShort
						}
						q += e + 1
					}
					q++
				}
				if q == len(s) {
					return 0, errShort
				}
				p = q + 1
			default:
				return 0, r.syntax(r.r+p, Reason(ErrDTD, "content in the internal DTD subset refused"))
			}
		default:
			return 0, r.syntax(r.r+p, Reason(ErrDTD, "content in the internal DTD subset refused"))
		}
	}
	return 0, errShort
}
