package xmlsafe

import (
	"sync/atomic"
	"unicode/utf8"
)

// Precheck looks for what a Reader's byte checks refuse (a NUL, a control
// character XML forbids, U+FFFE, U+FFFF, invalid UTF-8) in a document's
// bytes ahead of the Reader, on another goroutine: the one that reads the
// document anyway, to hash it. A Reader given a Precheck (SetPrecheck)
// skips its own checks of bytes the Precheck has already found clean, and
// checks every other byte itself, as it does without one. What a document
// is refused for, and where, is therefore the same with or without a
// Precheck; only the work moves. The work is not done twice either way:
// when the Reader gets to bytes first (the goroutine feeding the Precheck
// is busy), it tells the Precheck how far it has checked them, and Write
// skips them.
//
// Write is called by one goroutine, Clean by any; the Reader tells the
// Precheck what it has checked from its own.
type Precheck struct {
	clean atomic.Int64 // bytes from the start known to pass every check
	// checked is how far from the start the Reader has checked bytes
	// itself (as UTF-8) before the Precheck got to them: Write skips
	// them instead of checking them again.
	checked atomic.Int64
	n       int64 // bytes written
	tail    [utf8.UTFMax]byte
	ntail   int  // a rune cut by the end of the last write
	dirty   bool // something not clean was written: clean stops there
}

// readerChecked records that the Reader has checked the first n bytes of
// the document itself, as UTF-8.
func (p *Precheck) readerChecked(n int64) {
	if n > p.checked.Load() {
		p.checked.Store(n)
	}
}

// Clean returns how many bytes from the document's start are known to
// pass every check of a Reader, in UTF-8 and in ISO-8859-1 alike: valid
// UTF-8 that ends on a rune boundary and holds no character XML forbids.
func (p *Precheck) Clean() int64 { return p.clean.Load() }

// Write checks the document's next bytes. Once it finds one a Reader would
// refuse (or that UTF-8 does not allow, such as an ISO-8859-1 letter), it
// checks no more: from there on the Reader checks every byte itself.
func (p *Precheck) Write(b []byte) {
	if p.dirty {
		return
	}
	start := p.n
	p.n += int64(len(b))
	if c := p.checked.Load(); c > start {
		// The Reader got here first and checked these bytes itself; it
		// stops on a rune boundary, so no rune cut by the last write is
		// left to finish.
		p.ntail = 0
		if c >= p.n {
			p.clean.Store(p.n)
			return
		}
		b = b[c-start:]
	}
	if p.ntail > 0 {
		// The rune the last write cut: its first bytes and the rest.
		var j [2 * utf8.UTFMax]byte
		k := copy(j[:], p.tail[:p.ntail])
		k += copy(j[k:], b[:min(len(b), utf8.UTFMax-p.ntail)])
		s := j[:k]
		if !utf8.FullRune(s) {
			p.ntail = copy(p.tail[:], s)
			return
		}
		c, size := utf8.DecodeRune(s)
		if c == utf8.RuneError && size <= 1 || !IsChar(c) {
			p.dirty = true
			return
		}
		b = b[size-p.ntail:]
		p.ntail = 0
	}
	end := CompleteRunes(b)
	if !cleanUTF8(b[:end]) {
		p.dirty = true
		return
	}
	p.ntail = copy(p.tail[:], b[end:])
	p.clean.Store(p.n - int64(p.ntail))
}
