package semconv

import (
	"go.opentelemetry.io/otel/attribute"
	upstream "go.opentelemetry.io/otel/semconv/v1.43.0"
)

// SchemaURL is the OpenTelemetry schema of the upstream keys used here.
const SchemaURL = upstream.SchemaURL

// Schema is the taxonomy that reserves the test.run and test.case event names.
const Schema = "hangar.trace/v1"

// Event names reserved by hangar.trace/v1.
const (
	// EventTestRun is the span event written once per run of a check.
	EventTestRun = "test.run"
	// EventTestCase is the span event written once per failing or flaky test.
	EventTestCase = "test.case"
	// EventTestVerdict is the span event written once per paired
	// comparison, on the span of the patch runs it judged.
	EventTestVerdict = "test.verdict"
)

// Span names used by the export forms.
const (
	// SpanJobVerify is the span of a job that ran its checks.
	SpanJobVerify = "job.verify"
	// SpanJobProvision is the span of a job's provisioning, which carries the base run.
	SpanJobProvision = "job.provision"
	// SpanSession is the root span of a session export.
	SpanSession = "session"
	// SpanTurn is the span of one turn of a session.
	SpanTurn = "session.turn"
)

// Upstream keys (OpenTelemetry semantic conventions v1.43.0, stability development).
var (
	TestSuiteNameKey        = upstream.TestSuiteNameKey
	TestSuiteRunStatusKey   = upstream.TestSuiteRunStatusKey
	TestCaseNameKey         = upstream.TestCaseNameKey
	TestCaseResultStatusKey = upstream.TestCaseResultStatusKey
	VCSRefHeadRevisionKey   = upstream.VCSRefHeadRevisionKey
	ServiceNameKey          = upstream.ServiceNameKey
	// CodeFilePathKey and CodeLineNumberKey (stable upstream) say where a
	// test case is written, as its report gives it.
	CodeFilePathKey   = upstream.CodeFilePathKey
	CodeLineNumberKey = upstream.CodeLineNumberKey
)

// Upstream enum values.
var (
	TestSuiteRunStatusSuccess  = upstream.TestSuiteRunStatusSuccess
	TestSuiteRunStatusFailure  = upstream.TestSuiteRunStatusFailure
	TestSuiteRunStatusAborted  = upstream.TestSuiteRunStatusAborted
	TestSuiteRunStatusTimedOut = upstream.TestSuiteRunStatusTimedOut
	TestCaseResultStatusPass   = upstream.TestCaseResultStatusPass
	TestCaseResultStatusFail   = upstream.TestCaseResultStatusFail
)

// hangar.trace/v1 keys (experimental).
const (
	TestTotalKey          = attribute.Key("hangar.test.total")
	TestPassedKey         = attribute.Key("hangar.test.passed")
	TestFailedKey         = attribute.Key("hangar.test.failed")
	TestErrorsKey         = attribute.Key("hangar.test.errors")
	TestSkippedKey        = attribute.Key("hangar.test.skipped")
	TestFlakyCountKey     = attribute.Key("hangar.test.flaky")
	TestCompleteKey       = attribute.Key("hangar.test.complete")
	TestCoverageLineRate  = attribute.Key("hangar.test.coverage.line_rate")
	TestRunIDKey          = attribute.Key("hangar.test.run.id")
	TestRunKindKey        = attribute.Key("hangar.test.run.kind")
	TestRunGradeKey       = attribute.Key("hangar.test.run.grade")
	TestCaseEventsOmitted = attribute.Key("hangar.test.case_events.omitted")
	TestExitCodeKey       = attribute.Key("hangar.test.exit_code")
	TestRunTrustedKey     = attribute.Key("hangar.test.run.trusted")
	TestRunCountedKey     = attribute.Key("hangar.test.run.counted")
	RunIDKey              = attribute.Key("hangar.run.id")
	// TestNotRunKey is on the test.run event of a run checked against the
	// tests it was expected to run: how many of them no report mentions (0
	// when all ran; absent when the run was not checked or cannot tell).
	TestNotRunKey = attribute.Key("hangar.test.not_run")

	TestOutcomeKey    = attribute.Key("hangar.test.outcome")
	TestFlakyKey      = attribute.Key("hangar.test.flaky")
	TestNewFailureKey = attribute.Key("hangar.test.new_failure")
	TestMessageKey    = attribute.Key("hangar.test.message")
	// TestDurationUnknownKey is on a case span whose report states no
	// duration: the span's zero length is not a measured time.
	TestDurationUnknownKey = attribute.Key("hangar.test.duration_unknown")

	// The flakiness score of a test (testrun.Flakiness) on its test.case
	// event, when the export is given one (from the stored history of the
	// test's repository): FailureRate, the posterior estimate of the rate
	// at which it fails where it can pass, and Evidence, the outcomes it
	// rests on (the rate is absent when there are none); FlipRate, the
	// share of outcome changes among its last FlipWindowRuns runs (absent
	// below two runs). A score informs; it never changes a status or a
	// count, and it excuses nothing.
	TestFlakinessFailureRateKey    = attribute.Key("hangar.test.flakiness.failure_rate")
	TestFlakinessEvidenceKey       = attribute.Key("hangar.test.flakiness.evidence")
	TestFlakinessFlipRateKey       = attribute.Key("hangar.test.flakiness.flip_rate")
	TestFlakinessFlipWindowRunsKey = attribute.Key("hangar.test.flakiness.flip_window_runs")

	// TestFailedIDsKey is a span attribute: the first failing test ids of
	// the span's runs, in the order of their test.case events.
	TestFailedIDsKey = attribute.Key("hangar.test.failed_ids")

	// SessionIDKey and TurnKey identify the session span and its turn spans.
	SessionIDKey = attribute.Key("hangar.session.id")
	TurnKey      = attribute.Key("hangar.session.turn")
	// JobIDKey identifies the job of a job export.
	JobIDKey = attribute.Key("hangar.job.id")

	// Attributes of the test.verdict event: the decision (reject, block,
	// allow, invalid), how many tests had each verdict, the first broken
	// ids, and why an invalid comparison is invalid.
	TestVerdictDecisionKey     = attribute.Key("hangar.test.verdict.decision")
	TestVerdictBrokenKey       = attribute.Key("hangar.test.verdict.broken")
	TestVerdictRepairedKey     = attribute.Key("hangar.test.verdict.repaired")
	TestVerdictFrozenKey       = attribute.Key("hangar.test.verdict.frozen")
	TestVerdictUnchangedKey    = attribute.Key("hangar.test.verdict.unchanged")
	TestVerdictInconclusiveKey = attribute.Key("hangar.test.verdict.inconclusive")
	TestVerdictBrokenIDsKey    = attribute.Key("hangar.test.verdict.broken_ids")
	TestVerdictReasonKey       = attribute.Key("hangar.test.verdict.reason")
)
