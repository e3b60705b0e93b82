// Package translate turns runs of a check into OpenTelemetry span events of
// the hangar.trace/v1 taxonomy: one test.run event per run and one test.case
// event per failing or flaky test. The events are defined once, as neutral
// values (Event, Span), and applied through two faces: onto SDK spans
// (AddEvents, Record) and onto pdata spans (AppendEvents, Traces). Trace and
// span ids are derived from the run, job, session and turn ids, so exporting
// the same runs twice yields the same ids.
package translate
