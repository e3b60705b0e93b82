package xmlsafe

import "bytes"

// Markup declarations: comments, CDATA openings and the DOCTYPE.

// maxDoctypeBytes bounds a DOCTYPE declaration, its internal subset
// included. xcresultparser's, the largest a report producer is known to
// write, is under 3 KiB.
const maxDoctypeBytes = 64 << 10

var (
	elementWord  = []byte("<!ELEMENT")
	attlistWord  = []byte("<!ATTLIST")
	condWord     = []byte("<![")
	piStart      = []byte("<?")
	systemWord   = []byte("SYSTEM")
	publicWord   = []byte("PUBLIC")
	longestDecl  = len(elementWord) + 1 // a declaration word and the space after it
	contentBytes = [256]bool{'(': true, ')': true, '|': true, ',': true, '?': true, '*': true, '+': true, '#': true}
)

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

// doctype reads <!DOCTYPE name [SYSTEM "uri" | PUBLIC "id" "uri"] [subset]>,
// at most maxDoctypeBytes of it. Nothing in it is applied: no DTD is
// fetched, and the internal subset is checked, then passed over (see
// scanSubset).
func (r *Reader) doctype() error {
	for {
		s := r.buf[r.r:r.w]
		if len(s) > maxDoctypeBytes {
			s = s[:maxDoctypeBytes]
		}
		n, err := r.scanDoctype(s)
		if err == errShort {
			have := r.w - r.r
			switch {
			case have >= maxDoctypeBytes:
				return r.syntax(r.r, Reason(ErrDTD, "DOCTYPE longer than %d KiB refused", maxDoctypeBytes>>10))
			case r.eof:
				return r.syntax(r.r, Reason(ErrTruncated, "document ends inside the DOCTYPE"))
			}
			// The scan starts again from the DOCTYPE's start: with at least
			// twice as much buffered each time, a DOCTYPE that arrives in
			// small reads is scanned a few times, not once per read.
			if err := r.ensure(min(2*have, maxDoctypeBytes)); err != nil {
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

// scanDoctype checks the DOCTYPE at the start of s and returns its length,
// or errShort when s ends before it does.
func (r *Reader) scanDoctype(s []byte) (int, error) {
	d := doctypeScan{r: r, s: s, p: len(doctypeWord)}
	if err := d.space(); err != nil {
		return 0, err
	}
	q := d.p
	for d.p < len(s) && isNameByte(s[d.p]) {
		d.p++
	}
	if d.p >= len(s) {
		return 0, errShort
	}
	if d.p == q || !isNameStart(s[q]) {
		return 0, d.malformed(q)
	}
	if d.spaces() {
		if err := d.externalID(); err != nil {
			return 0, err
		}
	}
	if d.p >= len(s) {
		return 0, errShort
	}
	if s[d.p] == '[' {
		n, err := r.scanSubset(s, d.p+1)
		if err != nil {
			return 0, err
		}
		d.p = n
		d.spaces()
		if d.p >= len(s) {
			return 0, errShort
		}
	}
	if s[d.p] != '>' {
		return 0, d.malformed(d.p)
	}
	return d.p + 1, nil
}

// doctypeScan is where scanDoctype is in the DOCTYPE at the start of s: at
// p.
type doctypeScan struct {
	r *Reader
	s []byte
	p int
}

// malformed is the error of a DOCTYPE malformed at at; a parameter entity
// reference there is ErrEntity.
func (d *doctypeScan) malformed(at int) error {
	if at < len(d.s) && d.s[at] == '%' {
		return d.r.syntax(d.r.r+at, Reason(ErrEntity, "parameter entity reference in the DOCTYPE refused"))
	}
	return d.r.syntaxf(d.r.r+at, "malformed DOCTYPE")
}

// spaces skips white space from p; it tells whether there was any.
func (d *doctypeScan) spaces() bool {
	q := d.p
	for d.p < len(d.s) && isSpace(d.s[d.p]) {
		d.p++
	}
	return d.p > q
}

// space skips the white space that must come at p.
func (d *doctypeScan) space() error {
	if d.spaces() {
		return nil
	}
	if d.p >= len(d.s) {
		return errShort
	}
	return d.malformed(d.p)
}

// literal reads a quoted string at p.
func (d *doctypeScan) literal() error {
	if d.p >= len(d.s) {
		return errShort
	}
	if c := d.s[d.p]; c != '"' && c != '\'' {
		return d.malformed(d.p)
	}
	q := bytes.IndexByte(d.s[d.p+1:], d.s[d.p])
	if q < 0 {
		return errShort
	}
	d.p += q + 2
	return nil
}

// externalID reads SYSTEM "uri" or PUBLIC "id" "uri" at p, when one is
// there, and the white space after it.
func (d *doctypeScan) externalID() error {
	rest := d.s[d.p:]
	if len(rest) < len(systemWord) && (bytes.HasPrefix(systemWord, rest) || bytes.HasPrefix(publicWord, rest)) {
		return errShort
	}
	system, public := bytes.HasPrefix(rest, systemWord), bytes.HasPrefix(rest, publicWord)
	if !system && !public {
		return nil
	}
	d.p += len(systemWord)
	n := 1
	if public {
		n = 2 // the public id and the system literal
	}
	for range n {
		if err := d.space(); err != nil {
			return err
		}
		if err := d.literal(); err != nil {
			return err
		}
	}
	d.spaces()
	return nil
}

// scanSubset checks an internal DTD subset from p to just past its ']'.
// It may hold element and attribute-list declarations, comments and
// processing instructions, between white space: they are checked and passed
// over, never applied (an attribute default declared here is not added to
// any element). An entity declaration or a parameter entity reference is
// ErrEntity; anything else (a notation, a conditional section, other
// content) is ErrDTD. An entity declaration is looked for before a
// declaration the subset may not hold is refused, since it is what makes a
// subset hostile.
func (r *Reader) scanSubset(s []byte, p int) (int, error) {
	refused := -1 // the first declaration this reader does not allow
	for p < len(s) {
		c := s[p]
		switch {
		case isSpace(c):
			p++
			continue
		case c == ']':
			if refused >= 0 {
				return 0, r.syntax(r.r+refused, Reason(ErrDTD, "declaration in the internal DTD subset refused (only <!ELEMENT> and <!ATTLIST> are allowed)"))
			}
			return p + 1, nil
		case c == '%':
			return 0, r.syntax(r.r+p, Reason(ErrEntity, "parameter entity reference in the DTD subset refused"))
		case c != '<':
			return 0, r.syntax(r.r+p, Reason(ErrDTD, "content in the internal DTD subset refused"))
		}
		rest := s[p:]
		var n int
		var err error
		switch {
		case bytes.HasPrefix(rest, commentOpen):
			q := bytes.Index(rest[len(commentOpen):], commentEnd)
			if q < 0 {
				return 0, errShort
			}
			n = len(commentOpen) + q + len(commentEnd)
		case bytes.HasPrefix(rest, piStart):
			n, err = r.scanSubsetPI(s, p)
		case bytes.HasPrefix(rest, entityWord):
			return 0, r.syntax(r.r+p, Reason(ErrEntity, "entity declaration (<!ENTITY) refused"))
		case bytes.HasPrefix(rest, condWord):
			q := p + len(condWord)
			for q < len(s) && isSpace(s[q]) {
				q++
			}
			if q == len(s) {
				return 0, errShort
			}
			if s[q] == '%' {
				return 0, r.syntax(r.r+q, Reason(ErrEntity, "parameter entity reference in the DTD subset refused"))
			}
			return 0, r.syntax(r.r+p, Reason(ErrDTD, "conditional section in the internal DTD subset refused"))
		case len(rest) < longestDecl:
			return 0, errShort
		case bytes.HasPrefix(rest, elementWord) && isSpace(rest[len(elementWord)]):
			n, err = r.scanDecl(s, p, p+len(elementWord), false)
		case bytes.HasPrefix(rest, attlistWord) && isSpace(rest[len(attlistWord)]):
			n, err = r.scanDecl(s, p, p+len(attlistWord), true)
		case bytes.HasPrefix(rest, []byte("<!")):
			// <!NOTATION and other declarations: refused once the rest of
			// the subset has been checked for entities.
			if refused < 0 {
				refused = p
			}
			n, err = skipDecl(s, p)
		default:
			return 0, r.syntax(r.r+p, Reason(ErrDTD, "content in the internal DTD subset refused"))
		}
		if err != nil {
			return 0, err
		}
		p += n
	}
	return 0, errShort
}

// scanDecl checks the element declaration (attlist false) or attribute-list
// declaration at s[start:], whose body starts at p, and returns its length.
// Its body holds names, white space, content-model punctuation and, in an
// attribute list, quoted default values; a '%' outside quotes is a
// parameter entity reference.
func (r *Reader) scanDecl(s []byte, start, p int, attlist bool) (int, error) {
	for p < len(s) {
		c := s[p]
		switch {
		case c == '>':
			return p + 1 - start, nil
		case c == '%':
			return 0, r.syntax(r.r+p, Reason(ErrEntity, "parameter entity reference in the DTD subset refused"))
		case isSpace(c) || isNameByte(c) || contentBytes[c]:
			p++
		case attlist && (c == '"' || c == '\''):
			q := bytes.IndexByte(s[p+1:], c)
			if q < 0 {
				return 0, errShort
			}
			if err := r.checkDefault(s, p+1, p+1+q); err != nil {
				return 0, err
			}
			p += q + 2
		default:
			return 0, r.syntaxf(r.r+p, "malformed declaration in the DTD subset")
		}
	}
	return 0, errShort
}

// checkDefault checks the attribute default value s[from:to] as an
// attribute value is checked: no '<', and no reference but to a character
// or one of the five predefined entities. It is never applied.
func (r *Reader) checkDefault(s []byte, from, to int) error {
	v := s[from:to]
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '<':
			return r.syntaxf(r.r+from+i, "'<' in an attribute default in the DTD subset")
		case '&':
			n, err := checkRef(v[i:], true)
			if err != nil {
				return r.syntax(r.r+from+i, err)
			}
			i += n - 1
		}
	}
	return nil
}

// skipDecl returns the length of the declaration at s[p:], quoted strings
// passed over.
func skipDecl(s []byte, p int) (int, error) {
	for q := p + 2; q < len(s); q++ {
		switch s[q] {
		case '>':
			return q + 1 - p, nil
		case '"', '\'':
			e := bytes.IndexByte(s[q+1:], s[q])
			if e < 0 {
				return 0, errShort
			}
			q += e + 1
		}
	}
	return 0, errShort
}

// scanSubsetPI checks the processing instruction at s[p:] and returns its
// length.
func (r *Reader) scanSubsetPI(s []byte, p int) (int, error) {
	q := p + len(piStart)
	for q < len(s) && isNameByte(s[q]) {
		q++
	}
	if q == len(s) {
		return 0, errShort
	}
	target := s[p+len(piStart) : q]
	if len(target) == 0 || !isNameStart(target[0]) {
		return 0, r.syntaxf(r.r+p, "malformed processing instruction")
	}
	if len(target) == 3 && asciiLower(string(target)) == "xml" {
		return 0, r.syntaxf(r.r+p, "XML declaration not at the start of the document")
	}
	e := bytes.Index(s[q:], piEnd)
	if e < 0 {
		return 0, errShort
	}
	return q + e + len(piEnd) - p, nil
}
