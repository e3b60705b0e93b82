// Package xmlbaseline holds the encoding/xml baseline the JUnit benchmarks
// compare against: the plain structs a typical JUnit reader declares and
// hands to xml.Unmarshal. It is for tests and benchmarks only.
package xmlbaseline

// Suites is the document root, <testsuites>.
type Suites struct {
	Suites []Suite `xml:"testsuite"`
}

// Suite is one <testsuite>, which may nest others.
type Suite struct {
	Name       string     `xml:"name,attr"`
	Properties []Property `xml:"properties>property"`
	Cases      []Case     `xml:"testcase"`
	SystemOut  string     `xml:"system-out"`
	Suites     []Suite    `xml:"testsuite"`
}

// Property is one <property> of a suite.
type Property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// Case is one <testcase>.
type Case struct {
	Classname string  `xml:"classname,attr"`
	Name      string  `xml:"name,attr"`
	Time      string  `xml:"time,attr"`
	Failure   *Result `xml:"failure"`
	Error     *Result `xml:"error"`
	Skipped   *Result `xml:"skipped"`
	SystemOut string  `xml:"system-out"`
}

// Result is a case's <failure>, <error> or <skipped>.
type Result struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Body    string `xml:",chardata"`
}

// CountCases returns the number of cases in ss and the suites they nest.
func CountCases(ss []Suite) int {
	n := 0
	for i := range ss {
		n += len(ss[i].Cases) + CountCases(ss[i].Suites)
	}
	return n
}
