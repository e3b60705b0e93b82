// Package testrun is the core model of testresults: a Run is one execution of
// a check, with its counts, failures, per-case outcomes, coverage and the
// fail-closed Trusted and Counted rules. Report parsers hand it executions of
// test cases; it merges them by test id (retries inside a suite, several
// configurations across suites), clips and redacts messages, and gives the
// run its exact JSON form.
//
// # Reading a run's JSON form
//
// A run read back from JSON (Run.UnmarshalJSON, ReadRun) is untrusted input
// and is read as strictly as a report. The input is accepted only when it is
// exactly the form Run.MarshalJSON writes:
//
//   - At most MaxJSONBytes (16 MiB) of valid UTF-8, holding one JSON object
//     and nothing after it.
//   - Every key of every object (the run, counts, each failure, coverage,
//     each report) is one of the form's fields, spelled exactly: an unknown
//     field, a key given twice, or a key that differs only in case from a
//     field ("KIND" beside or instead of "kind") is refused. JSON tools
//     disagree on such input (Go matches keys regardless of case, and most
//     tools keep the last of two equal keys), so no reading of it is
//     believed. Keys of cases are test ids: one given twice is refused, but
//     ids that differ in case are different tests.
//   - Every field is present (absence is never a default), including
//     trusted and counted; only a report's skipped, the run's durations,
//     and not_run/not_run_count, which come together, may be absent, as
//     MarshalJSON leaves them out when false, empty or not checked.
//     durations, when present, is an object of test ids in cases to
//     numbers of seconds between 0 and MaxCaseDuration. Each field holds its type, and
//     null only where the form allows it; an unknown string is null, never
//     "".
//   - counts is null or holds all six counts, each an integer literal (5,
//     never 5.0, 5e0, "5" or null) within the bounds of Counts.Valid.
//   - Values are nested no deeper than the form: the first level too many is
//     refused.
//
// The run it describes must then pass Run.Validate, which refuses a run
// that contradicts itself: complete beside incomplete reasons or beside a
// refused report (an error that is not skipped); failures, cases or flaky
// without counts; more distinct failing ids in failures or in cases than
// failed + errors, more cases than total, more flaky ids than the flaky
// count, a failure whose outcome differs from its case's, a duration of an
// id not in cases, a report entry not read (refused or skipped) that
// states tests or a digest, a skipped entry without a reason, not_run
// naming an id in cases, or complete beside expected tests that never ran.
//
// trusted and counted are written so that readers of the file see them, but
// they are never believed: the reader computes them with IsTrusted and
// Run.Counted, and a file whose values differ is refused as forged rather
// than corrected.
//
// Every refusal wraps ErrInvalidRun and names the field, such as
// `counts: missing "failed"` or `key "KIND" differs only in case from
// "kind"`. Called through json.Unmarshal, a syntax error is found by
// encoding/json itself before UnmarshalJSON runs and is returned as its own
// *json.SyntaxError; ReadRun and a direct UnmarshalJSON call wrap those too.
//
// What is accepted reads back unchanged: the JSON form of an accepted run is
// read as an equal run (times in UTC, empty lists and maps as nil), and
// writing that run again gives the same bytes.
package testrun
