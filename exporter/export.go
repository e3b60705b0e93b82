package exporter

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/internal/sdkspan"
	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Format is where ExportRuns and ExportSession send spans.
type Format string

const (
	// FormatOTLP sends spans over OTLP, gRPC or HTTP (NewOTLPExporter).
	FormatOTLP Format = "otlp"
	// FormatOTLPJSON writes OTLP/JSON lines to Options.Output
	// (FileExporter).
	FormatOTLPJSON Format = "otlp-json"
	// FormatOTel is the former name of FormatOTLPJSON, still accepted.
	FormatOTel Format = "otel"
)

// Result says what an export delivered.
type Result struct {
	// Spans and Runs delivered: the test.run span events, or the test.run
	// log records when the events go as log records only.
	Spans, Runs int
	// Records is how many log records were delivered (Options.Events).
	Records int
	// TraceIDs are the traces the spans belong to, each once, in order.
	TraceIDs []trace.TraceID
	// Destination names where they went: "OTLP/gRPC host:port",
	// "OTLP/HTTP URL" or "OTLP/JSON". Log records sent over OTLP/HTTP go
	// to LogDestination, the URL of their own path.
	Destination    string
	LogDestination string
}

// Options configure ExportRuns and ExportSession; the CLI fills them from
// its flags.
type Options struct {
	// Format is FormatOTLP (the default when empty) or FormatOTLPJSON.
	Format Format
	// Output receives the OTLP/JSON lines of FormatOTLPJSON.
	Output io.Writer
	// OutputFile, when set, is where the OTLP/JSON lines of FormatOTLPJSON
	// go instead of Output: written whole or not at all (WriteFile), once
	// the whole export is encoded.
	OutputFile string
	// OTLP are the OTLP settings of FormatOTLP.
	OTLP OTLPOptions
	// ServiceName overrides service.name (see NewResource).
	ServiceName string
	// Parent is a W3C traceparent to attach the spans under. When empty,
	// the TRACEPARENT and TRACESTATE variables are read through Getenv.
	Parent string
	// Getenv is the one way the export reads the environment: TRACEPARENT,
	// TRACESTATE, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and the
	// OTEL_EXPORTER_OTLP_* variables (nil: os.Getenv).
	Getenv func(string) string
	// Environ lists the environment whose secret-looking values are
	// redacted from failure messages again on export (nil: os.Environ).
	Environ func() []string

	// JobID and Provision place a job export (see translate.Job).
	JobID     string
	Provision bool
	// Base is the base run test.case events are compared with.
	Base *testrun.Run
	// Flakiness are the flakiness scores of tests by id, which their
	// test.case events carry (see translate.WithFlakiness); they inform
	// and change nothing else.
	Flakiness map[string]testrun.Flakiness
	// The limits below follow one rule: a positive value is the limit, 0
	// (the zero value) means its default, and a negative value is refused
	// with ErrConfig. The CLI's flags have no unset value, so they refuse 0
	// too.

	// MaxRequestBytes is the most one OTLP request holds; larger exports
	// are split (0: DefaultMaxRequestBytes, the default limit of a
	// collector's OTLP gRPC receiver; lower it for a receiver configured
	// with a lower max_recv_msg_size_mib).
	MaxRequestBytes int
	// MaxCaseEvents caps the test.case events of one run
	// (0: translate.DefaultMaxCaseEvents).
	MaxCaseEvents int
	// CaseSpans adds a child span per test case (see translate.WithCaseSpans;
	// the zero value is translate.CaseSpansNone).
	CaseSpans translate.CaseSpans
	// Events says whether the test.run and test.case events go on the
	// spans, as log records, or both (see translate.WithEvents; the zero
	// value is translate.EventsSpan). Spans go out first, then the log
	// records, through the same format: OTLP (the logs' own variables,
	// OTEL_EXPORTER_OTLP_LOGS_*, over the generic ones) or OTLP/JSON lines
	// in the one output. Log records are split into requests of at most
	// MaxRequestBytes, as spans are.
	Events translate.Events
}

// ExportRuns exports runs as a job export: one job.verify span (job.provision
// with Provision) carrying every run's events. It returns what was
// delivered; an export that stops midway is an *ExportError.
func ExportRuns(ctx context.Context, runs []*testrun.Run, o Options) (Result, error) {
	return export(ctx, o, func(topts []translate.Option) ([]translate.Span, error) {
		return translate.JobSpans(translate.Job{ID: o.JobID, Provision: o.Provision}, runs, topts...)
	})
}

