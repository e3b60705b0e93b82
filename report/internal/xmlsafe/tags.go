package xmlsafe

import (
	"bytes"
	"encoding/binary"
	"math/bits"
)

// Start and end tags and their attributes.

// startTag parses <name attr="v" ...> or <name .../> at r.r.
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
	name := s[1:p]
	attrs := r.attrs[:0]
	self := false
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
				return nil, r.syntaxf(r.r+p, "malformed start tag <%s>", name)
			}
			p += 2
			self = true
			break
		}
		if ws == p || !isNameStart(c) {
			return nil, r.syntaxf(r.r+p, "malformed attribute in <%s>", name)
		}
		an := p
		for p < len(s) && isNameByte(s[p]) {
			p++
		}
		aname := s[an:p]
		for p < len(s) && isSpace(s[p]) {
			p++
		}
		if p == len(s) {
			return nil, errShort
		}
		if s[p] != '=' {
			return nil, r.syntaxf(r.r+p, "attribute %s in <%s> has no value", aname, name)
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
			return nil, r.syntaxf(r.r+p, "unquoted value of attribute %s in <%s>", aname, name)
		}
		p++
		vs := p
		plain := !r.latin1
		for {
			p += valueRun(s[p:], q)
			if p == len(s) {
				return nil, errShort
			}
			c := s[p]
			if c == q {
				break
			}
			switch c {
			case '<':
				return nil, r.syntaxf(r.r+p, "'<' in the value of attribute %s", aname)
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
		for i := range attrs {
			if bytes.Equal(attrs[i].Name, aname) {
				return nil, r.syntaxf(r.r+an, "attribute %s repeated in <%s>", aname, name)
			}
		}
		if len(attrs) >= MaxAttributes {
			return nil, r.fail(&LimitError{Limit: LimitAttributes, Max: MaxAttributes})
		}
		attrs = append(attrs, Attr{Name: aname, raw: s[vs:p], plain: plain})
		p++
	}
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
	r.names = append(r.names, name...)
	r.ends = append(r.ends, len(r.names))
	r.st = stContent
	r.sawMarkup = true
	r.r += p
	r.attrs = attrs
	// Only the fields of the kind are set (see Token): a document is
	// hundreds of thousands of tokens.
	r.tok.Kind, r.tok.Name, r.tok.Attrs, r.tok.SelfClosing = StartElement, name, attrs, self
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
		if string(t.Attrs[i].Name) == name {
			return &t.Attrs[i], true
		}
	}
	return nil, false
}

// valueRun returns the length of the run at the start of s that an
// attribute value quoted by q holds as it is: up to the closing quote, a
// '<', a reference or a CR, or the end of s. It reads eight bytes at a
// time: in a word, the lowest byte flagged by the zero-byte test is a true
// match (a false one can only follow a true one).
func valueRun(s []byte, q byte) int {
	qs := uint64(q) * ones
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64(s[i:])
		if m := zeroByte(x^qs) | zeroByte(x^'<'*ones) | zeroByte(x^'&'*ones) | zeroByte(x^'\r'*ones); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == q || c == '<' || c == '&' || c == '\r' {
			break
		}
	}
	return i
}

// zeroByte sets the high bit of the lowest zero byte of x, and perhaps of
// bytes above it.
func zeroByte(x uint64) uint64 { return (x - ones) &^ x & highs }
