package testresultsreceiver

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/gobwas/glob"
	"go.opentelemetry.io/collector/component"
	"go.opentelemetry.io/collector/config/confighttp"
	"go.opentelemetry.io/collector/config/configopaque"
	"go.opentelemetry.io/collector/config/configoptional"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Defaults of the configuration.
const (
	// DefaultPollInterval is how often the watched folders are listed.
	DefaultPollInterval = time.Second
	// DefaultHTTPEndpoint is where the upload server listens.
	DefaultHTTPEndpoint = "localhost:4320"
	// DefaultMaxUploadBytes bounds an upload's body: the per-run limit of
	// report bytes (report.DefaultMaxRunBytes) and 1 MiB for the multipart
	// framing around it.
	DefaultMaxUploadBytes = report.DefaultMaxRunBytes + 1<<20
	// DefaultSecretSubject is the subject an uploader holding the shared
	// secret is authenticated as (what the processor's auth_subjects name).
	DefaultSecretSubject = "shared-secret"
	// DefaultUploadReadTimeout bounds the time an upload's request, body
	// included, may take to arrive (read_timeout): a body that stalls does
	// not hold its connection, nor the collector's shutdown, for ever. It
	// lets the largest upload arrive at about 110 KiB/s.
	DefaultUploadReadTimeout = 5 * time.Minute
	// MinSecretLength is the shortest shared secret accepted.
	MinSecretLength = 16
)

// Config is the receiver's configuration. At least one of watch and http
// is given. The sender of every run (kind, grade, job, resource) comes from
// here, never from the files.
type Config struct {
	// Sender is what every run is sent as unless a rule says otherwise.
	Sender `mapstructure:",squash"`

	// Watch polls folders for reports.
	Watch configoptional.Optional[WatchConfig] `mapstructure:"watch"`
	// HTTP accepts uploads on POST /v1/runs.
	HTTP configoptional.Optional[HTTPConfig] `mapstructure:"http"`
	// Storage names the storage extension (file_storage) that keeps the
	// checkpoints; without it they are kept in memory, and a restart
	// delivers again every run still in the watched folders.
	Storage *component.ID `mapstructure:"storage"`
	// Rules give the sender of the runs whose folder matches their globs;
	// the first that matches wins, its empty fields taken from the sender
	// above (resource attributes are merged, the rule's winning).
	Rules []Rule `mapstructure:"rules"`
	// Events is where the test.run and test.case events go: span (the
	// default), log or both.
	Events string `mapstructure:"events"`
	// WorkDir is the folder coverage paths are made relative to, as parse
	// --work-dir (default: the collector's working directory).
	WorkDir string `mapstructure:"work_dir"`

	_ struct{}
}

// Sender is who a run is sent as: the configuration's say, never the
// files'.
type Sender struct {
	// Kind is the runs' kind (base, after_turn, rerun, attempt, setup,
	// acceptance, grader, gate); without one a run is never trusted.
	Kind string `mapstructure:"kind"`
	// Grade is a grader's grade (isolated or lower); only with kind grader.
	Grade string `mapstructure:"grade"`
	// Job is the job id the runs go on (hangar.job.id); "{folder}" in it
	// stands for the name of the run's folder. Without it the span ids
	// derive from the run ids, as export without --job does.
	Job string `mapstructure:"job"`
	// ResourceAttributes are the resource of the emitted spans (what the
	// processor's trusted_sources resource_attributes match).
	ResourceAttributes map[string]string `mapstructure:"resource_attributes"`
}

// Rule maps the folders that match its globs to a sender.
type Rule struct {
	// Match are globs matched against the run's folder (an absolute path,
	// "/" separated; "**" crosses folders, "*" does not).
	Match  []string `mapstructure:"match"`
	Sender `mapstructure:",squash"`
}

// WatchConfig says which files are read.
type WatchConfig struct {
	// Include are the globs of the files to read (absolute, "**" for any
	// depth). Required.
	Include []string `mapstructure:"include"`
	// Exclude are globs of files never read.
	Exclude []string `mapstructure:"exclude"`
	// PollInterval is how often the folders are listed (default 1s). A
	// file is read once its size and modification time stayed the same
	// over two polls (and an XML file's root element is closed).
	PollInterval time.Duration `mapstructure:"poll_interval"`

	_ struct{}
}

// HTTPConfig is the upload server. It refuses to start without an
// authenticator (auth) or a shared secret (secret).
type HTTPConfig struct {
	confighttp.ServerConfig `mapstructure:",squash"`
	// Secret is a shared secret the uploader sends as
	// "Authorization: Bearer SECRET", compared in constant time; at least
	// MinSecretLength characters. Use either it or auth.
	Secret configopaque.String `mapstructure:"secret"`
	// SecretSubject is the subject an uploader with the secret is
	// authenticated as (default DefaultSecretSubject): the name the
	// processor's trusted_sources auth_subjects give.
	SecretSubject string `mapstructure:"secret_subject"`
	// Sender overrides the receiver's sender for uploads.
	Sender `mapstructure:",squash"`

	_ struct{}
}

func createDefaultConfig() *Config {
	return &Config{
		Watch:  configoptional.Default(defaultWatchConfig()),
		HTTP:   configoptional.Default(defaultHTTPConfig()),
		Events: translate.EventsSpan.String(),
	}
}

// defaultWatchConfig is what watch: holds unless it says otherwise.
func defaultWatchConfig() WatchConfig {
	return WatchConfig{PollInterval: DefaultPollInterval}
}

