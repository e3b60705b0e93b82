// Package exporter writes runs out as OpenTelemetry spans: over OTLP/gRPC or
// OTLP/HTTP with the SDK's otlptracegrpc and otlptracehttp exporters
// (NewOTLPExporter), or as OTLP/JSON lines (one ExportTraceServiceRequest
// per line, the format of the collector's file exporter) with FileExporter
// and, for a file, WriteFile. ExportRuns and ExportSession translate runs
// (package translate), record them with an SDK tracer whose ids are derived
// from the runs, and export them. With Options.Events the runs' events also
// (or instead) go out as OTLP log records (translate.Logs), through the same
// format: LogExporter over OTLP/gRPC or OTLP/HTTP, or OTLP/JSON lines.
// ResolveOTLP is the one reader of the OTEL_EXPORTER_OTLP_* variables, per
// signal (traces, metrics, logs). The environment is read only through
// Options.Getenv and Options.Environ. A failed export is an error that says
// what was delivered and what was not, never a silent drop. Settings holds
// the rules of an export's command-line settings.
package exporter
