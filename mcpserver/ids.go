package mcpserver

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/serve"
)

// ErrBadID is wrapped by the error of an identifier the server refuses.
var ErrBadID = errors.New("mcpserver: bad identifier")

// badIDError is an identifier refused; Reason is the query API's own words
// for it ("job id holds a path separator").
type badIDError struct {
	Reason string
}

func (e *badIDError) Error() string { return ErrBadID.Error() + ": " + e.Reason }
func (e *badIDError) Unwrap() error { return ErrBadID }

// checkID refuses an identifier that the query API refuses, for the reason
// it gives: empty, longer than serve.MaxIDLength bytes, not UTF-8, holding
// a control character or a path separator, or a path element ("." or
// ".."). name is how the reason calls it ("job id", "run id").
//
// It is the API's rule (serve's checkID), repeated here because serve does
// not export it; TestIDsRefusedAsTheAPIRefusesThem holds the two equal.
func checkID(name, v string) error {
	reason := ""
	switch {
	case v == "":
		reason = name + " is empty"
	case len(v) > serve.MaxIDLength:
		reason = fmt.Sprintf("%s is longer than %d bytes", name, serve.MaxIDLength)
	case !utf8.ValidString(v):
		reason = name + " is not UTF-8"
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }):
		reason = name + " holds a control character"
	case strings.ContainsAny(v, `/\`):
		reason = name + " holds a path separator"
	case v == "." || v == "..":
		reason = name + " is a path element"
	default:
		return nil
	}
	return &badIDError{Reason: reason}
}
