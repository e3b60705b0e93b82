// Package serve is the read-only HTTP API and pages over stored runs: a
// job's or a session's test summary, one run with its cases paged, the runs
// as OTLP/JSON spans in bounded pages (see OtelPageRuns), a repository's
// flaky list for admins, and an HTML page per job that reads without
// JavaScript. Every response is bounded, and the work for a request stops
// when its context is done.
package serve
