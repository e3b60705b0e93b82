package gotestjson

import (
	"errors"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// SyntaxError is a stream that is refused at one of its lines: a line
// that is not one JSON event (ErrMalformed), content that is not UTF-8
// text (report.ErrBinary), a stream cut short (report.ErrTruncated), a
// line over MaxLineBytes (a *report.LimitError). It is the same type as
// report.SyntaxError.
type SyntaxError = xmlsafe.SyntaxError

// LimitError is a stream over a limit; errors.Is(err, report.ErrLimit). It
// is the same type as report.LimitError.
type LimitError = xmlsafe.LimitError

// LimitLineLength is the limit a LimitError names for a line longer than
// MaxLineBytes.
const LimitLineLength xmlsafe.Limit = "line length"

// ErrMalformed is wrapped by the SyntaxError of a line that is not one
// go test -json event: not a JSON object, trailing data, a key given twice,
// a known field of the wrong type, no Action.
var ErrMalformed = errors.New("gotestjson: malformed event")