// ExportSession exports a session: a session span with one child span per
// turn carrying that turn's runs. It returns what ExportRuns returns.
func ExportSession(ctx context.Context, session translate.Session, o Options) (Result, error) {
	if o.JobID != "" || o.Provision {
		return Result{}, fmt.Errorf("%w: a session export has no job", ErrConfig)
	}
	return export(ctx, o, func(topts []translate.Option) ([]translate.Span, error) {
		return translate.SessionSpans(session, topts...)
	})
}

// ExportBuilt exports the spans that build returns, as ExportRuns does:
// build is handed the translate options the export's settings give (the
// redactor, the base run, the case-event cap, the parent), so that a caller
// can add to what translate makes (an event of its own on a span) and still
// go through the one path to the wire or to OTLP/JSON.
func ExportBuilt(ctx context.Context, o Options, build func([]translate.Option) ([]translate.Span, error)) (Result, error) {
	return export(ctx, o, build)
}

func export(ctx context.Context, o Options, build func([]translate.Option) ([]translate.Span, error)) (_ Result, err error) {
	if o.OutputFile != "" && (o.Format == FormatOTLPJSON || o.Format == FormatOTel) {
		return exportToFile(ctx, o, build)
	}
	topts, maxBytes, res, err := prepare(ctx, o)
	if err != nil {
		return Result{}, err
	}
	spans, err := build(topts)
	if err != nil {
		return Result{}, fmt.Errorf("exporter: %w", err)
	}
	switch o.Format {
	case FormatOTLPJSON, FormatOTel:
		if o.Output == nil {
			return Result{}, fmt.Errorf("%w: format %s without an output", ErrConfig, o.Format)
		}
		fe := NewFileExporter(o.Output)
		defer func() {
			if serr := fe.Shutdown(context.WithoutCancel(ctx)); serr != nil {
				err = errors.Join(err, fmt.Errorf("exporter: shutdown: %w", serr))
			}
		}()
		r, err := sendBatches(ctx, spans, res, maxBytes, func(batch []translate.Span) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("exporter: %w", err)
			}
			return fe.WriteTraces(translate.Traces(batch, res))
		})
		r.Destination = "OTLP/JSON"
		if err != nil || !o.Events.Logs() {
			return r, err
		}
		r.LogDestination = r.Destination
		return sendLogs(ctx, r, spans, res, maxBytes, func(ld plog.Logs) error {
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("exporter: %w", err)
			}
			return fe.WriteLogs(ld)
		})
	case FormatOTLP, "":
		return exportOTLP(ctx, o, spans, res, maxBytes)
	default:
		return Result{}, fmt.Errorf("%w: format %q (want %s or %s)", ErrConfig, o.Format, FormatOTLP, FormatOTLPJSON)
	}
}

// prepare checks o and returns the translate options, the request size
// limit and the resource of the export.
func prepare(ctx context.Context, o Options) ([]translate.Option, int, *resource.Resource, error) {
	var (
		parent trace.SpanContext
		err    error
	)
	if o.Parent != "" {
		parent, err = ParseParent(o.Parent, "")
	} else {
		parent, err = ParentFromEnv(o.Getenv)
	}
	if err != nil {
		return nil, 0, nil, err
	}
	res, err := NewResource(ctx, o.ServiceName, o.Getenv)
	if err != nil {
		return nil, 0, nil, err
	}
	if o.MaxCaseEvents < 0 {
		return nil, 0, nil, fmt.Errorf("%w: negative MaxCaseEvents %d", ErrConfig, o.MaxCaseEvents)
	}
	if o.Events < translate.EventsSpan || o.Events > translate.EventsBoth {
		return nil, 0, nil, fmt.Errorf("%w: events %s", ErrConfig, o.Events)
	}
	maxBytes := o.MaxRequestBytes
	switch {
	case maxBytes < 0:
		return nil, 0, nil, fmt.Errorf("%w: negative MaxRequestBytes %d", ErrConfig, maxBytes)
	case maxBytes == 0 || maxBytes > DefaultMaxRequestBytes:
		maxBytes = DefaultMaxRequestBytes
	}
	redactor := testrun.DefaultRedactor()
	if o.Environ != nil {
		redactor = testrun.NewRedactor(o.Environ())
	}
	return []translate.Option{
		translate.WithRedactor(redactor),
		translate.WithBase(o.Base),
		translate.WithMaxCaseEvents(o.MaxCaseEvents),
		// One span's events fit in one request, with a quarter of it
		// left for the span, its resource and its attributes (3 MiB of the
		// default 4 MiB, translate's default).
		translate.WithMaxEventBytes(maxBytes - maxBytes/4),
		translate.WithParent(parent),
		translate.WithCaseSpans(o.CaseSpans),
		translate.WithEvents(o.Events),
		translate.WithFlakiness(o.Flakiness),
	}, maxBytes, res, nil
}

