package report_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/report"
)

func ExampleParse() {
	doc := `<testsuites name="jest tests"><testsuite name="math.test.js">
  <testcase classname="math" name="adds"/>
  <testcase classname="math" name="divides"><failure message="expected 2, got Infinity"/></testcase>
</testsuite></testsuites>`
	res, err := report.Parse(strings.NewReader(doc), "junit.xml")
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Info.Dialect, *res.Info.Tests)
	for _, e := range res.Executions {
		fmt.Println(strings.TrimSpace(fmt.Sprint(e.ID, " ", e.Outcome, " ", e.Message)))
	}
	// Output:
	// jest-junit 2
	// math::adds passed
	// math::divides failed expected 2, got Infinity
}

func ExampleParse_hostile() {
	doc := `<!DOCTYPE testsuite [<!ENTITY xxe SYSTEM "file:///etc/passwd">]><testsuite name="&xxe;"/>`
	res, err := report.Parse(strings.NewReader(doc), "junit.xml")
	fmt.Println(errors.Is(err, report.ErrEntity), res.Info.Error)
	// Output:
	// true line 1: entity declaration (<!ENTITY) refused
}
