package serve

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxIDLength is the longest job id, session ref, run id or repository
// the API accepts, in bytes.
const MaxIDLength = 256

var errBadID = errors.New("serve: bad identifier")

// checkID refuses an empty identifier, one longer than MaxIDLength, one
// that is not UTF-8 or holds a control character, and, unless slashes is
// true, one with a path separator.
func checkID(name, v string, slashes bool) error {
	switch {
	case v == "":
		return fmt.Errorf("%w: %s is empty", errBadID, name)
	case len(v) > MaxIDLength:
		return fmt.Errorf("%w: %s is longer than %d bytes", errBadID, name, MaxIDLength)
	case !utf8.ValidString(v):
		return fmt.Errorf("%w: %s is not UTF-8", errBadID, name)
	case strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || (r >= 0x7f && r < 0xa0) }):
		return fmt.Errorf("%w: %s holds a control character", errBadID, name)
	case !slashes && strings.ContainsAny(v, `/\`):
		return fmt.Errorf("%w: %s holds a path separator", errBadID, name)
	case !slashes && (v == "." || v == ".."):
		return fmt.Errorf("%w: %s is a path element", errBadID, name)
	}
	return nil
}
