// Package serve is the HTTP API and pages over stored runs: the
// jobs, newest first by their latest recording, paged (GET /api/jobs, and
// as HTML at /, grouped by repository), a job's or a session's test
// summary, one run with its cases paged, the runs
// as OTLP/JSON spans in bounded pages (see OtelPageRuns), a repository's
// flaky list for admins, and an HTML page per job that reads without
// JavaScript. Every response is bounded, and the work for a request stops
// when its context is done.
//
// It reads, but for one thing: an admin (a request carrying the bearer
// token of Options.AdminToken; without one configured, every admin request
// is refused) keeps a repository's quarantine entries, as flaky quarantine
// add|remove|list does — GET /api/repos/quarantine?repo=R lists them
// (testrun.ListedQuarantine, expired ones marked), POST adds or renews one
// from a strict JSON body (testrun.ReadQuarantineRequest: one object of at
// most 64 KiB, application/json; 201 added, 200 renewed), DELETE
// ?repo=R&test=ID[&env=E] removes one (204, 404 when none). The store
// judges an entry by the one rule, testrun.CheckQuarantine (422 when it
// refuses). Nothing else the server does writes, and nothing adds an entry
// but such a request. These answers are never kept (Cache-Control:
// no-store), and no kept answer shows quarantine, so no write leaves a
// stale one.
//
// Stored runs do not change, so a response rendered from them is rendered
// once: the server keeps it (within Options.CacheBytes, least recently
// used out first) with its gzip form and a strong ETag, the SHA-256 of its
// bytes, under the request's path and query and the store's version of the
// job or session (store.RunStore.JobVersion: one row read per request, or,
// from a PostgreSQL store opened with store.WithWatch, none while no write
// was announced; a request with Cache-Control: no-cache reads it). A
// run tagged for the job, a run it lists tagged elsewhere, or retention
// gives a new version, and the next request renders anew: a kept response
// is never answered for runs that changed. The job list is kept under
// the store's version of all runs (store.RunStore.RunsVersion), which
// every tagging and retention sets anew. If-None-Match with the ETag
// answers 304; a client that accepts gzip gets the kept gzip form. A
// summary reads no run's cases but the failing ones (and, of the latest
// run, those failing in the base), and a cases page reads only its cases.
// Which run a summary shows, and which base it compares with, is
// testrun.ChooseLatest's rule.
//
// Handlers return the errors they meet; one mapper turns each into an
// RFC 9457 problem (application/problem+json): a bad request 400, an
// unknown id 404, a quarantine entry the rule refuses 422, a request whose
// context ended 503 with Retry-After, a failing store 500 without its
// cause. The pages are html/template files
// embedded from templates/.
package serve
