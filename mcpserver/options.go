package mcpserver

// Option configures New.
type Option interface {
	apply(config) config
}

type config struct {
	adminToken string
	reportsDir string
	environ    []string
	version    string
}

type optionFunc func(config) config

func (f optionFunc) apply(c config) config { return f(c) }

// WithAdminToken sets the admin bearer token of the query API. Without
// one (or with ""), flaky_list is refused, as the API refuses the flaky
// list to everyone when it has no token.
func WithAdminToken(token string) Option {
	return optionFunc(func(c config) config {
		c.adminToken = token
		return c
	})
}

// WithReportsDir allows parse_reports to read the reports under dir, and
// nothing else. Without it (or with ""), parse_reports is refused.
func WithReportsDir(dir string) Option {
	return optionFunc(func(c config) config {
		c.reportsDir = dir
		return c
	})
}

// WithEnviron gives the environment (KEY=value strings) whose secret-looking
// values parse_reports redacts from messages, as testresults parse does
// with its own environment (nil: none beyond the redactor's patterns).
func WithEnviron(environ []string) Option {
	return optionFunc(func(c config) config {
		c.environ = environ
		return c
	})
}

// WithVersion sets the version the server states when a client connects
// (default "dev").
func WithVersion(v string) Option {
	return optionFunc(func(c config) config {
		c.version = v
		return c
	})
}
