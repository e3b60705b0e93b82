package xmlsafe

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Start and end tags and their attributes.

// startTag parses <name attr="v" ...> or <name .../> at r.r.
//
// It is the reader's hottest code: positions are kept as ints and a slice
// is taken only for what is returned, and the usual shape of an attribute
// (one space, name="value") costs no more than a few tests.
//
// It is kept in one piece: reading each attribute in a function of its own
// (the split its complexity asks for) costs about 5% of the CPU time of
// BenchmarkNext.
//
//nolint:gocyclo // the hot loop of the tokenizer: a split costs speed (see above)
func (r *Reader) startTag() (*Token, error) {
	s := r.buf[r.r:r.w]
	p := 1
	if !isNameStart(s[p]) {
		return nil, r.syntaxf(r.r, "malformed start tag")
	}
	for p < len(s) && isNameByte(s[p]) {
		p++
	}
	if p == len(s) {
		return nil, errShort
	}
	nameEnd := p
	attrs := r.attrs[:0]
	self := false
	var seen uint64 // attribute names seen, hashed to a bit each
	for {
		ws := p
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p == len(s) {
			return nil, errShort
		}
		c := s[p]
		if c == '>' {
			p++
			break
		}
		if c == '/' {
			if p+1 == len(s) {
				return nil, errShort
			}
			if s[p+1] != '>' {
				return nil, r.syntaxf(r.r+p, "malformed start tag <%s>", s[1:nameEnd])
			}
			p += 2
			self = true
			break
		}
		if ws == p || !isNameStart(c) {
			return nil, r.syntaxf(r.r+p, "malformed attribute in <%s>", s[1:nameEnd])
		}
		an := p
		p++
		for p < len(s) && isNameByte(s[p]) {
			p++
		}
		ae := p
		if p < len(s) && s[p] != '=' {
			for p < len(s) && isSpace(s[p]) {
				p++
			}
		}
		if p == len(s) {
			return nil, errShort
		}
		if s[p] != '=' {
			return nil, r.syntaxf(r.r+p, "attribute %s in <%s> has no value", s[an:ae], s[1:nameEnd])
		}
		p++
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p == len(s) {
			return nil, errShort
		}
		q := s[p]
		if q != '"' && q != '\'' {
			return nil, r.syntaxf(r.r+p, "unquoted value of attribute %s in <%s>", s[an:ae], s[1:nameEnd])
		}
		p++
		vs := p
		plain := !r.latin1
		for {
			p += valueRun(s[p:], q)
			if p >= len(s) {
				return nil, errShort
			}
			c := s[p]
			if c == q {
				break
			}
			switch c {
			case '<':
				return nil, r.syntaxf(r.r+p, "'<' in the value of attribute %s", s[an:ae])
			case '&':
				n, err := checkRef(s[p:], r.eof)
				if err == errShort {
					return nil, errShort
				}
				if err != nil {
					return nil, r.syntax(r.r+p, err)
				}
				plain = false
				p += n
				continue
			case '\r':
				plain = false
			}
			p++
		}
		name := span{uint32(an), uint32(ae)}
		// A repeated name is looked for only when an earlier one has the
		// same first byte and length, as far as a 64-bit mask tells.
		if bit := uint64(1) << ((uint(s[an]) ^ uint(ae-an)<<2) & 63); seen&bit == 0 {
			seen |= bit
		} else {
			for i := range attrs {
				if n := attrs[i].name; n.end-n.start == name.end-name.start && bytes.Equal(s[n.start:n.end], s[an:ae]) {
					return nil, r.syntaxf(r.r+an, "attribute %s repeated in <%s>", s[an:ae], s[1:nameEnd])
				}
			}
		}
		if len(attrs) >= MaxAttributes {
			return nil, r.fail(&LimitError{Limit: LimitAttributes, Max: MaxAttributes})
		}
		attrs = append(attrs, Attr{name: name, raw: span{uint32(vs), uint32(p)}, plain: plain})
		p++
	}
	name := s[1:nameEnd]
	if r.st == stEpilog {
		return nil, r.syntaxf(r.r, "a second root element <%s> after the first one", name)
	}
	r.elements++
	if r.elements > r.lim.MaxElements {
		return nil, r.fail(&LimitError{Limit: LimitElements, Max: r.lim.MaxElements})
	}
	if int64(len(r.ends)) >= r.lim.MaxDepth {
		return nil, r.fail(&LimitError{Limit: LimitDepth, Max: r.lim.MaxDepth})
	}
	if !self {
		// A self-closing element's name is not stacked: its EndElement
		// comes next (see Next) and reuses the token's Name.
		r.names = append(r.names, name...)
		r.ends = append(r.ends, len(r.names))
	}
	r.st = stContent
	r.sawMarkup = true
	r.r += p
	r.attrs = attrs
	// Only the fields of the kind are set (see Token): a document is
	// hundreds of thousands of tokens.
	r.tok.Kind, r.tok.Name, r.tok.Attrs, r.tok.SelfClosing, r.tok.tag = StartElement, name, attrs, self, s[:p]
	r.pending = self
	return &r.tok, nil
}

