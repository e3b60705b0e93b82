package xmlsafe

import (
	"errors"
	"fmt"
)

// Sentinel errors. Test with errors.Is: the errors returned wrap them.
var (
	// ErrLimit is matched by every *LimitError.
	ErrLimit = errors.New("report: limit exceeded")
	// ErrEntity is returned for an entity declaration (<!ENTITY, in a DTD
	// subset or anywhere else), a parameter entity reference or a reference
	// to an entity other than the five predefined ones.
	ErrEntity = errors.New("report: entity declarations and references are refused")
	// ErrDTD is returned for an internal DTD subset that holds anything but
	// element and attribute-list declarations, comments and processing
	// instructions (a notation, a conditional section, other content), or
	// for a DOCTYPE over 64 KiB. A DOCTYPE that names an external DTD, and
	// an internal subset of element and attribute-list declarations, are
	// allowed and ignored: no DTD is ever fetched, and no attribute default
	// is applied.
	ErrDTD = errors.New("report: internal DTD declarations are refused")
	// ErrEncoding is returned for a document that is neither UTF-8, US-ASCII
	// nor ISO-8859-1.
	ErrEncoding = errors.New("report: unsupported character encoding")
	// ErrEmpty is returned for an empty file (or one holding only white space).
	ErrEmpty = errors.New("report: empty file")
	// ErrBinary is returned for content that is not text: a NUL byte, or
	// bytes that are not valid UTF-8 in a UTF-8 document.
	ErrBinary = errors.New("report: binary content")
	// ErrChar is returned for a character XML 1.0 does not allow, written
	// raw or as a character reference: a C0 control other than tab, LF and
	// CR (ESC, BEL, ...), a surrogate, U+FFFE or U+FFFF.
	ErrChar = errors.New("report: character not allowed in XML")
	// ErrTruncated is returned for a document that ends before its root
	// element is closed (or before it has one).
	ErrTruncated = errors.New("report: truncated document")
	// ErrNotXML is returned for a file that does not start like an XML
	// document.
	ErrNotXML = errors.New("report: not an XML document")
)

// LimitError reports that an input went over one of the limits. It matches
// ErrLimit with errors.Is.
type LimitError struct {
	// Limit names the limit (LimitBytes, LimitElements, ...).
	Limit Limit
	// Max is the limit's value.
	Max int64
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("report: %s limit of %d exceeded", e.Limit, e.Max)
}

// Is reports whether target is ErrLimit.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// SyntaxError is a document that is not well-formed, or that this reader
// refuses, at a line of a file.
type SyntaxError struct {
	File string // the name the parser was given ("" when none)
	Line int    // 1-based
	Err  error  // what is wrong; may wrap ErrEntity, ErrTruncated, ...
}

func (e *SyntaxError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("report: line %d: %v", e.Line, e.Err)
	}
	return fmt.Sprintf("report: %s:%d: %v", e.File, e.Line, e.Err)
}

// Unwrap returns e.Err.
func (e *SyntaxError) Unwrap() error { return e.Err }

// reason is a detailed message that still matches its sentinel.
type reason struct {
	sentinel error
	msg      string
}

func (r *reason) Error() string { return r.msg }
func (r *reason) Unwrap() error { return r.sentinel }

// Reason returns an error with message msg that matches sentinel with
// errors.Is (sentinel may be nil).
func Reason(sentinel error, format string, args ...any) error {
	return &reason{sentinel: sentinel, msg: fmt.Sprintf(format, args...)}
}