// exportOTLP sends spans, then their log records when o asks for them,
// over OTLP. Both exporters are made before anything is sent, so that a
// setting that cannot work sends nothing.
func exportOTLP(ctx context.Context, o Options, spans []translate.Span, res *resource.Resource, maxBytes int) (_ Result, err error) {
	exp, err := NewOTLPExporter(ctx, o.OTLP, o.Getenv)
	if err != nil {
		return Result{}, err
	}
	defer func() {
		if serr := exp.Shutdown(context.WithoutCancel(ctx)); serr != nil {
			err = errors.Join(err, fmt.Errorf("exporter: shutdown: %w", serr))
		}
	}()
	var lexp *LogExporter
	if o.Events.Logs() {
		if lexp, err = NewOTLPLogExporter(o.OTLP, o.Getenv); err != nil {
			return Result{}, err
		}
		defer func() {
			if serr := lexp.Shutdown(context.WithoutCancel(ctx)); serr != nil {
				err = errors.Join(err, fmt.Errorf("exporter: shutdown: %w", serr))
			}
		}()
	}
	r, err := exportSpans(ctx, exp, spans, res, maxBytes)
	r.Destination = exp.(*retrying).endpoint
	if err != nil || lexp == nil {
		return r, err
	}
	r.LogDestination = lexp.Endpoint()
	return sendLogs(ctx, r, spans, res, maxBytes, func(ld plog.Logs) error { return lexp.Export(ctx, ld) })
}

// sendLogs sends the log records of spans after the spans went out (r says
// what they delivered), in the requests of LogBatches, in order; the first
// failed request stops it with an *ExportError.
func sendLogs(ctx context.Context, r Result, spans []translate.Span, res *resource.Resource, maxBytes int, send func(plog.Logs) error) (Result, error) {
	if err := ctx.Err(); err != nil {
		return r, fmt.Errorf("exporter: %w", err)
	}
	batches := LogBatches(spans, res, maxBytes)
	// Without span events, the runs are the test.run records.
	recordRuns := countRuns(spans) == 0
	e := &ExportError{Spans: r.Spans, SentSpans: r.Spans, Runs: r.Runs, SentRuns: r.Runs}
	for _, ld := range batches {
		e.Records += ld.LogRecordCount()
		if recordRuns {
			e.Runs += countRecordRuns(ld)
		}
	}
	for _, ld := range batches {
		if err := send(ld); err != nil {
			e.Err = err
			return r, e
		}
		e.SentRecords += ld.LogRecordCount()
		r.Records = e.SentRecords
		if recordRuns {
			e.SentRuns += countRecordRuns(ld)
			r.Runs = e.SentRuns
		}
	}
	return r, nil
}

// ExportSpans records spans with an SDK tracer provider built for them and
// exports them through exp. The provider has res as resource, the
// deterministic ids of the spans, span limits raised so that no event is
// dropped, and samples every span whatever the parent's sampled flag or
// OTEL_TRACES_SAMPLER say: results are evidence, not samples. Spans go out
// in as few requests as fit in DefaultMaxRequestBytes each (see Batches),
// in order; the first failed request stops the export with an
// *ExportError saying how many spans and runs were delivered and how many
// were not. ExportSpans does not shut exp down.
func ExportSpans(ctx context.Context, exp sdktrace.SpanExporter, spans []translate.Span, res *resource.Resource) error {
	_, err := exportSpans(ctx, exp, spans, res, DefaultMaxRequestBytes)
	return err
}

