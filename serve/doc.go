// Package serve is the read-only HTTP API and pages over stored runs: a
// job's or a session's test summary, one run with its cases paged, the runs
// as OTLP/JSON spans, a repository's flaky list for admins, and an HTML page
// per job that reads without JavaScript.
package serve
