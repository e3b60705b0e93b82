// Package translate turns runs of a check into OpenTelemetry span events of
// the hangar.trace/v1 taxonomy: one test.run event per run and one test.case
// event per failing or flaky test. The events and spans are defined once, as
// neutral values: RunEvents gives the Events of one run, JobSpans and
// SessionSpans the Spans of an export, and Traces their one pdata form
// (package exporter writes it as OTLP/JSON and sends the same spans over
// OTLP). Trace and span ids are derived from the run, job, session and turn
// ids, so exporting the same runs twice yields the same ids and the same
// traces.
//
// The same events can also go out as log-based events, as the
// OpenTelemetry events specification asks of new instrumentation:
// WithEvents chooses span events, log records or both, and Logs writes the
// records (one per event, with the event's name, time and attributes and
// the ids of the span that carries the run) as pdata logs. A bridge from
// events to span events gives the spans of a span export back; the
// records are not bound by the span's event limits.
//
// So that a person reading a trace sees how the runs went without opening
// events, a span that carries runs also gets a status (Error, with a short
// description such as "2 failed, 1 error of 40", when a run failed, timed
// out, was aborted or is incomplete; Unset otherwise), the runs' counts as
// attributes, and hangar.test.failed_ids, the first failing test ids. Each
// event has its own time, so that viewers that order events by time show
// them in their order.
package translate
