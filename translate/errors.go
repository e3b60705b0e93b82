package translate

import "errors"

var (
	// ErrInvalid is returned (wrapped) for input that cannot be exported as
	// it is: a run without id, an unknown kind, status or outcome, an export
	// without runs, a session without id or with a turn given twice.
	ErrInvalid = errors.New("translate: invalid input")

	// ErrDropped is returned (wrapped) when the SDK's span limits dropped an
	// event or an attribute that translate added: events are never lost
	// silently. Raise the limits with SpanLimits.
	ErrDropped = errors.New("translate: span limits dropped events or attributes")

	// ErrNotRecording is returned when events are added to a span that
	// records nothing (sampled out or not an SDK span).
	ErrNotRecording = errors.New("translate: span is not recording")

	// ErrIDs is returned by Record when the tracer did not give a span the
	// derived ids, because its provider does not use IDGenerator.
	ErrIDs = errors.New("translate: tracer provider does not use translate.IDGenerator")
)
