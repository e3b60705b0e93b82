package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

func init() {
	register(command{name: "export", synopsis: "export runs as OpenTelemetry spans (OTLP/gRPC or OTLP/JSON)", run: runExport})
}

const exportUsage = `Usage: testresults export [flags] RUN.json...

Turns runs (the JSON that parse and run print; "-" reads one from stdin)
into OpenTelemetry spans: one test.run event per run and one test.case event
per failing or flaky test (hangar.trace/v1).

Where they go:
  send     (default) over OTLP: --protocol grpc (the default, port 4317)
           or http/protobuf (port 4318, path /v1/traces), to
           --otlp-endpoint or the OTEL_EXPORTER_OTLP_* endpoint
  file     --format otlp-json: OTLP/JSON, one ExportTraceServiceRequest per
           line, to stdout or to -o FILE (-o alone implies it)
  --format otlp is the explicit name of sending and --format otel the
  former name of otlp-json; both still work.

Export forms:
  job      (default) every run on the job's job.verify span; --job ID names
           the job (without it, the ids derive from the run ids)
  base     --base: the runs on the job's job.provision span instead
  session  --session ID: a session span with one child span per turn
             --session S --turn N RUN.json...     the runs go on turn N
             --session S --turn 1=a.json --turn 2=b.json --turn 2=c.json
                                                  several turns at once
Trace and span ids derive from the job, session, turn and run ids: exporting
the same runs again gives the same ids. --parent (or TRACEPARENT and
TRACESTATE) attaches the spans under a remote parent, in its trace.

OTLP settings come from OTEL_EXPORTER_OTLP_TRACES_* and OTEL_EXPORTER_OTLP_*
(PROTOCOL, ENDPOINT, HEADERS, INSECURE, TIMEOUT, COMPRESSION, CERTIFICATE,
CLIENT_KEY, CLIENT_CERTIFICATE; the TRACES_ one wins), else grpc to
localhost:4317 with TLS; --protocol and the --otlp-* flags override them.
For http/protobuf, OTEL_EXPORTER_OTLP_ENDPOINT is a base URL that gets
/v1/traces and OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is used as it is.
service.name is "testresults" unless OTEL_RESOURCE_ATTRIBUTES,
OTEL_SERVICE_NAME or --service-name say otherwise.

Each request is retried while the endpoint may come back (refused
connection, Unavailable, a collector restarting) until --otlp-timeout, and
fails at once when no retry can help (TLS against a plaintext port, an
untrusted certificate, Unimplemented, InvalidArgument, PermissionDenied,
Unauthenticated), with a hint. An export that stops midway says how many
spans and runs were delivered and how many were not; the run files are
never touched, and exporting them again sends the same ids.

-o FILE is written whole or not at all: a temporary file in the same folder,
synced, then renamed over FILE. A device or a FIFO (/dev/stdout, a named
pipe) is written in place instead, and a symbolic link is followed.

One line on stderr says how many runs and spans went where, with the trace
ids (--quiet: none; colour only on a terminal, never with NO_COLOR).

Exit codes: 0 exported; 1 the export failed or was partial (the reason and
what was delivered are on stderr); 2 usage error or invalid
OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_* or TRACEPARENT; 3 a run could
not be read or is not valid.

Flags:
`

// exportOptions are the flags of export. The output, OTLP and placement
// flags are registered by addExportFlags so that another subcommand can
// offer the same export.
type exportOptions struct {
	format          string
	output          string
	protocol        string
	otlpEndpoint    string
	otlpInsecure    bool
	otlpHeaders     []string
	otlpTimeout     time.Duration
	otlpCompression string
	job             string
	base            bool
	session         string
	turns           []string
	baseRun         string
	maxCaseEvents   int
	parent          string
	serviceName     string
	// quiet is export's own flag (newExportFlags), not addExportFlags'.
	quiet bool
}

