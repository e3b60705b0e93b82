package exporter

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// ErrSettings is matched (errors.Is) by a Settings error: settings that
// cannot work together or a value that cannot be read. Its message names
// the setting by its flag (--format, --otlp-timeout, ...), so that a
// command prints it as its usage error.
var ErrSettings = errors.New("exporter: invalid settings")

// settingsError is an ErrSettings error whose message is its own words.
type settingsError string

func (e settingsError) Error() string        { return string(e) }
func (e settingsError) Is(target error) bool { return target == ErrSettings }

func settingsf(format string, a ...any) error { return settingsError(fmt.Sprintf(format, a...)) }

// otlpFlags are the settings that only sending (FormatOTLP) reads.
var otlpFlags = []string{"protocol", "otlp-endpoint", "otlp-insecure", "otlp-header", "otlp-timeout", "otlp-compression"}

// Settings are the settings of an export as a command line spells them
// (each field is the flag named in its comment); Options checks them and
// turns them into Options. Given reports whether a flag was given on the
// command line (nil: none was), which decides what an absent setting
// means: -o without --format writes OTLP/JSON, and an OTLP flag given with
// --format otlp-json is refused rather than ignored.
type Settings struct {
	Format      string        // --format: otlp, otlp-json or otel
	Output      string        // -o: the OTLP/JSON file; "-" is stdout
	Protocol    string        // --protocol
	Endpoint    string        // --otlp-endpoint
	Insecure    bool          // --otlp-insecure
	Headers     []string      // --otlp-header K=V, repeated
	Timeout     time.Duration // --otlp-timeout
	Compression string        // --otlp-compression
	JobID       string        // --job
	Provision   bool          // --base
	Session     string        // --session
	Turns       []string      // --turn N or N=RUN.json, repeated
	BaseRun     string        // --base-run: the base run's file, read by Plan
	// MaxCaseEvents (--max-case-events) is given by a flag, which has no
	// unset value: 0 is refused here, where Options reads 0 as its
	// default. A value the command line did not give becomes Options' 0,
	// so that the log records of --events log are not bound by the span
	// events' default cap (see translate.WithMaxCaseEvents).
	MaxCaseEvents int
	CaseSpans     string // --case-spans: none, failed or all
	Events        string // --events: span, log or both ("" is span)
	Parent        string // --parent
	ServiceName   string // --service-name
	Given         func(flag string) bool
}

func (s Settings) given(flag string) bool { return s.Given != nil && s.Given(flag) }

// Options checks s and returns the export's Options, reading the
// environment through getenv and environ, and the output file ("" for
// stdout). Its errors match ErrSettings.
func (s Settings) Options(getenv func(string) string, environ func() []string) (Options, string, error) {
	format, err := s.format()
	if err != nil {
		return Options{}, "", err
	}
	otlp, err := s.otlpOptions()
	if err != nil {
		return Options{}, "", err
	}
	if s.MaxCaseEvents < 1 {
		return Options{}, "", settingsf("--max-case-events %d: want 1 or more", s.MaxCaseEvents)
	}
	caseSpans, err := translate.ParseCaseSpans(s.CaseSpans)
	if err != nil {
		return Options{}, "", settingsf("--case-spans %q: want none, failed or all", s.CaseSpans)
	}
	events := translate.EventsSpan
	if s.Events != "" {
		if events, err = translate.ParseEvents(s.Events); err != nil {
			return Options{}, "", settingsf("--events %q: want span, log or both", s.Events)
		}
	}
	if s.Parent != "" {
		if _, err := ParseParent(s.Parent, ""); err != nil {
			return Options{}, "", settingsf("--parent: %v", err)
		}
	}
	switch {
	case s.Session == "" && len(s.Turns) > 0:
		return Options{}, "", settingsf("--turn is for --session")
	case s.Session != "" && (s.JobID != "" || s.Provision):
		return Options{}, "", settingsf("--session cannot go with --job or --base")
	}
	maxCaseEvents := s.MaxCaseEvents
	if !s.given("max-case-events") {
		maxCaseEvents = 0
	}
	o := Options{
		Format:        format,
		OTLP:          otlp,
		ServiceName:   s.ServiceName,
		Parent:        s.Parent,
		Getenv:        getenv,
		Environ:       environ,
		JobID:         s.JobID,
		Provision:     s.Provision,
		MaxCaseEvents: maxCaseEvents,
		CaseSpans:     caseSpans,
		Events:        events,
	}
	outFile := ""
	if format == FormatOTLPJSON && s.Output != "-" {
		outFile = s.Output
	}
	return o, outFile, nil
}

