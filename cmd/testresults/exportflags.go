package main

import (
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/translate"
)

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
	caseSpans       string
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
	fs.StringVar(&o.caseSpans, "case-spans", translate.CaseSpansNone.String(), "also a child span per test case: none, failed (failing and flaky tests) or all")
	fs.StringVar(&o.parent, "parent", "", "W3C traceparent to export under (default: $TRACEPARENT)")
	fs.StringVar(&o.serviceName, "service-name", "", "service.name of the spans (default: $OTEL_SERVICE_NAME, else testresults)")
	return o
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
	// A flag is never unset, so 0 is refused here, where exporter.Options
	// reads 0 as its default (see exporter.Options).
	if o.maxCaseEvents < 1 {
		return exporter.Options{}, "", usagef("--max-case-events %d: want 1 or more", o.maxCaseEvents)
	}
	caseSpans, err := translate.ParseCaseSpans(o.caseSpans)
	if err != nil {
		return exporter.Options{}, "", usagef("--case-spans %q: want none, failed or all", o.caseSpans)
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
		CaseSpans:     caseSpans,
	}
	outFile := ""
	if format == exporter.FormatOTLPJSON && o.output != "-" {
		outFile = o.output
	}
	return opts, outFile, nil
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
