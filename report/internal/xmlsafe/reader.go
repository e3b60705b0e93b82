package xmlsafe

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Kind is the kind of a Token.
type Kind uint8

// Token kinds. Comments, processing instructions, the XML declaration and
// the DOCTYPE are consumed by the Reader and never returned.
const (
	StartElement Kind = iota + 1
	EndElement
	Text
)

// Attr is one attribute of a start tag. Name and the raw value point into the
// Reader's buffer and are valid until the next call to Next; use
// Reader.Value or Reader.AppendValue for the decoded value.
type Attr struct {
	Name  []byte
	raw   []byte
	plain bool // raw is the decoded value (no reference, no CR)
}

// Token is one piece of a document. It is valid until the next call to Next.
type Token struct {
	Kind Kind
	// Name is the element name as written (prefix included) for
	// StartElement and EndElement.
	Name []byte
	// Attrs are the attributes of a StartElement.
	Attrs []Attr
	// SelfClosing is true for a StartElement written as <name/>; its
	// EndElement follows.
	SelfClosing bool

	text  []byte // raw text of a Text token
	cdata bool   // text is CDATA: no references to decode
}

type state uint8

const (
	stProlog state = iota
	stContent
	stEpilog
)

const (
	initialBuf   = 64 << 10
	maxDeclBytes = 4 << 10
	maxRefBytes  = 16 // &#x0010FFFF; fits
)

// Reader is a strict, streaming XML tokenizer over untrusted input. It is
// not safe for concurrent use.
type Reader struct {
	src  io.Reader
	file string
	lim  Limits

	buf       []byte
	r, w      int
	validated int   // buf[:validated] has been checked (encoding, NUL)
	consumed  int64 // bytes discarded before buf[0]
	lines     int   // newlines discarded before buf[0]
	eof       bool
	err       error // sticky

	started    bool
	encKnown   bool
	latin1     bool
	sawMarkup  bool
	sawDoctype bool
	st         state
	inCDATA    bool
	pending    bool // a self-closing element's EndElement is due

	elements int64
	names    []byte // open element names, concatenated
	ends     []int  // end offset in names of each open element

	tok     Token
	attrs   []Attr
	scratch []byte
}

// NewReader returns a Reader of src. file names the document in errors.
func NewReader(src io.Reader, file string, lim Limits) *Reader {
	return &Reader{src: src, file: file, lim: lim.WithDefaults()}
}

// Depth is the number of open elements: 1 after the root's StartElement.
func (r *Reader) Depth() int { return len(r.ends) }

// Elements is the number of elements read so far.
func (r *Reader) Elements() int64 { return r.elements }

// Line is the 1-based line of the reader's position.
func (r *Reader) Line() int { return r.lineAt(r.r) }

func (r *Reader) lineAt(p int) int {
	if p > r.w {
		p = r.w
	}
	return r.lines + bytes.Count(r.buf[:p], nl) + 1
}

var (
	nl          = []byte{'\n'}
	commentEnd  = []byte("-->")
	piEnd       = []byte("?>")
	cdataEnd    = []byte("]]>")
	cdataStart  = []byte("<![CDATA[")
	doctypeWord = []byte("<!DOCTYPE")
	entityWord  = []byte("<!ENTITY")
	commentOpen = []byte("<!--")
)

// syntax records and returns a SyntaxError at buffer position p.
func (r *Reader) syntax(p int, err error) error {
	r.err = &SyntaxError{File: r.file, Line: r.lineAt(p), Err: err}
	return r.err
}

// syntaxf formats a syntax error; names and text from the file in args are
// quoted with QuoteName, so an error never carries megabytes of the file.
func (r *Reader) syntaxf(p int, format string, args ...any) error {
	for i, a := range args {
		switch v := a.(type) {
		case []byte:
			args[i] = QuoteName(v)
		case string:
			args[i] = QuoteName([]byte(v))
		}
	}
	return r.syntax(p, fmt.Errorf(format, args...))
}

