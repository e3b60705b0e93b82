package main

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/translate"
)

// exportOptions are the flags of export. The output, OTLP and placement
// flags are registered by addExportFlags so that another subcommand can
// offer the same export; their rules are exporter.Settings'.
type exportOptions struct {
	s       exporter.Settings
	baseRun string
	// quiet, repo and store are export's own (newExportFlags).
	quiet bool
	repo  string
	store *storeFlag
}

func newExportFlags() (*pflag.FlagSet, *exportOptions) {
	fs := newFlagSet("export")
	o := addExportFlags(fs)
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "print nothing on stderr when the export succeeds")
	fs.StringVar(&o.repo, "repo", "", "score the failing tests from this repository's stored history (default: the repository the store recorded the runs under)")
	o.store = addStoreFlag(fs, "store", "the store whose history scores the failing tests", shortStoreConns, false)
	return fs, o
}

// addExportFlags registers the export flags on fs.
func addExportFlags(fs *pflag.FlagSet) *exportOptions {
	o := &exportOptions{}
	s := &o.s
	fs.StringVar(&s.Format, "format", string(exporter.FormatOTLP), "otlp (send over OTLP) or otlp-json (write OTLP/JSON lines); otel is otlp-json's former name")
	fs.StringVarP(&s.Output, "output", "o", "", "write OTLP/JSON to FILE instead of stdout (implies --format otlp-json; - is stdout)")
	fs.StringVar(&s.Protocol, "protocol", "", "OTLP protocol: grpc or http/protobuf (default: $OTEL_EXPORTER_OTLP_TRACES_PROTOCOL, $OTEL_EXPORTER_OTLP_PROTOCOL, else grpc)")
	fs.StringVar(&s.Endpoint, "otlp-endpoint", "", "OTLP endpoint HOST:PORT or URL (http:// means insecure; for http/protobuf a URL with a path is used as it is)")
	fs.BoolVar(&s.Insecure, "otlp-insecure", false, "send without TLS")
	fs.StringArrayVar(&s.Headers, "otlp-header", nil, "header K=V sent with each request (repeatable; replaces the environment's headers)")
	fs.DurationVar(&s.Timeout, "otlp-timeout", 0, "time limit of each export request, retries included (default: $OTEL_EXPORTER_OTLP_TIMEOUT, else 10s)")
	fs.StringVar(&s.Compression, "otlp-compression", "", "gzip or none")
	fs.StringVar(&s.JobID, "job", "", "the job id (hangar.job.id) of a job export")
	fs.BoolVar(&s.Provision, "base", false, "the runs are the job's base: put them on its job.provision span")
	fs.StringVar(&s.Session, "session", "", "export a session: its id (hangar.session.id)")
	fs.StringArrayVar(&s.Turns, "turn", nil, "with --session: N (the RUN.json arguments are turn N's) or N=RUN.json (repeatable)")
	fs.StringVar(&o.baseRun, "base-run", "", "a base run (JSON): test.case events then say whether each failure is new")
	fs.IntVar(&s.MaxCaseEvents, "max-case-events", translate.DefaultMaxCaseEvents, "most test.case events per run; the rest are counted in hangar.test.case_events.omitted")
	fs.StringVar(&s.CaseSpans, "case-spans", translate.CaseSpansNone.String(), "also a child span per test case: none, failed (failing and flaky tests) or all")
	fs.StringVar(&s.Events, "events", translate.EventsSpan.String(), "the test.run and test.case events as span events (span), as OTLP log records (log: every failing test, beyond --max-case-events' default) or both")
	fs.StringVar(&s.Parent, "parent", "", "W3C traceparent to export under (default: $TRACEPARENT)")
	fs.StringVar(&s.ServiceName, "service-name", "", "service.name of the spans (default: $OTEL_SERVICE_NAME, else testresults)")
	return o
}

// usageOf makes an exporter.ErrSettings error a *usageError; other errors
// are returned as they are.
func usageOf(err error) error {
	if errors.Is(err, exporter.ErrSettings) {
		return usagef("%s", err.Error())
	}
	return err
}
