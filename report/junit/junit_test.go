package junit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

type exec struct {
	id, scope string
	out       testrun.Outcome
	msg       string
	flaky     bool
}

func parseExecs(t *testing.T, doc string, opts ...Option) ([]exec, string) {
	t.Helper()
	rep, err := Parse(strings.NewReader(doc), "r.xml", opts...)
	require.NoError(t, err)
	var got []exec
	for _, e := range rep.Executions {
		got = append(got, exec{e.ID, e.Scope, e.Outcome, e.Message, e.RunnerFlaky})
	}
	return got, rep.Dialect
}

func TestOutcomes(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []exec
	}{
		{
			name: "ids, message attribute then body, skipped",
			doc: `<testsuites><testsuite name="S">
				<testcase classname="pkg.C" name="ok"/>
				<testcase classname="pkg.C" name="f"><failure message="boom">trace</failure></testcase>
				<testcase classname="pkg.C" name="e"><error><![CDATA[  panic: x  ]]></error></testcase>
				<testcase classname="pkg.C" name="s"><skipped message="later"/></testcase>
				<testcase name="noclass"/>
				<testcase class="PhpClass" name="m"/>
				<testcase classname="pkg" name="TestX"><failure message="Failed"><![CDATA[x_test.go:9: want 1, got 2]]></failure></testcase>
				<testcase classname="pkg" name="TestY"><failure message="want 1">want 1, got 2</failure></testcase>
				<testcase classname="" name=""/>
				<testcase/>
				</testsuite></testsuites>`,
			want: []exec{
				{"pkg.C::ok", "r.xml#1", testrun.OutcomePassed, "", false},
				{"pkg.C::f", "r.xml#1", testrun.OutcomeFailed, "boom\ntrace", false},
				{"pkg.C::e", "r.xml#1", testrun.OutcomeError, "panic: x", false},
				{"pkg.C::s", "r.xml#1", testrun.OutcomeSkipped, "later", false},
				{"noclass", "r.xml#1", testrun.OutcomePassed, "", false},
				{"PhpClass::m", "r.xml#1", testrun.OutcomePassed, "", false},
				{"pkg::TestX", "r.xml#1", testrun.OutcomeFailed, "Failed\nx_test.go:9: want 1, got 2", false},
				{"pkg::TestY", "r.xml#1", testrun.OutcomeFailed, "want 1, got 2", false},
				{"S::#9", "r.xml#1", testrun.OutcomePassed, "", false},
				{"S::#10", "r.xml#1", testrun.OutcomePassed, "", false},
			},
		},
		{
			name: "several results: the worst wins",
			doc: `<testsuite name="S"><testcase classname="c" name="t">
				<failure message="f"/><error message="e"/></testcase></testsuite>`,
			want: []exec{{"c::t", "r.xml#1", testrun.OutcomeError, "e", false}},
		},
		{
			name: "skipped wins over a failure, not over an error",
			doc: `<testsuite name="S"><testcase classname="c" name="t">
				<skipped/><failure message="f"/><error message="e"/></testcase>
				<testcase classname="c" name="after"><failure message="f"/><skipped message="later"/></testcase>
				<testcase classname="c" name="teardown"><skipped message="skip"/><error message="failed on teardown"/></testcase></testsuite>`,
			want: []exec{
				{"c::t", "r.xml#1", testrun.OutcomeError, "e", false},
				{"c::after", "r.xml#1", testrun.OutcomeSkipped, "later", false},
				{"c::teardown", "r.xml#1", testrun.OutcomeError, "failed on teardown", false},
			},
		},
		{
			name: "a suite states failures or errors its cases do not show",
			doc: `<testsuites><testsuite name="karma" tests="2" failures="0" errors="1">
				<testcase classname="a" name="one"/><testcase classname="a" name="two"/></testsuite>
				<testsuite name="agree" failures="1" errors="0"><testcase classname="b" name="f"><failure message="x"/></testcase></testsuite>
				<testsuite name="nested" failures="3"><testsuite name="inner" failures="1"><testcase classname="c" name="f"><failure message="y"/></testcase></testsuite></testsuite>
				<testsuite name="outer" failures="1"><testsuite name="quiet" errors="1"><testcase classname="e" name="p"/></testsuite></testsuite>
				<testsuite name="junk" failures="many" errors="-1"><testcase classname="d" name="p"/></testsuite></testsuites>`,
			want: []exec{
				{"a::one", "r.xml#1", testrun.OutcomePassed, "", false},
				{"a::two", "r.xml#1", testrun.OutcomePassed, "", false},
				{"karma::" + SuiteErrorName, "r.xml#1", testrun.OutcomeError, "the suite's failures and errors attributes count 1; none of its test cases shows one", false},
				{"b::f", "r.xml#2", testrun.OutcomeFailed, "x", false},
				{"c::f", "r.xml#4", testrun.OutcomeFailed, "y", false},
				{"e::p", "r.xml#6", testrun.OutcomePassed, "", false},
				{"quiet::" + SuiteErrorName, "r.xml#6", testrun.OutcomeError, "the suite's failures and errors attributes count 1; none of its test cases shows one", false},
				{"d::p", "r.xml#7", testrun.OutcomePassed, "", false},
			},
		},
		{
			name: "an error in the root, outside any suite",
			doc:  `<testsuites><error message="boom">trace</error><testsuite name="S"><testcase classname="c" name="t"/></testsuite></testsuites>`,
			want: []exec{
				{SuiteErrorName, "r.xml#0", testrun.OutcomeError, "boom\ntrace", false},
				{"c::t", "r.xml#1", testrun.OutcomePassed, "", false},
			},
		},
		{
			name: "statuses that say a test did not end well",
			doc: `<testsuite name="S"><testcase classname="c" name="a" status="timeout"/><testcase classname="c" name="b" result="CRASHED"/>
				<testcase classname="c" name="d" status="failing"/><testcase classname="c" name="e" status="broken"/></testsuite>`,
			want: []exec{
				{"c::a", "r.xml#1", testrun.OutcomeError, "", false},
				{"c::b", "r.xml#1", testrun.OutcomeError, "", false},
				{"c::d", "r.xml#1", testrun.OutcomeFailed, "", false},
				{"c::e", "r.xml#1", testrun.OutcomeError, "", false},
			},
		},
		{
			name: "node:test failing todo is skipped",
			doc: `<testsuites><testsuite name="todo"><testcase name="not yet" time="0.001" classname="test">
				<skipped type="todo" message="TODO"/>
				<failure type="testCodeFailure" message="boom">[Error [ERR_TEST_FAILURE]: boom]</failure>
				</testcase></testsuite></testsuites>`,
			want: []exec{{"test::not yet", "r.xml#1", testrun.OutcomeSkipped, "TODO", false}},
		},
		{
			name: "surefire flaky and rerun",
			doc: `<testsuite name="S">
				<testcase classname="c" name="flaky"><flakyFailure message="first try"><stackTrace>st</stackTrace></flakyFailure></testcase>
				<testcase classname="c" name="flakyerr"><flakyError><stackTrace>boom</stackTrace><system-out>noise</system-out></flakyError></testcase>
				<testcase classname="c" name="always"><rerunFailure message="r1"/><rerunFailure message="r2"/><failure message="main"/></testcase>
				<testcase classname="c" name="rerunerr"><rerunError message="x"/></testcase>
				</testsuite>`,
			want: []exec{
				{"c::flaky", "r.xml#1", testrun.OutcomePassed, "first try", true},
				{"c::flakyerr", "r.xml#1", testrun.OutcomePassed, "boom", true},
				{"c::always", "r.xml#1", testrun.OutcomeFailed, "main", false},
				{"c::rerunerr", "r.xml#1", testrun.OutcomeError, "x", false},
			},
		},
		{
			name: "nextest fails flaky tests when configured to",
			doc: `<testsuites name="nextest-run"><testsuite name="crate"><testcase name="t" classname="crate">
				<failure message="passed on attempt 4/4 but is configured to fail when flaky"/>
				<flakyFailure>earlier</flakyFailure></testcase></testsuite></testsuites>`,
			want: []exec{{"crate::t", "r.xml#1", testrun.OutcomeFailed, "passed on attempt 4/4 but is configured to fail when flaky", true}},
		},
		{
			name: "status attributes",
			doc: `<testsuite name="S">
				<testcase name="d" status="disabled"/><testcase name="n" status="notrun"/>
				<testcase name="r" status="run"/><testcase name="g" result="skipped"/>
				<testcase name="f" status="failed"/></testsuite>`,
			want: []exec{
				{"d", "r.xml#1", testrun.OutcomeSkipped, "", false},
				{"n", "r.xml#1", testrun.OutcomeSkipped, "", false},
				{"r", "r.xml#1", testrun.OutcomePassed, "", false},
				{"g", "r.xml#1", testrun.OutcomeSkipped, "", false},
				{"f", "r.xml#1", testrun.OutcomeFailed, "", false},
			},
		},
		{
			name: "retries share a scope, other suites do not, nested suites are read",
			doc: `<testsuites>
				<testsuite name="A"><testcase classname="c" name="t"><failure/></testcase><testcase classname="c" name="t"/></testsuite>
				<testsuite name="B"><testsuite name="B1"><testsuite name="B2"><testcase classname="c" name="t"/></testsuite></testsuite>
				<testcase classname="c" name="u"/></testsuite>
				<testcase name="loose"/>
				</testsuites>`,
			want: []exec{
				{"c::t", "r.xml#1", testrun.OutcomeFailed, "", false},
				{"c::t", "r.xml#1", testrun.OutcomePassed, "", false},
				{"c::t", "r.xml#4", testrun.OutcomePassed, "", false},
				{"c::u", "r.xml#2", testrun.OutcomePassed, "", false},
				{"loose", "r.xml#0", testrun.OutcomePassed, "", false},
			},
		},
		{
			name: "an error directly in a suite",
			doc: `<testsuite name="pkg.Broken"><properties/>
				<error message="NoClassDefFoundError" type="java.lang.NoClassDefFoundError">trace</error>
				<system-out/></testsuite>`,
			want: []exec{{"pkg.Broken::" + SuiteErrorName, "r.xml#1", testrun.OutcomeError, "NoClassDefFoundError\ntrace", false}},
		},
		{
			name: "pytest xfail is skipped, strict xpass a failure",
			doc: `<testsuites><testsuite name="pytest">
				<testcase classname="t" name="xf"><skipped type="pytest.xfail" message=""/></testcase>
				<testcase classname="t" name="xp"><failure message="[XPASS(strict)] reason"/></testcase>
				</testsuite></testsuites>`,
			want: []exec{
				{"t::xf", "r.xml#1", testrun.OutcomeSkipped, "", false},
				{"t::xp", "r.xml#1", testrun.OutcomeFailed, "[XPASS(strict)] reason", false},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := parseExecs(t, tt.doc)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestMessageBounded(t *testing.T) {
	long := strings.Repeat("é", 100_000)
	got, _ := parseExecs(t, `<testsuite name="s"><testcase name="t"><failure>`+long+`</failure><system-out>`+long+`</system-out></testcase></testsuite>`, WithMaxMessage(1001))
	require.Len(t, got, 1)
	assert.Len(t, got[0].msg, 1000, "cut on a rune boundary")
	assert.True(t, strings.HasPrefix(long, got[0].msg))
}

func TestNestedTestcaseRefused(t *testing.T) {
	_, err := Parse(strings.NewReader(`<testsuite><testcase name="a"><testcase name="b"/></testcase></testsuite>`), "r.xml")
	assert.ErrorIs(t, err, ErrStructure)
	var se *SyntaxError
	assert.ErrorAs(t, err, &se)
}

func TestNotJUnit(t *testing.T) {
	_, err := Parse(strings.NewReader(`<project><modelVersion>4.0.0</modelVersion></project>`), "pom.xml")
	assert.ErrorIs(t, err, ErrNotJUnit)
}

func TestCasesLimit(t *testing.T) {
	doc := `<testsuite>` + strings.Repeat(`<testcase name="t"/>`, 11) + `</testsuite>`
	rep, err := Parse(strings.NewReader(doc), "r.xml", WithLimits(Limits{MaxCases: 10}))
	var le *xmlsafe.LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, xmlsafe.LimitCases, le.Limit)
	assert.Empty(t, rep.Executions, "a report is read whole or not at all")
}

func TestDialects(t *testing.T) {
	tests := map[string]string{
		`<testsuites name="jest tests"><testsuite name="a"/></testsuites>`:                                                                                             DialectJestJUnit,
		`<testsuites name="vitest tests"><testsuite name="a"/></testsuites>`:                                                                                           DialectVitest,
		`<testsuite name="Mocha Tests"/>`:                                                                                                                              DialectMochaXunit,
		`<testsuites name="Mocha Tests"><testsuite name="Root Suite" file="cypress/e2e/a.cy.js"/></testsuites>`:                                                        DialectCypress,
		`<testsuites><testsuite name="pytest"><testcase classname="a" name="b" file="a.py" line="1"/></testsuite></testsuites>`:                                        DialectPytestXunit1,
		`<testsuites><testsuite name="pytest"><testcase classname="a" name="b"/></testsuite></testsuites>`:                                                             DialectPytestXunit2,
		`<testsuites><testsuite name="p"><properties><property name="go.version" value="go1.22"/></properties></testsuite></testsuites>`:                               DialectGotestsum,
		`<testsuites><testsuite name="p" id="0"><properties><property name="go.version" value="go1.22"/></properties></testsuite></testsuites>`:                        DialectGoJUnitReport,
		`<testsuite name="C" tests="1" skipped="0" failures="0" errors="0" timestamp="t" hostname="h" time="1"><properties/></testsuite>`:                              DialectGradle,
		`<testsuite xmlns:xsi="x" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report-3.0.xsd" name="C"/>`: DialectSurefire,
		`<testsuites name="nextest-run"><testsuite name="c"/></testsuites>`:                                                                                            DialectNextest,
		`<testsuites><testsuite name="x"/></testsuites>`:                                                                                                               DialectGeneric,
		`<testrun name="calc" project="calc" tests="1" started="1" failures="0" errors="0" ignored="0"><testsuite name="calc.CalcTest"/></testrun>`:                    DialectEclipse,
	}
	for doc, want := range tests {
		_, got := parseExecs(t, doc)
		assert.Equal(t, want, got, doc)
	}
}
