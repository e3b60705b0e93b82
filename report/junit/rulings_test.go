package junit

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// producers holds reports made the way their producers make them.
var producers = filepath.Join("..", "..", "testdata", "producers")

func parseFile(t *testing.T, path string) ([]exec, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	return parseExecs(t, string(data))
}

// TestDidNotRunWins checks that a testcase whose status or result attribute
// says it did not run (in any case) is skipped, as if it carried <skipped>:
// so also when it carries a <failure> or an <error>.
func TestDidNotRunWins(t *testing.T) {
	doc := `<testsuite name="S">
		<testcase name="disabled failing" status="disabled"><failure type="Test Failure">Assert: Boolean true check failed.</failure></testcase>
		<testcase name="disabled erroring" status="Disabled"><error/></testcase>
		<testcase name="notrun" status="NOTRUN"><failure message="x"/><error message="y"/></testcase>
		<testcase name="not run" status="not run"><error message="y"/></testcase>
		<testcase name="skipped result" status="run" result="skipped"><failure/></testcase>
		<testcase name="suppressed" status="notrun" result="suppressed"/>
		<testcase name="failed then not run" status="failed" result="skipped"/>
		<testcase name="ran and failed" status="run"><failure message="f"/></testcase>
		<testcase name="status failed" status="failed"/>
		<testcase name="status errored" status="errored"><failure message="f"/></testcase>
		<testcase name="ignored" ignored="true"><failure message="f"/></testcase>
		<testcase name="incomplete" incomplete="TRUE"/>
		<testcase name="not ignored" ignored="false"><failure message="f"/></testcase>
		</testsuite>`
	got, _ := parseExecs(t, doc)
	want := []exec{
		{"disabled failing", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"disabled erroring", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"notrun", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"not run", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"skipped result", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"suppressed", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"failed then not run", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"ran and failed", "r.xml#1", testrun.OutcomeFailed, "f", false},
		{"status failed", "r.xml#1", testrun.OutcomeFailed, "", false},
		{"status errored", "r.xml#1", testrun.OutcomeError, "f", false},
		{"ignored", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"incomplete", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"not ignored", "r.xml#1", testrun.OutcomeFailed, "f", false},
	}
	assert.Equal(t, want, got)
}

// TestTSTReports reads a report in the shape TST writes (status on every
// testcase, single-quoted attributes) and one in the shape the ruling on a
// disabled test that carries a failure names.
func TestTSTReports(t *testing.T) {
	got, _ := parseFile(t, filepath.Join(producers, "tst", "junit.xml"))
	assert.Equal(t, []exec{
		{"disabled_until_bignum", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"negative_argument_throws", "r.xml#1", testrun.OutcomeFailed, "factorial.cpp:31: check_eq(-1, -1) failed: expected exception", false},
		{"positive_arguments[0]", "r.xml#1", testrun.OutcomePassed, "", false},
		{"positive_arguments[1]", "r.xml#1", testrun.OutcomePassed, "", false},
		{"empty_input", "r.xml#2", testrun.OutcomeError, "uncaught exception: std::out_of_range: vector::_M_range_check", false},
		{"legacy_syntax", "r.xml#2", testrun.OutcomeSkipped, "", false},
		{"unicode_input", "r.xml#2", testrun.OutcomeSkipped, "not run: test name filter", false},
	}, got)

	got, _ = parseFile(t, filepath.Join(producers, "tst", "disabled-with-failure.xml"))
	assert.Equal(t, []exec{
		{"MiscTests - OS X::testSmemArithmetic", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"MiscTests - OS X::testSmemCrash", "r.xml#1", testrun.OutcomeSkipped, "", false},
		{"MiscTests - OS X::testSmemBounds", "r.xml#1", testrun.OutcomeFailed, "Assert: index 9 out of bounds.", false},
	}, got)
}

// TestEclipseExport reads the export of Eclipse's JUnit view: a <testrun>
// root read like <testsuites>, an ignored="true" test skipped, the trace of
// a <failure> kept without its <expected> and <actual> children.
func TestEclipseExport(t *testing.T) {
	got, dialect := parseFile(t, filepath.Join(producers, "eclipse", "export.xml"))
	assert.Equal(t, DialectEclipse, dialect)
	require.Len(t, got, 8)
	const c, n = "calc.CalcTest", "calc.CalcTest$NestedTest"
	outcomes := map[string]testrun.Outcome{}
	for _, e := range got {
		outcomes[e.id] = e.out
	}
	assert.Equal(t, map[string]testrun.Outcome{
		c + "::adds":                     testrun.OutcomePassed,
		c + "::failsWithMessage":         testrun.OutcomeFailed,
		c + "::leaksFakeSecrets":         testrun.OutcomeFailed,
		c + "::throwsOutsideAnAssertion": testrun.OutcomeError,
		c + "::skipped":                  testrun.OutcomeSkipped,
		c + "::größe_名前":                 testrun.OutcomePassed,
		n + "::failsInNested":            testrun.OutcomeFailed,
		n + "::passesInNested":           testrun.OutcomePassed,
	}, outcomes)
	assert.Equal(t, "r.xml#1", got[0].scope)
	assert.Equal(t, "r.xml#2", got[6].scope)
	assert.True(t, strings.HasPrefix(got[6].msg, "org.junit.ComparisonFailure: nested comparison expected:<[1, [3]]>"), got[6].msg)
	assert.NotContains(t, got[6].msg, "[1, 2]\n", "the <actual> child is not part of the message")
}

// TestDTDAttributeDefaultNotApplied checks that an attribute default
// declared in a report's internal DTD subset is not applied: the testcase
// keeps the classname it was written with (none).
func TestDTDAttributeDefaultNotApplied(t *testing.T) {
	got, _ := parseFile(t, filepath.Join("..", "testdata", "hostile", "internal-subset.xml"))
	assert.Equal(t, []exec{{"t", "r.xml#1", testrun.OutcomePassed, "", false}}, got)

	got, _ = parseExecs(t, `<?xml version="1.0"?>
<!DOCTYPE testsuites [
  <!ELEMENT testsuites (testsuite*)>
  <!ATTLIST testcase classname CDATA "injected" status CDATA "disabled">
  <!ATTLIST failure message CDATA "injected">
]>
<testsuites><testsuite name="s"><testcase name="t"><failure/></testcase></testsuite></testsuites>`)
	assert.Equal(t, []exec{{"t", "r.xml#1", testrun.OutcomeFailed, "", false}}, got)
}
