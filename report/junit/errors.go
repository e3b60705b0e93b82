package junit

import (
	"errors"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
)

// SyntaxError is a report that is not well-formed XML or that the reader
// refuses, at a line of a file. It is the same type as report.SyntaxError.
type SyntaxError = xmlsafe.SyntaxError

// ErrNotJUnit is returned for a well-formed document whose root element is
// not one IsRoot accepts (<testsuites>, <testsuite>, Eclipse's <testrun>).
var ErrNotJUnit = errors.New("junit: not a JUnit report")

// ErrStructure is returned for a JUnit document whose elements are nested
// in a way no runner writes (a <testcase> inside a <testcase>).
var ErrStructure = errors.New("junit: malformed report structure")
