package junit

import (
	"bytes"
	"strings"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// Dialects, as Report.Dialect names them.
const (
	DialectPytestXunit1  = "pytest-xunit1"
	DialectPytestXunit2  = "pytest-xunit2"
	DialectGotestsum     = "gotestsum"
	DialectGoJUnitReport = "go-junit-report"
	DialectJestJUnit     = "jest-junit"
	DialectVitest        = "vitest"
	DialectMocha         = "mocha"       // mocha-junit-reporter
	DialectMochaXunit    = "mocha-xunit" // mocha's built-in xunit reporter
	DialectCypress       = "cypress"
	DialectKarma         = "karma"
	DialectPlaywright    = "playwright"
	DialectSurefire      = "surefire" // Maven surefire and failsafe
	DialectGradle        = "gradle"
	DialectNextest       = "nextest"
	DialectPHPUnit       = "phpunit"
	DialectCTest         = "ctest"
	DialectBazel         = "bazel"
	DialectXunitNet      = "xunit-net" // .NET loggers (xunit, JunitXml.TestLogger)
	DialectAnt           = "ant"
	DialectEclipse       = "eclipse" // Eclipse's JUnit view export, root <testrun>
	DialectGeneric       = "junit"
)

// goJUnitReportAttrs is the order in which go-junit-report v2 writes a
// suite's first attributes.
var goJUnitReportAttrs = []string{"name", "tests", "failures", "errors", "id", "hostname"}

// gradleAttrs is the order in which Gradle writes a suite's attributes.
var gradleAttrs = []string{"name", "tests", "skipped", "failures", "errors", "timestamp", "hostname", "time"}

// detector gathers the few facts that tell dialects apart while the report
// streams by. Detection is informational: one parser reads every dialect.
type detector struct {
	rootSuite   bool // the root is a bare <testsuite>
	rootTestrun bool // the root is Eclipse's <testrun>
	rootName    string
	rootID      bool
	rootUUID    bool
	suiteAttrs  []string // attribute names of the first suite, in order
	suiteName   string
	suiteHost   bool
	suiteID     bool
	suitePkg    bool
	suiteDisabl bool
	dotnet      bool
	cypress     bool
	surefire    bool
	goVersion   bool
	javaProps   bool
	caseFile    bool
	caseClass   bool
	caseNoClass bool
	caseStatus  bool
	caseDur     bool
	assertions  bool
	retries     bool
	bazelLog    bool

	wantText  bool
	textDepth int
}

func (d *detector) root(rd *xmlsafe.Reader, tok *xmlsafe.Token, local string) {
	d.rootSuite = local == "testsuite"
	d.rootTestrun = local == "testrun"
	for i := range tok.Attrs {
		a := &tok.Attrs[i]
		switch string(tok.AttrName(a)) {
		case "name":
			d.rootName = rd.String(a)
		case "id":
			d.rootID = true
		case "uuid":
			d.rootUUID = true
		}
	}
}

func (d *detector) suite(rd *xmlsafe.Reader, tok *xmlsafe.Token, n int) {
	for i := range tok.Attrs {
		a := &tok.Attrs[i]
		if n == 1 {
			d.suiteAttrs = append(d.suiteAttrs, string(tok.AttrName(a)))
		}
		switch string(tok.AttrName(a)) {
		case "name":
			v := rd.Value(a)
			if n == 1 {
				d.suiteName = string(v)
			}
			if bytes.HasSuffix(v, []byte(".dll")) {
				d.dotnet = true
			}
		case "package":
			d.suitePkg = true
			if bytes.HasSuffix(rd.Value(a), []byte(".dll")) {
				d.dotnet = true
			}
		case "hostname":
			d.suiteHost = true
		case "id":
			d.suiteID = true
		case "disabled":
			d.suiteDisabl = true
		case "file":
			v := rd.Value(a)
			if bytes.HasPrefix(v, []byte("cypress/")) || bytes.Contains(v, []byte("/cypress/")) {
				d.cypress = true
			}
		case "xsi:noNamespaceSchemaLocation":
			if bytes.Contains(rd.Value(a), []byte("surefire")) {
				d.surefire = true
			}
		case "assertions":
			d.assertions = true
		}
	}
}

func (d *detector) property(rd *xmlsafe.Reader, tok *xmlsafe.Token) {
	a, ok := tok.Attr("name")
	if !ok {
		return
	}
	name := rd.Value(a)
	switch {
	case string(name) == "go.version":
		d.goVersion = true
	case bytes.HasPrefix(name, []byte("surefire.")):
		d.surefire = true
	case bytes.HasPrefix(name, []byte("java.")):
		d.javaProps = true
	}
	if v, ok := tok.Attr("value"); ok && bytes.Contains(rd.Value(v), []byte("xUnit.net")) {
		d.dotnet = true
	}
}

func (d *detector) testcase(tok *xmlsafe.Token) {
	hasClass := false
	for i := range tok.Attrs {
		switch string(tok.AttrName(&tok.Attrs[i])) {
		case "file", "line":
			d.caseFile = true
		case "class":
			d.caseClass = true
		case "classname":
			hasClass = true
		case "status":
			d.caseStatus = true
		case "duration":
			d.caseDur = true
		case "assertions":
			d.assertions = true
		}
	}
	if !hasClass {
		d.caseNoClass = true
	}
}

func (d *detector) resultElement(k int) {
	if k == rFlakyFailure || k == rFlakyError || k == rRerunFailure || k == rRerunError {
		d.retries = true
	}
}

func (d *detector) bazelCandidate() bool { return d.caseStatus && !d.bazelLog }

// text sees the start of a suite's <system-out> while bazelCandidate.
func (d *detector) text(rd *xmlsafe.Reader, tok *xmlsafe.Token) {
	var buf [64]byte
	t := strings.TrimSpace(string(rd.AppendText(buf[:0], tok, len(buf))))
	if strings.HasPrefix(t, "Generated test.log") {
		d.bazelLog = true
	}
	if t != "" {
		d.wantText = false
	}
}

func alphabetical(names []string) bool {
	if len(names) < 3 {
		return false
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			return false
		}
	}
	return true
}

