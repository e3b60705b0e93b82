package attest

// config holds what the options of NewStatement set.
type config struct {
	url     string
	baseDir string
}

// Option configures NewStatement.
type Option interface{ apply(*config) }

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// WithURL sets the predicate's url: the CI run that ran the check (see
// CIRunURL). Default: none, and the url is left out.
func WithURL(url string) Option { return optionFunc(func(c *config) { c.url = url }) }

// WithReportsRelativeTo names each report in the configuration by its path
// relative to dir (slash-separated), the folder the attestation is written
// to, so that a verifier finds the reports beside it. A report path the run
// recorded relative is taken relative to the current directory first.
// Default: "", the paths as the run recorded them.
func WithReportsRelativeTo(dir string) Option {
	return optionFunc(func(c *config) { c.baseDir = dir })
}