// QuoteName returns a name (or any text) from a file for an error message:
// at most MaxNameInError bytes, cut on a rune boundary and marked with "…",
// invalid UTF-8 replaced.
func QuoteName(b []byte) string {
	if len(b) > MaxNameInError {
		cut := MaxNameInError
		for cut > 0 && !utf8.RuneStart(b[cut]) {
			cut--
		}
		return strings.ToValidUTF8(string(b[:cut]), "\uFFFD") + "…"
	}
	return strings.ToValidUTF8(string(b), "\uFFFD")
}

func (r *Reader) fail(err error) error {
	r.err = err
	return err
}

// errShort means the token at r.r is not whole in the buffer yet.
var errShort = errors.New("short")

// fill reads more input, moving the unread part to the front of the buffer
// and growing it when a token does not fit.
func (r *Reader) fill() error {
	if r.eof {
		return nil
	}
	if r.r > 0 {
		r.lines += bytes.Count(r.buf[:r.r], nl)
		r.consumed += int64(r.r)
		n := copy(r.buf, r.buf[r.r:r.w])
		// Before the encoding is known nothing is validated yet.
		r.validated = max(0, r.validated-r.r)
		r.w = n
		r.r = 0
	}
	if r.buf == nil {
		r.buf = make([]byte, initialBuf)
	} else if r.w == len(r.buf) {
		nb := make([]byte, 2*len(r.buf))
		copy(nb, r.buf[:r.w])
		r.buf = nb
	}
	for {
		n, err := r.src.Read(r.buf[r.w:])
		r.w += n
		if r.consumed+int64(r.w) > r.lim.MaxBytes {
			return r.fail(&LimitError{Limit: "bytes", Max: r.lim.MaxBytes})
		}
		if err == io.EOF {
			r.eof = true
			break
		}
		if err != nil {
			return r.fail(fmt.Errorf("report: read %s: %w", r.file, err))
		}
		if n > 0 {
			break
		}
	}
	return r.validate()
}

// ensure fills until n bytes are buffered at r.r or the input ends.
func (r *Reader) ensure(n int) error {
	for r.w-r.r < n && !r.eof {
		if err := r.fill(); err != nil {
			return err
		}
	}
	return nil
}

// validate checks newly read bytes: no NUL, and valid UTF-8 unless the
// document is ISO-8859-1. A rune cut by the end of the buffer waits for the
// next read.
func (r *Reader) validate() error {
	if !r.encKnown {
		return nil
	}
	s := r.buf[r.validated:r.w]
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return r.syntax(r.validated+i, Reason(ErrBinary, "NUL byte: binary content, not a text report"))
	}
	if r.latin1 {
		if i, c := forbiddenChar(s, true); i >= 0 {
			return r.syntax(r.validated+i, Reason(ErrChar, "character U+%04X is not allowed in XML", c))
		}
		r.validated = r.w
		return nil
	}
	end := len(s)
	if !r.eof {
		end = CompleteRunes(s)
	}
	if !utf8.Valid(s[:end]) {
		p := r.validated
		for i := 0; i < end; {
			c, size := utf8.DecodeRune(s[i:end])
			if c == utf8.RuneError && size <= 1 {
				p += i
				break
			}
			i += size
		}
		return r.syntax(p, Reason(ErrBinary, "invalid UTF-8: binary content or a wrong encoding declaration"))
	}
	if i, c := forbiddenChar(s[:end], false); i >= 0 {
		return r.syntax(r.validated+i, Reason(ErrChar, "character U+%04X is not allowed in XML", c))
	}
	r.validated += end
	return nil
}

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