// endTag parses </name> at r.r.
func (r *Reader) endTag() (*Token, error) {
	s := r.buf[r.r:r.w]
	p := 2
	for p < len(s) && isNameByte(s[p]) {
		p++
	}
	name := s[2:p]
	for p < len(s) && isSpace(s[p]) {
		p++
	}
	if p == len(s) {
		return nil, errShort
	}
	if s[p] != '>' || len(name) == 0 {
		return nil, r.syntaxf(r.r, "malformed end tag")
	}
	if r.st != stContent {
		return nil, r.syntaxf(r.r, "end tag </%s> outside the root element", name)
	}
	if !bytes.Equal(name, r.top()) {
		return nil, r.syntaxf(r.r, "end tag </%s> does not match <%s>", name, r.top())
	}
	r.r += p + 1
	return r.pop(), nil
}

// popSelf returns the EndElement of the self-closing element whose
// StartElement Next returned last: its name is still the token's.
func (r *Reader) popSelf() *Token {
	r.pending = false
	if len(r.ends) == 0 {
		r.st = stEpilog
	}
	r.tok.Kind = EndElement
	return &r.tok
}

// pop closes the innermost element and returns its EndElement.
func (r *Reader) pop() *Token {
	name := r.top()
	r.ends = r.ends[:len(r.ends)-1]
	r.names = r.names[:len(r.names)-len(name)]
	if len(r.ends) == 0 {
		r.st = stEpilog
	}
	r.tok.Kind, r.tok.Name = EndElement, name
	return &r.tok
}

// Attr returns the attribute of t named name.
func (t *Token) Attr(name string) (*Attr, bool) {
	for i := range t.Attrs {
		if string(t.AttrName(&t.Attrs[i])) == name {
			return &t.Attrs[i], true
		}
	}
	return nil, false
}

// AttrName returns the name of a, an attribute of t, as written (prefix
// included).
func (t *Token) AttrName(a *Attr) []byte {
	return t.tag[a.name.start:a.name.end]
}

// raw returns the value of a, an attribute of t, as written.
func (t *Token) raw(a *Attr) []byte {
	return t.tag[a.raw.start:a.raw.end]
}

// valueRun returns the length of the run at the start of s that an
// attribute value quoted by q holds as it is: up to the closing quote, a
// '<', a reference or a CR, or the end of s. It reads eight bytes at a
// time: in a word, the lowest byte flagged by the zero-byte test is a true
// match (a false one can only follow a true one).
func valueRun(s []byte, q byte) int {
	qs := uint64(q) * ones
	n := len(s)
	for len(s) >= 8 {
		x := binary.LittleEndian.Uint64(s)
		// The zero-byte test of each of the four, masked once.
		a, b, c, d := x^qs, x^('<'*ones), x^('&'*ones), x^('\r'*ones)
		if m := ((a-ones)&^a | (b-ones)&^b | (c-ones)&^c | (d-ones)&^d) & highs; m != 0 {
			return n - len(s) + bits.TrailingZeros64(m)/8
		}
		s = s[8:]
	}
	for i, c := range s {
		if c == q || c == '<' || c == '&' || c == '\r' {
			return n - len(s) + i
		}
	}
	return n
}
