// Package testrun is the core model of testresults: a Run is one execution of
// a check, with its counts, failures, per-case outcomes, coverage and the
// fail-closed Trusted and Counted rules. Report parsers hand it executions of
// test cases; it merges them by test id (retries inside a suite, several
// configurations across suites), clips and redacts messages, and gives the
// run its exact JSON form.
package testrun