// Next returns the next token, or io.EOF after the root element has been
// closed and the rest of the input read. Any other error is final.
func (r *Reader) Next() (*Token, error) {
	if r.err != nil {
		return nil, r.err
	}
	if !r.started {
		if err := r.start(); err != nil {
			return nil, err
		}
	}
	if r.pending {
		r.pending = false
		return r.pop(), nil
	}
	for {
		if r.inCDATA {
			t, err := r.cdata()
			if t != nil || err != nil {
				return t, err
			}
			continue
		}
		if r.r >= r.w {
			if !r.eof {
				if err := r.fill(); err != nil {
					return nil, err
				}
				continue
			}
			return nil, r.atEOF()
		}
		if r.buf[r.r] != '<' {
			if r.st == stContent {
				t, err := r.text()
				if t != nil || err != nil {
					return t, err
				}
				continue
			}
			if err := r.misc(); err != nil {
				return nil, err
			}
			continue
		}
		if err := r.ensure(2); err != nil {
			return nil, err
		}
		if r.w-r.r < 2 {
			return nil, r.syntax(r.r, Reason(ErrTruncated, "document ends inside a tag"))
		}
		switch r.buf[r.r+1] {
		case '/':
			t, err := r.endTag()
			if err == errShort {
				if err := r.more(); err != nil {
					return nil, err
				}
				continue
			}
			return t, err
		case '?':
			if err := r.pi(); err != nil {
				return nil, err
			}
		case '!':
			if err := r.bang(); err != nil {
				return nil, err
			}
			if r.inCDATA {
				continue
			}
		default:
			t, err := r.startTag()
			if err == errShort {
				if err := r.more(); err != nil {
					return nil, err
				}
				continue
			}
			return t, err
		}
	}
}

// more fills after a token was found cut by the end of the buffer.
func (r *Reader) more() error {
	if r.eof {
		return r.syntax(r.r, Reason(ErrTruncated, "document ends inside a tag"))
	}
	return r.fill()
}

func (r *Reader) atEOF() error {
	switch r.st {
	case stEpilog:
		r.err = io.EOF
		return io.EOF
	case stContent:
		return r.syntax(r.w, Reason(ErrTruncated, "document ends with %d element(s) not closed (<%s> is open)", len(r.ends), r.top()))
	}
	if !r.sawMarkup {
		return r.fail(ErrEmpty)
	}
	return r.syntax(r.w, Reason(ErrTruncated, "document has no root element"))
}

func (r *Reader) top() []byte {
	n := len(r.ends)
	if n == 0 {
		return nil
	}
	start := 0
	if n > 1 {
		start = r.ends[n-2]
	}
	return r.names[start:r.ends[n-1]]
}

// misc skips white space outside the root element; anything else there
// (but markup) is an error.
func (r *Reader) misc() error {
	for r.r < r.w {
		c := r.buf[r.r]
		if c == '<' {
			return nil
		}
		if !isSpace(c) {
			if !r.sawMarkup && r.st == stProlog {
				return r.syntax(r.r, Reason(ErrNotXML, "content does not start with '<': not an XML document"))
			}
			if r.st == stEpilog {
				return r.syntaxf(r.r, "text after the root element")
			}
			return r.syntaxf(r.r, "text before the root element")
		}
		r.r++
	}
	return nil
}

// text returns the next chunk of character data in content.
func (r *Reader) text() (*Token, error) {
	for {
		s := r.buf[r.r:r.w]
		end := bytes.IndexByte(s, '<')
		if end < 0 {
			if r.eof {
				end = len(s)
			} else {
				end = min(len(s), r.validated-r.r)
				end = safeTextEnd(s[:end])
				if end == 0 {
					if err := r.fill(); err != nil {
						return nil, err
					}
					continue
				}
			}
		}
		chunk := s[:end]
		for i := 0; i < len(chunk); {
			j := bytes.IndexByte(chunk[i:], '&')
			if j < 0 {
				break
			}
			i += j
			n, err := checkRef(chunk[i:], true)
			if err != nil {
				return nil, r.syntax(r.r+i, err)
			}
			i += n
		}
		r.r += end
		r.tok = Token{Kind: Text, text: chunk}
		return &r.tok, nil
	}
}

