package xmlsafe

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math/bits"
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

// Attr is one attribute of a start tag, valid until the next call to Next:
// Token.AttrName gives its name, Reader.Value or Reader.AppendValue its
// decoded value. It holds the places of both in the tag, not slices: a
// start tag appends one Attr per attribute, and a struct without pointers
// is appended without the garbage collector's write barriers.
type Attr struct {
	name, raw span
	plain     bool // raw is the decoded value (no reference, no CR)
}

// span is where bytes are in a start tag: tag[start:end].
type span struct{ start, end uint32 }

// Token is one piece of a document. It is valid until the next call to Next.
// Only the fields of its Kind are set; the others hold what an earlier
// token left.
type Token struct {
	Kind Kind
	// Name is the element name as written (prefix included) of a
	// StartElement or an EndElement.
	Name []byte
	// Attrs are the attributes of a StartElement.
	Attrs []Attr
	// tag is the start tag, which Attrs point into.
	tag []byte
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
	err       error     // sticky
	pre       *Precheck // bytes already found clean elsewhere, or nil

	started    bool
	encKnown   bool
	latin1     bool
	sawMarkup  bool
	sawDoctype bool
	st         state
	inCDATA    bool
	pending    bool // a self-closing element's EndElement is due; it is not in names
	skipSpace  bool // Text tokens of white space only are not returned

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

// SetPrecheck makes the Reader skip its checks of the bytes p has found
// clean. p must be given the same bytes as the Reader's source, from its
// start, in order (see Precheck).
func (r *Reader) SetPrecheck(p *Precheck) { r.pre = p }

// SkipSpace sets whether Next passes over a Text token that holds only
// white space (space, tab, CR, LF, as written: a reference to one is not
// passed over) rather than return it: the indentation
// of a document is most of its Text tokens, and a caller that is not
// gathering text has no use for them. A text may come in several tokens;
// any of them that holds only white space is passed over. CDATA sections
// are returned whatever they hold.
func (r *Reader) SkipSpace(skip bool) { r.skipSpace = skip }

// Depth is the number of open elements: 1 after the root's StartElement.
func (r *Reader) Depth() int {
	if r.pending {
		return len(r.ends) + 1 // a self-closing element, not stacked
	}
	return len(r.ends)
}

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
		if err := r.lim.CheckBytes(r.consumed + int64(r.w)); err != nil {
			return r.fail(err)
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
	if r.pre != nil {
		switch clean := r.pre.Clean() - r.consumed; {
		case clean >= int64(r.w):
			// Every check below would pass: keep only its bookkeeping.
			if r.latin1 || r.eof {
				r.validated = r.w
			} else {
				r.validated += CompleteRunes(s)
			}
			return nil
		case clean > int64(r.validated):
			// The bytes the Precheck has found clean end on a rune
			// boundary: the checks go on from there. The Precheck runs
			// beside the parser, and often has not reached the end of
			// what was just read.
			r.validated = int(clean)
			s = r.buf[r.validated:r.w]
		}
	}
	if r.latin1 {
		if i := bytes.IndexByte(s, 0); i >= 0 {
			return r.syntax(r.validated+i, Reason(ErrBinary, "NUL byte: binary content, not a text report"))
		}
		if i, c := forbiddenChar(s, true); i >= 0 {
			return r.syntax(r.validated+i, Reason(ErrChar, "character U+%04X is not allowed in XML", c))
		}
		r.validated = r.w
		return nil
	}
	end := len(s)
	if !r.eof {
		end = CompleteRunes(s) // the bytes after end begin a rune: none is NUL
	}
	if !cleanUTF8(s[:end]) {
		return r.utf8Fault(s[:end])
	}
	r.validated += end
	if r.pre != nil {
		r.pre.readerChecked(r.consumed + int64(r.validated))
	}
	return nil
}

// utf8Fault names the first fault in s, at r.validated, which cleanUTF8
// has refused: a NUL byte anywhere first, then invalid UTF-8, then a
// character XML forbids.
func (r *Reader) utf8Fault(s []byte) error {
	if i := bytes.IndexByte(s, 0); i >= 0 {
		return r.syntax(r.validated+i, Reason(ErrBinary, "NUL byte: binary content, not a text report"))
	}
	for i := 0; i < len(s); {
		c, size := utf8.DecodeRune(s[i:])
		if c == utf8.RuneError && size <= 1 {
			return r.syntax(r.validated+i, Reason(ErrBinary, "invalid UTF-8: binary content or a wrong encoding declaration"))
		}
		i += size
	}
	i, c := forbiddenChar(s, false)
	return r.syntax(r.validated+i, Reason(ErrChar, "character U+%04X is not allowed in XML", c))
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
		return r.popSelf(), nil
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
		if c := r.buf[r.r]; c != '<' {
			if r.st != stContent {
				if err := r.misc(); err != nil {
					return nil, err
				}
				continue
			}
			if r.skipSpace && isSpace(c) && r.skipIndent() {
				continue
			}
			t, err := r.text()
			if t != nil || err != nil {
				return t, err
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
		case '?':
			if err := r.pi(); err != nil {
				return nil, err
			}
			continue
		case '!':
			if err := r.bang(); err != nil {
				return nil, err
			}
			continue
		}
		var t *Token
		var err error
		if r.buf[r.r+1] == '/' {
			t, err = r.endTag()
		} else {
			t, err = r.startTag()
		}
		if err == errShort {
			// The tag is cut by the end of the buffer: read it again.
			if err := r.more(); err != nil {
				return nil, err
			}
			continue
		}
		return t, err
	}
}

// skipIndent passes over the white space at r.r, which is in content, when
// a tag follows it in the buffer: indentation between tags, the text a
// document holds most of, is skipped without making a token of it. It
// tells whether it did.
func (r *Reader) skipIndent() bool {
	j := r.r + 1
	// Indentation is mostly spaces: eight at a time.
	for ; j+8 <= r.w; j += 8 {
		if x := binary.LittleEndian.Uint64(r.buf[j:]) ^ ' '*ones; x != 0 {
			j += bits.TrailingZeros64(x) / 8
			break
		}
	}
	for j < r.w && isSpace(r.buf[j]) {
		j++
	}
	if j < r.w && r.buf[j] == '<' {
		r.r = j
		return true
	}
	return false
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
