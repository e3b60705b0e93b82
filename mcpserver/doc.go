// Package mcpserver is a Model Context Protocol server over a store of
// runs, built on the official Go SDK (github.com/modelcontextprotocol/go-sdk),
// for agents that ask for a job's tests, a comparison or a verdict as a
// tool call instead of reading a file.
//
// Its resources, testresults://jobs/{id}/tests and
// testresults://sessions/{ref}/tests, answer with the bytes of the query
// API (package serve) for GET /api/jobs/{id}/tests and
// /api/sessions/{ref}/tests: the request goes to serve's own handler in
// the same process, so the JSON is the API's and so are its refusals. The
// tools are job_tests (a job's or a session's tests, one run, its cases
// 5,000 a page: the API's JSON again), diff_runs and verdict (testrun's
// comparison and paired verdict of stored runs, their lists 5,000 a page),
// flaky_list (a repository's flaky list, only when an admin token is
// configured) and parse_reports (reports read from the one folder the
// server was given at start-up, nothing outside it).
//
// The server only reads: no tool records, tags, prunes or writes. Every
// answer is JSON, and every string in it that comes from a report (test
// ids, messages, paths) is a JSON string value: data for the client, never
// text the server addresses to it. Identifiers are refused as the API
// refuses them. Over HTTP the server listens on a loopback address only
// (see Listen).
package mcpserver
