package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/internal/term"
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
Events:
  --events span  (default) the test.run and test.case events on the span
                 that carries the runs, within --max-case-events
  --events log   as OTLP log records (log-based events) instead: one per
                 event, with the event's name, time and attributes and the
                 trace and span id of its span; every failing and flaky test
                 gets one, however many (--max-case-events given explicitly
                 bounds them too)
  --events both  both
  Log records go where the spans go, after them: over OTLP (the
  OTEL_EXPORTER_OTLP_LOGS_* variables over the generic ones; http/protobuf
  posts them to /v1/logs) or as ExportLogsServiceRequest lines in the same
  OTLP/JSON output.
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
spans, runs and log records were delivered and how many were not; the run
files are never touched, and exporting them again sends the same ids.

-o FILE is written whole or not at all: a temporary file in the same folder,
synced, then renamed over FILE. A device or a FIFO (/dev/stdout, a named
pipe) is written in place instead, and a symbolic link is followed.

One line on stderr says how many runs, spans and log records went where,
with the trace ids (--quiet: none; colour only on a terminal, never with NO_COLOR).

Exit codes: 0 exported; 1 the export failed or was partial (the reason and
what was delivered are on stderr); 2 usage error or invalid
OTEL_RESOURCE_ATTRIBUTES, OTEL_EXPORTER_OTLP_* or TRACEPARENT; 3 a run could
not be read or is not valid.

Flags:
`

func runExport(ctx context.Context, args []string, env Env) error {
	fs, o := newExportFlags()
	cf := flagsFor("export", exportUsage, fs)
	if err := cf.parse(args); err != nil {
		return err
	}
	p, err := o.plan(fs, fs.Args(), env)
	var uerr *usageError
	switch {
	case errors.As(err, &uerr):
		return cf.usageErr("%s", uerr.msg)
	case err != nil:
		return rejected(err)
	}
	err = p.export(ctx, env.Stdout)
	if err == nil && !o.quiet {
		p.printSummary(env)
	}
	return exportError(err)
}

// printSummary prints the summary line on stderr, its "exported" in green
// when useColor says so: painted through the terminal writer, the rest of
// the line as it is without colour.
func (p *exportPlan) printSummary(env Env) {
	line := p.summary()
	rest, ok := strings.CutPrefix(line, exportedPrefix)
	if tw, isTerm := env.Stderr.(*term.Writer); ok && isTerm && useColor(env) {
		_, _ = tw.Printf("testresults export: %s%s\n", term.Paint(term.StyleGreen, "exported"), rest) // as Fprintln below: a summary stderr cannot take has nowhere else to go
		return
	}
	fmt.Fprintln(env.Stderr, line)
}

// exportedPrefix begins the summary line; its "exported" is what
// printSummary paints.
const exportedPrefix = "testresults export: exported"

// summary is the line for people that says what an export delivered: how
// many runs, spans and log records went where, and the trace ids, and that the trust
// flags are recomputed by the collector. It holds no colour codes.
func (p *exportPlan) summary() string {
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
	carried := fmt.Sprintf("%d %s", r.Spans, plural(r.Spans, "span"))
	if r.Records > 0 {
		carried += fmt.Sprintf(" and %d %s", r.Records, plural(r.Records, "log record"))
	}
	line := fmt.Sprintf("%s %d %s in %s to %s", exportedPrefix, r.Runs, plural(r.Runs, "run"), carried, dest)
	if r.Records > 0 && r.LogDestination != r.Destination {
		line += " (log records to " + r.LogDestination + ")"
	}
	if len(ids) > 0 {
		line += fmt.Sprintf("; %s %s", trace, strings.Join(ids, ", "))
	}
	// The flags the export wrote are the sender's claim: the collector's
	// testresults processor overwrites them, so the line must not read as
	// if the runs went out trusted.
	return line + " " + flagsNote
}

// flagsNote ends the summary line: trusted and counted are the collector's to set.
const flagsNote = "(trusted/counted are recomputed by the collector)"

func plural(n int, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

// useColor says whether stderr takes colour: it is the terminal writer
// (internal/term, which escapes what reaches it and knows whether its
// destination is a terminal), colour is allowed there, and NO_COLOR is not
// set nor TERM dumb in env. Colour is then painted through that writer
// (term.Paint, Writer.Printf), never as codes inside printed text, which
// the writer would show escaped.
func useColor(env Env) bool {
	if env.Getenv("NO_COLOR") != "" || env.Getenv("TERM") == "dumb" {
		return false
	}
	w, ok := env.Stderr.(interface{ Colors() bool })
	return ok && w.Colors()
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

// exportError classifies a failed export: exit 2 for an unusable
// environment (OTEL_RESOURCE_ATTRIBUTES, TRACEPARENT; no usage printed, no
// flag is at fault), 3 for runs that cannot be exported, 1 otherwise.
func exportError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, exporter.ErrConfig), errors.Is(err, exporter.ErrParent):
		return &exitCode{code: exitUsage, msg: err.Error()}
	case errors.Is(err, translate.ErrInvalid):
		return rejected(err)
	}
	return err
}
