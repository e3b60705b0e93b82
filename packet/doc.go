// Package packet renders the review packet of a run: its counts, the
// expected tests that never ran, the new failures against its base, its
// flaky tests and its coverage change, as
// GitHub-flavoured Markdown (a pull-request comment or a CI step summary)
// or as an HTML page. It renders and decides nothing: what is a new
// failure, whether the comparison is exact and which flaky tests are on the
// list come from package testrun (testrun.Compare).
//
// Everything taken from reports (test ids, messages, reasons) is escaped:
// control characters are shown as escapes, Markdown cannot be injected and
// HTML goes through html/template. Lists are capped and the Markdown is
// bounded by MaxMarkdownBytes, below GitHub's 65,536-character limit on
// comments.
package packet
