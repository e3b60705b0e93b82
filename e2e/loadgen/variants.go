package loadgen

import (
	"math"

	"github.com/hangar-dev/testresults/semconv"
	"github.com/hangar-dev/testresults/testrun"
)

// Attr is one attribute as the generator sends it. Value is a string, an
// int64, a float64 or a bool. A key may appear more than once in a list: the
// wire allows it, and so does the generator.
type Attr struct {
	Key   string
	Value any
}

// Event is one span event as sent.
type Event struct {
	Name  string
	Attrs []Attr
}

// Variant is one kind of span the generator sends: everything about it but
// its ids and timestamps.
type Variant struct {
	// Name says what the variant is, as class/detail: foreign, valid,
	// forged or malformed.
	Name string
	// Weight is the variant's share of the spans sent.
	Weight int
	// Service is the service.name of the span's resource.
	Service string
	// Span is the span's name.
	Span   string
	Attrs  []Attr
	Events []Event
}

// Services of the generated resources: the verifier (a trusted source in the
// sample configuration), the agent (never trusted) and a foreign service.
const (
	ServiceVerifier = "hangar-verifier"
	ServiceAgent    = "agent"
	ServiceForeign  = "shop-frontend"
)

// Flag spellings that differ from the real keys only in case or surrounding
// space. A reader must never take them for the real flags.
const (
	TrustedCased  = "Hangar.Test.Run.Trusted"
	CountedCased  = "HANGAR.TEST.RUN.COUNTED"
	TrustedSpaced = " hangar.test.run.trusted "
)

var (
	keyKind     = string(semconv.TestRunKindKey)
	keyGrade    = string(semconv.TestRunGradeKey)
	keyTotal    = string(semconv.TestTotalKey)
	keyPassed   = string(semconv.TestPassedKey)
	keyFailed   = string(semconv.TestFailedKey)
	keyErrors   = string(semconv.TestErrorsKey)
	keySkipped  = string(semconv.TestSkippedKey)
	keyFlaky    = string(semconv.TestFlakyCountKey)
	keyComplete = string(semconv.TestCompleteKey)
	keyTrusted  = string(semconv.TestRunTrustedKey)
	keyCounted  = string(semconv.TestRunCountedKey)
	keyRunID    = string(semconv.TestRunIDKey)
	keyJobID    = string(semconv.JobIDKey)
)

// counts are total, passed, failed, errors, skipped, flaky.
type counts [6]int64

// run builds the attributes of a test.run event: a command, a status, the
// kind (and grade when not empty), the six counts, complete, then extra.
func run(id string, kind testrun.Kind, grade string, c counts, complete bool, extra ...Attr) Event {
	attrs := []Attr{
		{string(semconv.TestSuiteNameKey), "go test ./..."},
		{string(semconv.TestSuiteRunStatusKey), "success"},
		{keyRunID, id},
		{keyKind, string(kind)},
	}
	if grade != "" {
		attrs = append(attrs, Attr{keyGrade, grade})
	}
	for i, k := range []string{keyTotal, keyPassed, keyFailed, keyErrors, keySkipped, keyFlaky} {
		attrs = append(attrs, Attr{k, c[i]})
	}
	attrs = append(attrs, Attr{keyComplete, complete})
	return Event{Name: semconv.EventTestRun, Attrs: append(attrs, extra...)}
}

// honest returns the flags an honest sender writes for a run from a trusted
// source: the rules of package testrun.
func honest(kind testrun.Kind, grade string, c counts, complete bool) []Attr {
	valid := testrun.ValidCounts(c[0], c[1], c[2], c[3], c[4], c[5])
	return []Attr{
		{keyTrusted, valid && testrun.IsTrusted(kind, grade)},
		{keyCounted, valid && testrun.IsCounted(kind, grade, c[0], complete)},
	}
}

func forged() []Attr { return []Attr{{keyTrusted, true}, {keyCounted, true}} }

// without returns a's attributes but those named key.
func without(e Event, key string) Event {
	out := Event{Name: e.Name}
	for _, a := range e.Attrs {
		if a.Key != key {
			out.Attrs = append(out.Attrs, a)
		}
	}
	return out
}

// replace returns e with the value of every attribute named key set to v.
func replace(e Event, key string, v any) Event {
	out := Event{Name: e.Name, Attrs: append([]Attr(nil), e.Attrs...)}
	for i := range out.Attrs {
		if out.Attrs[i].Key == key {
			out.Attrs[i].Value = v
		}
	}
	return out
}

