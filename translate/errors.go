package translate

import "errors"

// ErrInvalid is returned (wrapped) for input that cannot be exported as it
// is: a run without id, an unknown kind, status or outcome, an export
// without runs, a session without id or with a turn given twice.
var ErrInvalid = errors.New("translate: invalid input")
