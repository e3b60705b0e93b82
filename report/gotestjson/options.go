package gotestjson

import (
	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// Limits bound what one stream may hold; a zero field means its default
// (see the Default constants of package report). MaxBytes bounds the
// stream and MaxCases the executions it holds; the other fields are for
// XML and do not apply. It is the same type as report.Limits.
type Limits = xmlsafe.Limits

// Option configures Parse. It is the option type of the other report
// parsers, so package report passes the same options to every one.
type Option = parseopt.Option

// WithLimits sets the limits of the stream (default: every default limit).
func WithLimits(l Limits) Option { return parseopt.WithLimits(l) }

// WithMaxMessage sets how many bytes of a failure message are kept (default
// 8 KiB; 0 or less keeps the default). Past it a test's output is dropped
// as it is read, never held in memory.
func WithMaxMessage(n int) Option { return parseopt.WithMaxMessage(n) }
