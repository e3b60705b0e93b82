package junit

import (
	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// Limits bound what one report may hold; a zero field means its default
// (see the Default constants of package report). It is the same type as
// report.Limits.
type Limits = xmlsafe.Limits

type config = parseopt.Config

// Option configures Parse.
type Option = parseopt.Option

// WithLimits sets the limits of the report (default: every default limit).
func WithLimits(l Limits) Option { return parseopt.WithLimits(l) }

// WithMaxMessage sets how many bytes of a failure message are kept (default
// 8 KiB; 0 or less keeps the default). The rest is never held in memory.
func WithMaxMessage(n int) Option { return parseopt.WithMaxMessage(n) }

func newConfig(opts []Option) config { return parseopt.New(opts) }