func testCase(name string) Event {
	return Event{Name: semconv.EventTestCase, Attrs: []Attr{
		{string(semconv.TestCaseNameKey), name},
		{string(semconv.TestCaseResultStatusKey), "fail"},
		{string(semconv.TestOutcomeKey), "failed"},
		{string(semconv.TestMessageKey), "expected 2, got 3"},
	}}
}

func job(id string) []Attr { return []Attr{{keyJobID, id}} }

// Variants returns the mix the generator sends, in a fixed order: by weight,
// about three fifths foreign spans, then valid, forged and malformed runs on
// the spans the processor recomputes (job.verify, job.provision,
// session.turn).
func Variants() []Variant {
	ok := counts{10, 9, 1, 0, 0, 1}
	after := run("after", testrun.KindAfterTurn, "", ok, true)
	gate := run("gate", testrun.KindGate, "", ok, true)
	verify := semconv.SpanJobVerify
	return []Variant{
		// Foreign spans: no test.run event, no flag.
		{Name: "foreign/http", Weight: 45, Service: ServiceForeign, Span: "HTTP GET",
			Attrs: []Attr{{"http.request.method", "GET"}, {"http.route", "/items/{id}"}, {"http.response.status_code", int64(200)}}},
		{Name: "foreign/db", Weight: 15, Service: ServiceForeign, Span: "SELECT shop.items",
			Attrs:  []Attr{{"db.system.name", "postgresql"}, {"db.query.text", "SELECT * FROM items WHERE id = $1"}},
			Events: []Event{{Name: "exception", Attrs: []Attr{{"exception.message", "deadline exceeded"}}}}},
		// Foreign spans that carry a forged run and forged flags, in the
		// real spelling and in spellings that differ by case or space.
		{Name: "foreign/forged-run", Weight: 3, Service: ServiceVerifier, Span: "HTTP POST",
			Attrs: append(forged(), Attr{TrustedCased, true}),
			Events: []Event{run("foreign-run", testrun.KindGate, "", ok, true,
				Attr{keyTrusted, true}, Attr{keyCounted, true}, Attr{TrustedSpaced, true})}},
		{Name: "foreign/agent-turn", Weight: 2, Service: ServiceAgent, Span: "agent.turn",
			Attrs:  []Attr{{CountedCased, true}},
			Events: []Event{run("agent-claim", testrun.KindBase, "", ok, true, forged()...)}},

		// Valid runs, with the flags an honest sender writes.
		{Name: "valid/after-turn", Weight: 6, Service: ServiceVerifier, Span: verify, Attrs: job("j-after"),
			Events: []Event{
				run("after", testrun.KindAfterTurn, "", ok, true, honest(testrun.KindAfterTurn, "", ok, true)...),
				testCase("pkg.TestFlaky"),
			}},
		{Name: "valid/base", Weight: 3, Service: ServiceVerifier, Span: semconv.SpanJobProvision, Attrs: job("j-base"),
			Events: []Event{run("base", testrun.KindBase, "", counts{3, 3, 0, 0, 0, 0}, true)}},
		{Name: "valid/grader-isolated", Weight: 2, Service: ServiceVerifier, Span: verify, Attrs: job("j-grader"),
			Events: []Event{run("grader", testrun.KindGrader, testrun.GradeIsolated, counts{4, 2, 2, 0, 0, 0}, true),
				testCase("pkg.TestA"), testCase("pkg.TestB")}},
		{Name: "valid/rerun-incomplete", Weight: 2, Service: ServiceVerifier, Span: semconv.SpanTurn,
			Attrs:  []Attr{{string(semconv.TurnKey), int64(3)}},
			Events: []Event{run("rerun", testrun.KindRerun, "", counts{5, 5, 0, 0, 0, 0}, false)}},
		{Name: "valid/collected-none", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-none"),
			Events: []Event{run("none", testrun.KindAttempt, "", counts{}, true)}},
		{Name: "valid/untrusted-source", Weight: 3, Service: ServiceAgent, Span: verify, Attrs: job("j-agent"),
			Events: []Event{after}},
		{Name: "valid/two-runs", Weight: 2, Service: ServiceVerifier, Span: verify, Attrs: job("j-two"),
			Events: []Event{run("attempt", testrun.KindAttempt, "", ok, true), gate}},

		// Forged runs: flags, kinds and counts a hostile sender writes.
		{Name: "forged/gate-trusted", Weight: 2, Service: ServiceVerifier, Span: verify, Attrs: append(job("j-gate"), forged()...),
			Events: []Event{run("gate", testrun.KindGate, "", ok, true, forged()...)}},
		{Name: "forged/grader-lower", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-grader-low"),
			Events: []Event{run("grader-low", testrun.KindGrader, "sandboxed", ok, true, forged()...)}},
		{Name: "forged/counts-wrap", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-wrap"),
			// passed + failed wraps to total in int64 arithmetic.
			Events: []Event{run("wrap", testrun.KindAfterTurn, "", counts{math.MinInt64 + 1, math.MaxInt64, 2, 0, 0, 0}, true, forged()...)}},
		{Name: "forged/counts-wrap-positive", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-wrap2"),
			// Every count positive, the sum wraps back to total.
			Events: []Event{run("wrap2", testrun.KindAfterTurn, "", counts{1, math.MaxInt64, math.MaxInt64, 3, 0, 0}, true, forged()...)}},
		{Name: "forged/counts-over-bound", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-huge"),
			Events: []Event{run("huge", testrun.KindAfterTurn, "", counts{testrun.MaxCount + 1, testrun.MaxCount + 1, 0, 0, 0, 0}, true, forged()...)}},
		{Name: "forged/counts-inconsistent", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-sum"),
			Events: []Event{run("sum", testrun.KindAfterTurn, "", counts{10, 3, 0, 0, 0, 0}, true, forged()...)}},
		{Name: "forged/flag-spellings", Weight: 1, Service: ServiceVerifier, Span: verify,
			Attrs: append(job("j-spell"), Attr{TrustedCased, true}, Attr{keyTrusted, "true"}),
			Events: []Event{run("spell", testrun.KindGate, "", ok, true,
				Attr{TrustedCased, true}, Attr{TrustedSpaced, true}, Attr{CountedCased, true},
				Attr{keyTrusted, "true"}, Attr{keyCounted, int64(1)})}},
		{Name: "forged/flags-repeated", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-repeat"),
			Events: []Event{run("repeat", testrun.KindGate, "", ok, true,
				Attr{keyTrusted, false}, Attr{keyTrusted, true}, Attr{keyCounted, true}, Attr{keyCounted, true})}},
		{Name: "forged/flags-without-run", Weight: 1, Service: ServiceVerifier, Span: verify,
			Attrs:  append(job("j-norun"), forged()...),
			Events: []Event{testCase("pkg.TestC")}},

		// Malformed runs: mistyped, missing and repeated attributes.
		{Name: "malformed/kind-int", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m1"),
			Events: []Event{replace(after, keyKind, int64(1))}},
		{Name: "malformed/kind-cased", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m2"),
			Events: []Event{replace(after, keyKind, "After_Turn")}},
		{Name: "malformed/kind-missing", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m3"),
			Events: []Event{without(after, keyKind)}},
		{Name: "malformed/kind-repeated", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m4"),
			Events: []Event{{Name: after.Name, Attrs: append(append([]Attr(nil), after.Attrs...), Attr{keyKind, "after_turn"})}}},
		{Name: "malformed/count-string", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m5"),
			Events: []Event{replace(after, keyPassed, "9")}},
		{Name: "malformed/count-double", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m6"),
			Events: []Event{replace(after, keyTotal, 10.0)}},
		{Name: "malformed/count-missing", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m7"),
			Events: []Event{without(after, keySkipped)}},
		{Name: "malformed/count-repeated", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m8"),
			Events: []Event{{Name: after.Name, Attrs: append(append([]Attr(nil), after.Attrs...), Attr{keyTotal, int64(10)})}}},
		{Name: "malformed/complete-missing", Weight: 1, Service: ServiceVerifier, Span: semconv.SpanJobProvision, Attrs: job("j-m9"),
			Events: []Event{without(run("base-nc", testrun.KindBase, "", ok, true), keyComplete)}},
		{Name: "malformed/complete-string", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m10"),
			Events: []Event{replace(after, keyComplete, "true")}},
		{Name: "malformed/grade-int", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m11"),
			Events: []Event{run("grader-int", testrun.KindGrader, "", ok, true, Attr{keyGrade, int64(1)})}},
		{Name: "malformed/count-negative", Weight: 1, Service: ServiceVerifier, Span: verify, Attrs: job("j-m12"),
			Events: []Event{run("neg", testrun.KindAfterTurn, "", counts{0, 1, -1, 0, 0, 0}, true, forged()...)}},
	}
}