// format is the format s asks for: -o alone implies otlp-json, and the
// OTLP flags go with sending only.
func (s Settings) format() (Format, error) {
	var format Format
	switch Format(s.Format) {
	case FormatOTLP, "":
		format = FormatOTLP
	case FormatOTLPJSON, FormatOTel:
		format = FormatOTLPJSON
	default:
		return "", settingsf("--format %q: want otlp (send) or otlp-json (write; otel is its former name)", s.Format)
	}
	if s.Output != "" && !s.given("format") {
		format = FormatOTLPJSON
	}
	if format == FormatOTLP && s.Output != "" {
		return "", settingsf("-o is for --format otlp-json: --format otlp sends over the network")
	}
	if format == FormatOTLPJSON {
		for _, f := range otlpFlags {
			if s.given(f) {
				return "", settingsf("--%s is for sending (--format otlp), not for --format %s", f, s.Format)
			}
		}
	}
	return format, nil
}

func (s Settings) otlpOptions() (OTLPOptions, error) {
	g := OTLPOptions{Endpoint: s.Endpoint, Insecure: s.Insecure}
	switch p := Protocol(s.Protocol); p {
	case "", ProtocolGRPC, ProtocolHTTPProtobuf:
		g.Protocol = p
	default:
		return g, settingsf("--protocol %q: want grpc or http/protobuf", s.Protocol)
	}
	if s.Headers != nil {
		g.Headers = make(map[string]string, len(s.Headers))
		for _, h := range s.Headers {
			k, v, ok := strings.Cut(h, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return g, settingsf("--otlp-header %q: want KEY=VALUE", h)
			}
			g.Headers[k] = strings.TrimSpace(v)
		}
	}
	if s.given("otlp-timeout") {
		if s.Timeout <= 0 {
			return g, settingsf("--otlp-timeout %s: want a positive duration such as 10s", s.Timeout)
		}
		g.Timeout = s.Timeout
	}
	switch s.Compression {
	case "", CompressionGzip, CompressionNone:
		g.Compression = s.Compression
	default:
		return g, settingsf("--otlp-compression %q: want gzip or none", s.Compression)
	}
	return g, nil
}

// SessionTurns reads the runs of each turn of s.Session with read: the
// N=RUN.json values of Turns in order, then args for the one bare N. Its
// own errors match ErrSettings; read's are returned as they are.
func (s Settings) SessionTurns(args []string, read func(string) (*testrun.Run, error)) (*translate.Session, error) {
	if len(s.Turns) == 0 {
		return nil, settingsf("--session needs --turn")
	}
	session := &translate.Session{ID: s.Session}
	index := map[int]int{}
	turn := func(n int) *translate.Turn {
		i, ok := index[n]
		if !ok {
			i = len(session.Turns)
			index[n] = i
			session.Turns = append(session.Turns, translate.Turn{Number: n})
		}
		return &session.Turns[i]
	}
	bare := -1
	for _, v := range s.Turns {
		num, path, hasPath := strings.Cut(v, "=")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, settingsf("--turn %q: want N or N=RUN.json with N a turn number (0 or more)", v)
		}
		if !hasPath {
			if bare >= 0 {
				return nil, settingsf("--turn N without a RUN.json is given twice (%d and %d)", bare, n)
			}
			bare = n
			continue
		}
		if path == "" {
			return nil, settingsf("--turn %q: no RUN.json", v)
		}
		r, err := read(path)
		if err != nil {
			return nil, err
		}
		t := turn(n)
		t.Runs = append(t.Runs, r)
	}
	if bare >= 0 && len(args) == 0 {
		return nil, settingsf("--turn %d has no RUN.json", bare)
	}
	if bare < 0 && len(args) > 0 {
		return nil, settingsf("RUN.json arguments need a --turn N to go on")
	}
	for _, a := range args {
		r, err := read(a)
		if err != nil {
			return nil, err
		}
		t := turn(bare)
		t.Runs = append(t.Runs, r)
	}
	return session, nil
}

// OneTurn is the turn of an export of one run yet to be made: with
// s.Session, Turns must be the one bare turn number N. Its errors match
// ErrSettings.
func (s Settings) OneTurn() (int, error) {
	if len(s.Turns) == 1 && !strings.Contains(s.Turns[0], "=") {
		if n, err := strconv.Atoi(s.Turns[0]); err == nil && n >= 0 {
			return n, nil
		}
	}
	return 0, settingsf("--session needs one --turn N (a turn number, 0 or more) for the run")
}