// safeTextEnd cuts a reference or a CR that the end of the buffer may have
// split.
func safeTextEnd(s []byte) int {
	n := len(s)
	tail := max(0, n-maxRefBytes)
	if k := bytes.LastIndexByte(s[tail:], '&'); k >= 0 {
		k += tail
		if bytes.IndexByte(s[k:], ';') < 0 {
			n = k
		}
	}
	if n > 0 && s[n-1] == '\r' {
		n--
	}
	return n
}

// cdata returns the next chunk of a CDATA section (nil at its end).
func (r *Reader) cdata() (*Token, error) {
	for {
		s := r.buf[r.r:r.w]
		if i := bytes.Index(s, cdataEnd); i >= 0 {
			r.inCDATA = false
			r.r += i + 3
			if i == 0 {
				return nil, nil
			}
			r.tok = Token{Kind: Text, text: s[:i], cdata: true}
			return &r.tok, nil
		}
		if r.eof {
			return nil, r.syntax(r.w, Reason(ErrTruncated, "document ends inside a CDATA section"))
		}
		end := min(len(s)-2, r.validated-r.r)
		if end > 0 && s[end-1] == '\r' {
			end--
		}
		if end > 0 {
			r.r += end
			r.tok = Token{Kind: Text, text: s[:end], cdata: true}
			return &r.tok, nil
		}
		if err := r.fill(); err != nil {
			return nil, err
		}
	}
}

// skipUntil skips past the next occurrence of end, discarding what it
// passes so that the buffer does not grow.
func (r *Reader) skipUntil(end []byte, what string) error {
	for {
		if i := bytes.Index(r.buf[r.r:r.w], end); i >= 0 {
			r.r += i + len(end)
			return nil
		}
		if r.eof {
			return r.syntax(r.w, Reason(ErrTruncated, "document ends inside %s", what))
		}
		if keep := r.w - len(end) + 1; keep > r.r {
			r.r = min(keep, r.validated)
		}
		if err := r.fill(); err != nil {
			return err
		}
	}
}

// pi skips a processing instruction.
func (r *Reader) pi() error {
	p := r.r + 2
	for {
		if err := r.ensure(p - r.r + 4); err != nil {
			return err
		}
		q := p
		for q < r.w && isNameByte(r.buf[q]) {
			q++
		}
		if q == r.w && !r.eof {
			if err := r.fill(); err != nil {
				return err
			}
			p = r.r + 2
			continue
		}
		target := r.buf[p:q]
		if len(target) == 0 || !isNameStart(target[0]) {
			return r.syntaxf(r.r, "malformed processing instruction")
		}
		if len(target) == 3 && asciiLower(string(target)) == "xml" {
			return r.syntaxf(r.r, "XML declaration not at the start of the document")
		}
		break
	}
	r.sawMarkup = true
	r.r += 2
	return r.skipUntil(piEnd, "a processing instruction")
}

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
			for p < len(s) && !attrSpecial[s[p]] {
				p++
			}
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
			return nil, r.fail(&LimitError{Limit: "attributes", Max: MaxAttributes})
		}
		attrs = append(attrs, Attr{Name: aname, raw: s[vs:p], plain: plain})
		p++
	}
	if r.st == stEpilog {
		return nil, r.syntaxf(r.r, "a second root element <%s> after the first one", name)
	}
	r.elements++
	if r.elements > r.lim.MaxElements {
		return nil, r.fail(&LimitError{Limit: "elements", Max: r.lim.MaxElements})
	}
	if int64(len(r.ends)) >= r.lim.MaxDepth {
		return nil, r.fail(&LimitError{Limit: "depth", Max: r.lim.MaxDepth})
	}
	r.names = append(r.names, name...)
	r.ends = append(r.ends, len(r.names))
	r.st = stContent
	r.sawMarkup = true
	r.r += p
	r.attrs = attrs
	r.tok = Token{Kind: StartElement, Name: name, Attrs: attrs, SelfClosing: self}
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
	r.tok = Token{Kind: EndElement, Name: name}
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