func exportSpans(ctx context.Context, exp sdktrace.SpanExporter, spans []translate.Span, res *resource.Resource, maxBytes int) (Result, error) {
	ended, err := RecordSpans(ctx, spans, res)
	if err != nil {
		return Result{}, err
	}
	// RecordSpans ends the spans in their order, so the recorded span of
	// spans[i] is ended[i].
	sent := 0
	return sendBatches(ctx, spans, res, maxBytes, func(batch []translate.Span) error {
		err := exp.ExportSpans(ctx, ended[sent:sent+len(batch)])
		sent += len(batch)
		return err
	})
}

// sendBatches sends spans in the batches of Batches, in order, and counts
// what was delivered; the first failed batch stops it with an *ExportError.
func sendBatches(ctx context.Context, spans []translate.Span, res *resource.Resource, maxBytes int, send func([]translate.Span) error) (Result, error) {
	var r Result
	e := &ExportError{Spans: len(spans), Runs: countRuns(spans)}
	for _, batch := range Batches(spans, res, maxBytes) {
		if err := send(batch); err != nil {
			e.Err = err
			return r, e
		}
		e.SentSpans += len(batch)
		e.SentRuns += countRuns(batch)
		r.Spans, r.Runs = e.SentSpans, e.SentRuns
		for _, s := range batch {
			if !slices.Contains(r.TraceIDs, s.TraceID) {
				r.TraceIDs = append(r.TraceIDs, s.TraceID)
			}
		}
	}
	return r, nil
}

// countRuns counts the test.run events of spans.
func countRuns(spans []translate.Span) int {
	n := 0
	for _, s := range spans {
		for _, ev := range s.Events {
			if ev.Name == semconv.EventTestRun {
				n++
			}
		}
	}
	return n
}

// RecordSpans records spans as ExportSpans does and returns the ended SDK
// spans, in order.
func RecordSpans(ctx context.Context, spans []translate.Span, res *resource.Resource) ([]sdktrace.ReadOnlySpan, error) {
	var keep spanKeeper
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithResource(res),
		sdktrace.WithIDGenerator(sdkspan.IDGenerator()),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithRawSpanLimits(sdkspan.SpanLimits(spans)),
		sdktrace.WithSpanProcessor(&keep),
	)
	tracer := tp.Tracer(translate.ScopeName, trace.WithSchemaURL(semconv.SchemaURL))
	rerr := sdkspan.Record(ctx, tracer, spans)
	if err := tp.Shutdown(context.WithoutCancel(ctx)); err != nil && rerr == nil {
		rerr = err
	}
	if rerr != nil {
		return nil, fmt.Errorf("exporter: %w", rerr)
	}
	return keep.ended(), nil
}

// Batches splits spans, in order, into groups whose OTLP request under res
// (translate.Traces) stays within maxBytes. A span larger than maxBytes is
// a group of its own (and the exporter then reports it too large rather
// than dropping it).
func Batches(spans []translate.Span, res *resource.Resource, maxBytes int) [][]translate.Span {
	var (
		m       ptrace.ProtoMarshaler
		batches [][]translate.Span
		start   int
		size    int
	)
	for i := range spans {
		// The size of a request holding a span alone bounds what it adds
		// to a request that already holds the same resource and scope.
		n := m.TracesSize(translate.Traces(spans[i:i+1], res))
		if i > start && size+n > maxBytes {
			batches = append(batches, spans[start:i])
			start, size = i, 0
		}
		size += n
	}
	if start < len(spans) {
		batches = append(batches, spans[start:])
	}
	return batches
}

// spanKeeper is a span processor that keeps ended spans, so that they are
// exported by a call whose error is returned (the SDK's batch and simple
// processors hand export errors to the global error handler instead).
type spanKeeper struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (k *spanKeeper) OnStart(context.Context, sdktrace.ReadWriteSpan) {}

func (k *spanKeeper) OnEnd(s sdktrace.ReadOnlySpan) {
	k.mu.Lock()
	k.spans = append(k.spans, s)
	k.mu.Unlock()
}

func (k *spanKeeper) Shutdown(context.Context) error   { return nil }
func (k *spanKeeper) ForceFlush(context.Context) error { return nil }

func (k *spanKeeper) ended() []sdktrace.ReadOnlySpan {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.spans
}