func hasPrefix(names, prefix []string) bool {
	if len(names) < len(prefix) {
		return false
	}
	for i := range prefix {
		if names[i] != prefix[i] {
			return false
		}
	}
	return true
}

// dialect names the runner from what was seen, most specific signs first.
// zeroBasedLines reports whether the report's testcase line attributes
// count from 0: pytest writes the 0-based line of the test's def (its
// item.location), known from the root or first suite before any case.
func (d *detector) zeroBasedLines() bool {
	return d.suiteName == "pytest" || d.rootName == "pytest"
}

//nolint:gocyclo // one ordered table of dialect tests, read top to bottom as docs/reference.md lists them; splitting it scatters the order
func (d *detector) dialect() string {
	switch {
	case d.rootTestrun:
		return DialectEclipse
	case d.rootName == "jest tests":
		return DialectJestJUnit
	case d.rootName == "vitest tests":
		return DialectVitest
	case d.rootName == "nextest-run" || d.rootUUID:
		return DialectNextest
	case d.rootName == "Mocha Tests" && d.rootSuite:
		return DialectMochaXunit
	case d.rootName == "Mocha Tests" && d.cypress:
		return DialectCypress
	case d.rootName == "Mocha Tests":
		return DialectMocha
	case d.goVersion && d.suiteID:
		return DialectGoJUnitReport
	case d.goVersion:
		return DialectGotestsum
	case hasPrefix(d.suiteAttrs, goJUnitReportAttrs):
		return DialectGoJUnitReport
	case d.suiteName == "pytest" || d.rootName == "pytest":
		if d.caseFile {
			return DialectPytestXunit1
		}
		return DialectPytestXunit2
	case d.surefire:
		return DialectSurefire
	case d.dotnet:
		return DialectXunitNet
	case !d.rootSuite && d.rootID && d.suiteHost && !d.suitePkg:
		return DialectPlaywright
	case d.assertions && (d.caseFile || d.caseClass):
		return DialectPHPUnit
	case d.rootSuite && d.suiteDisabl && d.caseStatus:
		return DialectCTest
	case d.bazelLog || (d.caseStatus && d.caseDur):
		return DialectBazel
	case hasPrefix(d.suiteAttrs, gradleAttrs):
		return DialectGradle
	case d.suiteID && d.suitePkg && d.suiteHost:
		if alphabetical(d.suiteAttrs) {
			return DialectAnt
		}
		return DialectKarma
	case d.rootSuite && alphabetical(d.suiteAttrs) && (d.javaProps || d.caseNoClass):
		return DialectAnt
	case d.retries && d.rootSuite:
		return DialectSurefire
	case d.retries:
		return DialectNextest
	case d.rootSuite && d.javaProps:
		return DialectSurefire
	}
	return DialectGeneric
}
