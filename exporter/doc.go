// Package exporter writes runs out as OpenTelemetry spans: over OTLP/gRPC
// with the SDK's otlptracegrpc exporter, or as OTLP/JSON lines (one
// ExportTraceServiceRequest per line, the format of the collector's file
// exporter) with FileExporter. ExportRuns and ExportSession translate runs
// (package translate), record them with an SDK tracer whose ids are derived
// from the runs, and export them; a failed export is an error, never a
// silent drop.
package exporter