// defaultHTTPConfig is what http: holds unless it says otherwise.
func defaultHTTPConfig() HTTPConfig {
	server := confighttp.NewDefaultServerConfig()
	server.NetAddr.Endpoint = DefaultHTTPEndpoint
	server.MaxRequestBodySize = DefaultMaxUploadBytes
	server.ReadTimeout = DefaultUploadReadTimeout
	return HTTPConfig{ServerConfig: server, SecretSubject: DefaultSecretSubject}
}

var _ component.Config = (*Config)(nil)

// Validate checks the configuration, naming the key at fault.
func (c *Config) Validate() error {
	var errs []error
	if !c.Watch.HasValue() && !c.HTTP.HasValue() {
		errs = append(errs, errors.New("neither watch nor http is configured: the receiver would receive nothing"))
	}
	if _, err := translate.ParseEvents(c.Events); err != nil {
		errs = append(errs, fmt.Errorf("events: %q is not span, log or both", c.Events))
	}
	if err := c.validate(""); err != nil {
		errs = append(errs, err)
	}
	for i, r := range c.Rules {
		key := fmt.Sprintf("rules[%d]", i)
		if len(r.Match) == 0 {
			errs = append(errs, fmt.Errorf("%s::match: no glob", key))
		}
		for _, m := range r.Match {
			if _, err := compileGlob(m); err != nil {
				errs = append(errs, fmt.Errorf("%s::match: %w", key, err))
			}
		}
		if err := r.merge(c.Sender).validate(key + "::"); err != nil {
			errs = append(errs, err)
		}
	}
	if w := c.Watch.Get(); w != nil {
		errs = append(errs, w.validate()...)
	}
	if h := c.HTTP.Get(); h != nil {
		errs = append(errs, h.validate(c.Sender)...)
	}
	return errors.Join(errs...)
}

func (s Sender) validate(prefix string) error {
	if s.Kind != "" && !testrun.Kind(s.Kind).Valid() {
		return fmt.Errorf("%skind: %q is not a run kind (base, after_turn, rerun, attempt, setup, acceptance, grader, gate)", prefix, s.Kind)
	}
	if s.Grade != "" {
		if err := testrun.CheckGrade(testrun.Kind(s.Kind), s.Grade); err != nil {
			return fmt.Errorf("%sgrade: %w", prefix, err)
		}
	}
	for k := range s.ResourceAttributes {
		if strings.TrimSpace(k) == "" {
			return fmt.Errorf("%sresource_attributes: an empty key", prefix)
		}
	}
	return nil
}

// merge returns s with its empty fields taken from def; resource
// attributes are merged, s's winning.
func (s Sender) merge(def Sender) Sender {
	out := s
	if out.Kind == "" {
		out.Kind = def.Kind
		if out.Grade == "" {
			out.Grade = def.Grade
		}
	}
	if out.Job == "" {
		out.Job = def.Job
	}
	if len(def.ResourceAttributes) > 0 || len(s.ResourceAttributes) > 0 {
		out.ResourceAttributes = make(map[string]string, len(def.ResourceAttributes)+len(s.ResourceAttributes))
		for k, v := range def.ResourceAttributes {
			out.ResourceAttributes[k] = v
		}
		for k, v := range s.ResourceAttributes {
			out.ResourceAttributes[k] = v
		}
	}
	return out
}

func (w *WatchConfig) validate() []error {
	var errs []error
	if len(w.Include) == 0 {
		errs = append(errs, errors.New("watch::include: no glob (name the report folders, for example /var/ci/reports/**)"))
	}
	for _, g := range w.Include {
		if !filepath.IsAbs(g) {
			errs = append(errs, fmt.Errorf("watch::include: %q is not an absolute path", g))
			continue
		}
		if _, err := compileGlob(g); err != nil {
			errs = append(errs, fmt.Errorf("watch::include: %w", err))
		}
	}
	for _, g := range w.Exclude {
		if _, err := compileGlob(g); err != nil {
			errs = append(errs, fmt.Errorf("watch::exclude: %w", err))
		}
	}
	if w.PollInterval <= 0 {
		errs = append(errs, fmt.Errorf("watch::poll_interval: %s is not a positive duration", w.PollInterval))
	}
	return errs
}

func (h *HTTPConfig) validate(def Sender) []error {
	var errs []error
	switch {
	case !h.Auth.HasValue() && h.Secret == "":
		errs = append(errs, errors.New("http: neither http::auth (an authenticator extension) nor http::secret (a shared secret) is set: uploads are refused without credentials, so the server does not start without one"))
	case h.Auth.HasValue() && h.Secret != "":
		errs = append(errs, errors.New("http: both http::auth and http::secret are set: choose one"))
	case h.Secret != "" && len(h.Secret) < MinSecretLength:
		errs = append(errs, fmt.Errorf("http::secret: shorter than %d characters", MinSecretLength))
	}
	if h.Secret != "" && strings.TrimSpace(h.SecretSubject) == "" {
		errs = append(errs, errors.New("http::secret_subject: empty"))
	}
	if h.MaxRequestBodySize <= 0 {
		errs = append(errs, fmt.Errorf("http::max_request_body_size: %d is not a positive size", h.MaxRequestBodySize))
	}
	if err := h.Sender.merge(def).validate("http::"); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// compileGlob compiles a glob of "/" separated paths.
func compileGlob(pattern string) (glob.Glob, error) {
	g, err := glob.Compile(filepath.ToSlash(pattern), '/')
	if err != nil {
		return nil, fmt.Errorf("glob %q: %w", pattern, err)
	}
	return g, nil
}