func newExportFlags() (*pflag.FlagSet, *exportOptions) {
	fs := pflag.NewFlagSet("export", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	o := addExportFlags(fs)
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on stderr when the export succeeds")
	return fs, o
}

// addExportFlags registers the export flags on fs.
func addExportFlags(fs *pflag.FlagSet) *exportOptions {
	o := &exportOptions{}
	fs.StringVar(&o.format, "format", string(exporter.FormatOTLP), "otlp (send over OTLP) or otlp-json (write OTLP/JSON lines); otel is otlp-json's former name")
	fs.StringVarP(&o.output, "output", "o", "", "write OTLP/JSON to FILE instead of stdout (implies --format otlp-json; - is stdout)")
	fs.StringVar(&o.protocol, "protocol", "", "OTLP protocol: grpc or http/protobuf (default: $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, $OTEL_EXPORTER_OTLP_PROTOCOL, else grpc)")
	fs.StringVar(&o.otlpEndpoint, "otlp-endpoint", "", "OTLP endpoint HOST:PORT or URL (http:// means insecure; for http/protobuf a URL with a path is used as it is)")
	fs.BoolVar(&o.otlpInsecure, "otlp-insecure", false, "send without TLS")
	fs.StringArrayVar(&o.otlpHeaders, "otlp-header", nil, "header K=V sent with each request (repeatable; replaces the environment's headers)")
	fs.DurationVar(&o.otlpTimeout, "otlp-timeout", 0, "time limit of each export request, retries included (default: $OTEL_EXPORTER_OTLP_TIMEOUT, else 10s)")
	fs.StringVar(&o.otlpCompression, "otlp-compression", "", "gzip or none")
	fs.StringVar(&o.job, "job", "", "the job id (hangar.job.id) of a job export")
	fs.BoolVar(&o.base, "base", false, "the runs are the job's base: put them on its job.provision span")
	fs.StringVar(&o.session, "session", "", "export a session: its id (hangar.session.id)")
	fs.StringArrayVar(&o.turns, "turn", nil, "with --session: N (the RUN.json arguments are turn N's) or N=RUN.json (repeatable)")
	fs.StringVar(&o.baseRun, "base-run", "", "a base run (JSON): test.case events then say whether each failure is new")
	fs.IntVar(&o.maxCaseEvents, "max-case-events", translate.DefaultMaxCaseEvents, "most test.case events per run; the rest are counted in hangar.test.case_events.omitted")
	fs.StringVar(&o.parent, "parent", "", "W3C traceparent to export under (default: $TRACEPARENT)")
	fs.StringVar(&o.serviceName, "service-name", "", "service.name of the spans (default: $OTEL_SERVICE_NAME, else testresults)")
	return o
}

// usageError is a flag combination that cannot work.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, a ...any) error { return &usageError{msg: fmt.Sprintf(format, a...)} }

// inputError is a run that cannot be read or exported.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

// exportPlan is a validated export: its options and what goes where.
type exportPlan struct {
	opts    exporter.Options
	session *translate.Session
	runs    []*testrun.Run
	outFile string
	// result is what export delivered.
	result exporter.Result
}

// exporterOptions checks the output, OTLP and placement flags and returns
// the exporter options they give (without the base run, which plan reads)
// and the output file ("" for stdout). Errors are *usageError.
func (o *exportOptions) exporterOptions(fs *pflag.FlagSet, env Env) (exporter.Options, string, error) {
	var format exporter.Format
	switch exporter.Format(o.format) {
	case exporter.FormatOTLP:
		format = exporter.FormatOTLP
	case exporter.FormatOTLPJSON, exporter.FormatOTel:
		format = exporter.FormatOTLPJSON
	default:
		return exporter.Options{}, "", usagef("--format %q: want otlp (send) or otlp-json (write; otel is its former name)", o.format)
	}
	if o.output != "" && !fs.Changed("format") {
		format = exporter.FormatOTLPJSON
	}
	if format == exporter.FormatOTLP && o.output != "" {
		return exporter.Options{}, "", usagef("-o is for --format otlp-json: --format otlp sends over the network")
	}
	if format == exporter.FormatOTLPJSON {
		for _, f := range []string{"protocol", "otlp-endpoint", "otlp-insecure", "otlp-header", "otlp-timeout", "otlp-compression"} {
			if fs.Changed(f) {
				return exporter.Options{}, "", usagef("--%s is for sending (--format otlp), not for --format %s", f, o.format)
			}
		}
	}
	otlp, err := o.otlpOptions(fs)
	if err != nil {
		return exporter.Options{}, "", err
	}
	if o.maxCaseEvents < 1 {
		return exporter.Options{}, "", usagef("--max-case-events %d: want 1 or more", o.maxCaseEvents)
	}
	if o.parent != "" {
		if _, err := exporter.ParseParent(o.parent, ""); err != nil {
			return exporter.Options{}, "", usagef("--parent: %v", err)
		}
	}
	opts := exporter.Options{
		Format:        format,
		OTLP:          otlp,
		ServiceName:   o.serviceName,
		Parent:        o.parent,
		Getenv:        env.Getenv,
		Environ:       env.Environ,
		JobID:         o.job,
		Provision:     o.base,
		MaxCaseEvents: o.maxCaseEvents,
	}
	outFile := ""
	if format == exporter.FormatOTLPJSON && o.output != "-" {
		outFile = o.output
	}
	return opts, outFile, nil
}

// prepare checks the flags every export shares (output, OTLP, placement)
// and reads the base run with read.
func (o *exportOptions) prepare(fs *pflag.FlagSet, env Env, read func(string) (*testrun.Run, error)) (*exportPlan, error) {
	opts, outFile, err := o.exporterOptions(fs, env)
	if err != nil {
		return nil, err
	}
	switch {
	case o.session == "" && len(o.turns) > 0:
		return nil, usagef("--turn is for --session")
	case o.session != "" && (o.job != "" || o.base):
		return nil, usagef("--session cannot go with --job or --base")
	}
	p := &exportPlan{opts: opts, outFile: outFile}
	if o.baseRun != "" {
		if p.opts.Base, err = read(o.baseRun); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// plan checks the flags, reads the runs and returns the export to make.
// Errors are *usageError or *inputError.
func (o *exportOptions) plan(fs *pflag.FlagSet, args []string, env Env) (*exportPlan, error) {
	stdin := false
	read := func(path string) (*testrun.Run, error) {
		if path == "-" {
			if stdin {
				return nil, usagef("stdin (-) given twice")
			}
			stdin = true
		}
		return readRunFile(path, env.Stdin)
	}
	p, err := o.prepare(fs, env, read)
	if err != nil {
		return nil, err
	}
	if o.session != "" {
		if p.session, err = o.sessionTurns(args, read); err != nil {
			return nil, err
		}
		return p, nil
	}
	if len(args) == 0 {
		return nil, usagef("no RUN.json given")
	}
	for _, a := range args {
		r, err := read(a)
		if err != nil {
			return nil, err
		}
		p.runs = append(p.runs, r)
	}
	return p, nil
}

// planRun returns the export of one run that is yet to be made (parse
// --export), to be given to the plan with put: a job export, or with
// --session the run goes on the one --turn N. The OTLP/JSON of --format
// otlp-json needs -o, since stdout carries the run. Errors are *usageError or
// *inputError.
func (o *exportOptions) planRun(fs *pflag.FlagSet, env Env) (*exportPlan, error) {
	p, err := o.prepare(fs, env, func(path string) (*testrun.Run, error) { return readRunFile(path, env.Stdin) })
	if err != nil {
		return nil, err
	}
	if p.opts.Format == exporter.FormatOTLPJSON && p.outFile == "" {
		return nil, usagef("--format otlp-json needs -o FILE here: stdout carries the run")
	}
	if o.session == "" {
		p.runs = []*testrun.Run{nil}
		return p, nil
	}
	n := -1
	if len(o.turns) == 1 && !strings.Contains(o.turns[0], "=") {
		if v, err := strconv.Atoi(o.turns[0]); err == nil {
			n = v
		}
	}
	if n < 0 {
		return nil, usagef("--session needs one --turn N (a turn number, 0 or more) for the run")
	}
	p.session = &translate.Session{ID: o.session, Turns: []translate.Turn{{Number: n, Runs: []*testrun.Run{nil}}}}
	return p, nil
}

// put gives a plan made by planRun its run.
func (p *exportPlan) put(run *testrun.Run) {
	if p.session != nil {
		p.session.Turns[0].Runs[0] = run
		return
	}
	p.runs[0] = run
}

// sessionTurns reads the runs of each turn: the N=RUN.json values in order,
// then the arguments for the one bare --turn N.
func (o *exportOptions) sessionTurns(args []string, read func(string) (*testrun.Run, error)) (*translate.Session, error) {
	if len(o.turns) == 0 {
		return nil, usagef("--session needs --turn")
	}
	s := &translate.Session{ID: o.session}
	index := map[int]int{}
	turn := func(n int) *translate.Turn {
		i, ok := index[n]
		if !ok {
			i = len(s.Turns)
			index[n] = i
			s.Turns = append(s.Turns, translate.Turn{Number: n})
		}
		return &s.Turns[i]
	}
	bare := -1
	for _, v := range o.turns {
		num, path, hasPath := strings.Cut(v, "=")
		n, err := strconv.Atoi(num)
		if err != nil || n < 0 {
			return nil, usagef("--turn %q: want N or N=RUN.json with N a turn number (0 or more)", v)
		}
		if !hasPath {
			if bare >= 0 {
				return nil, usagef("--turn N without a RUN.json is given twice (%d and %d)", bare, n)
			}
			bare = n
			continue
		}
		if path == "" {
			return nil, usagef("--turn %q: no RUN.json", v)
		}
		r, err := read(path)
		if err != nil {
			return nil, err
		}
		t := turn(n)
		t.Runs = append(t.Runs, r)
	}
	if bare >= 0 && len(args) == 0 {
		return nil, usagef("--turn %d has no RUN.json", bare)
	}
	if bare < 0 && len(args) > 0 {
		return nil, usagef("RUN.json arguments need a --turn N to go on")
	}
	for _, a := range args {
		r, err := read(a)
		if err != nil {
			return nil, err
		}
		t := turn(bare)
		t.Runs = append(t.Runs, r)
	}
	return s, nil
}

func (o *exportOptions) otlpOptions(fs *pflag.FlagSet) (exporter.OTLPOptions, error) {
	g := exporter.OTLPOptions{Endpoint: o.otlpEndpoint, Insecure: o.otlpInsecure}
	switch p := exporter.Protocol(o.protocol); p {
	case "", exporter.ProtocolGRPC, exporter.ProtocolHTTPProtobuf:
		g.Protocol = p
	default:
		return g, usagef("--protocol %q: want grpc or http/protobuf", o.protocol)
	}
	if o.otlpHeaders != nil {
		g.Headers = make(map[string]string, len(o.otlpHeaders))
		for _, h := range o.otlpHeaders {
			k, v, ok := strings.Cut(h, "=")
			k = strings.TrimSpace(k)
			if !ok || k == "" {
				return g, usagef("--otlp-header %q: want KEY=VALUE", h)
			}
			g.Headers[k] = strings.TrimSpace(v)
		}
	}
	if fs.Changed("otlp-timeout") {
		if o.otlpTimeout <= 0 {
			return g, usagef("--otlp-timeout %s: want a positive duration such as 10s", o.otlpTimeout)
		}
		g.Timeout = o.otlpTimeout
	}
	switch o.otlpCompression {
	case "", exporter.CompressionGzip, exporter.CompressionNone:
		g.Compression = o.otlpCompression
	default:
		return g, usagef("--otlp-compression %q: want gzip or none", o.otlpCompression)
	}
	return g, nil
}

// readRunFile reads one run's JSON from path ("-": stdin).
func readRunFile(path string, stdin io.Reader) (*testrun.Run, error) {
	var r io.Reader
	if path == "-" {
		r = stdin
	} else {
		f, err := os.Open(path)
		if err != nil {
			return nil, &inputError{err}
		}
		defer f.Close()
		r = f
	}
	// The strict reader of package testrun: within testrun.MaxJSONBytes,
	// the exact form only, no contradiction, no forged flag.
	run, err := testrun.ReadRun(r)
	if err != nil {
		return nil, &inputError{fmt.Errorf("%s: %w", path, err)}
	}
	if run.ID == "" {
		return nil, &inputError{fmt.Errorf("%s: the run has no id", path)}
	}
	return run, nil
}

func runExport(ctx context.Context, args []string, env Env) int {
	fs, o := newExportFlags()
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, exportUsage)
		fmt.Fprint(w, fs.FlagUsages())
	}
	usageErr := func(msg string) int {
		fmt.Fprintf(env.Stderr, "testresults export: %s\n\n", msg)
		usageTo(env.Stderr)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usageTo(env.Stdout)
			return exitOK
		}
		return usageErr(err.Error())
	}
	p, err := o.plan(fs, fs.Args(), env)
	var uerr *usageError
	switch {
	case errors.As(err, &uerr):
		return usageErr(uerr.msg)
	case err != nil:
		fmt.Fprintf(env.Stderr, "testresults export: %v\n", err)
		return exitRejected
	}
	err = p.export(ctx, env.Stdout)
	if err == nil && !o.quiet {
		fmt.Fprintln(env.Stderr, p.summary(useColor(env)))
	}
	return exportCode(env, err)
}

