package xmlsafe

import "bytes"

// Character data, CDATA sections, processing instructions and what is
// skipped between tokens.

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
		if r.skipSpace && onlySpace(chunk) {
			return nil, nil
		}
		r.tok.Kind, r.tok.text, r.tok.cdata = Text, chunk, false
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
			r.tok.Kind, r.tok.text, r.tok.cdata = Text, s[:i], true
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
			r.tok.Kind, r.tok.text, r.tok.cdata = Text, s[:end], true
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

// onlySpace reports whether s holds only white space.
func onlySpace(s []byte) bool {
	for _, c := range s {
		if !isSpace(c) {
			return false
		}
	}
	return true
}
