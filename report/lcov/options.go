package lcov

import "github.com/hangar-dev/testresults/report/internal/parseopt"

type config = parseopt.Config

// Option configures Parse.
type Option = parseopt.Option

// WithLimits sets the limits of the report (default: every default limit of
// package report; a zero field keeps its default).
func WithLimits(l Limits) Option { return parseopt.WithLimits(l) }

// WithWorkDir names the check's working directory (absolute): an SF path
// under it is kept relative to it; any other stays as written. Default:
// none.
func WithWorkDir(dir string) Option { return parseopt.WithWorkDir(dir) }

func newConfig(opts []Option) config { return parseopt.New(opts) }