// summary is the line for people that says what an export delivered: how
// many runs and spans went where, and the trace ids.
func (p *exportPlan) summary(color bool) string {
	r := p.result
	dest := r.Destination
	switch {
	case p.opts.Format != exporter.FormatOTLPJSON:
	case p.outFile != "":
		dest = p.outFile + " (" + r.Destination + ")"
	default:
		dest = "stdout (" + r.Destination + ")"
	}
	ids := make([]string, len(r.TraceIDs))
	for i, id := range r.TraceIDs {
		ids[i] = id.String()
	}
	trace := "trace"
	if len(ids) != 1 {
		trace = "traces"
	}
	verb := "exported"
	if color {
		verb = "\x1b[32m" + verb + "\x1b[0m"
	}
	line := fmt.Sprintf("testresults export: %s %d %s in %d %s to %s",
		verb, r.Runs, plural(r.Runs, "run"), r.Spans, plural(r.Spans, "span"), dest)
	if len(ids) > 0 {
		line += fmt.Sprintf("; %s %s", trace, strings.Join(ids, ", "))
	}
	return line
}

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// useColor says whether stderr takes colour: a character device (a
// terminal), NO_COLOR not set, TERM not dumb.
func useColor(env Env) bool {
	if env.Getenv("NO_COLOR") != "" || env.Getenv("TERM") == "dumb" {
		return false
	}
	f, ok := env.Stderr.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// export makes the export, writing OTLP/JSON to stdout or to the output
// file with exporter.WriteFile: a failed export leaves the previous file
// (or none) and no partial one; a device or a FIFO is written in place.
func (p *exportPlan) export(ctx context.Context, stdout io.Writer) error {
	if p.opts.Format != exporter.FormatOTLPJSON || p.outFile == "" {
		p.opts.Output = stdout
		return p.send(ctx)
	}
	var buf bytes.Buffer
	p.opts.Output = &buf
	if err := p.send(ctx); err != nil {
		return err
	}
	return exporter.WriteFile(p.outFile, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

func (p *exportPlan) send(ctx context.Context) (err error) {
	if p.session != nil {
		p.result, err = exporter.ExportSession(ctx, *p.session, p.opts)
	} else {
		p.result, err = exporter.ExportRuns(ctx, p.runs, p.opts)
	}
	return err
}

// exportCode reports err and maps it to the exit code: 2 for an unusable
// environment (OTEL_RESOURCE_ATTRIBUTES, TRACEPARENT), 3 for runs that
// cannot be exported, 1 for a failed export.
func exportCode(env Env, err error) int {
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(env.Stderr, "testresults export: %v\n", err)
	switch {
	case errors.Is(err, exporter.ErrConfig), errors.Is(err, exporter.ErrParent):
		return exitUsage
	case errors.Is(err, translate.ErrInvalid):
		return exitRejected
	}
	return exitFailed
}
