package gotestjson_test

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/report/junit"
	"github.com/hangar-dev/testresults/testrun"
)

// reports is the folder of the real reports: go test -json and gotestsum
// run on testdata/projects/gotestjson (see its COMMAND file).
var reports = filepath.Join("..", "..", "testdata", "runners", "gotestjson", "reports")

func readReport(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(reports, name))
	require.NoError(t, err)
	return data
}

// runOf builds the run a go test -json stream gives.
func runOf(t *testing.T, name string) *testrun.Run {
	t.Helper()
	rep, err := gotestjson.Parse(bytes.NewReader(readReport(t, name)), name)
	require.NoError(t, err)
	b := testrun.NewBuilder()
	n := rep.Len()
	b.AddReport(testrun.ReportInfo{Path: name, Dialect: gotestjson.Dialect, Tests: &n}, rep.Executions, nil)
	return b.Build()
}

// junitRunOf builds the run a JUnit report gives.
func junitRunOf(t *testing.T, name string) *testrun.Run {
	t.Helper()
	rep, err := junit.Parse(bytes.NewReader(readReport(t, name)), name)
	require.NoError(t, err)
	b := testrun.NewBuilder()
	n := rep.Len()
	b.AddReport(testrun.ReportInfo{Path: name, Dialect: rep.Dialect, Tests: &n}, rep.Executions, nil)
	return b.Build()
}

// TestRealReports: the streams the real toolchain wrote read to the counts
// its COMMAND file states, with the ids gotestsum's JUnit gives the same
// tests, and the messages the tests wrote.
func TestRealReports(t *testing.T) {
	count1 := testrun.Counts{Total: 29, Passed: 18, Failed: 6, Errors: 3, Skipped: 2}
	count2 := testrun.Counts{Total: 29, Passed: 19, Failed: 5, Errors: 3, Skipped: 2, Flaky: 1}
	timeout := testrun.Counts{Total: 4, Passed: 1, Failed: 2, Errors: 1}
	tests := []struct {
		file  string
		want  testrun.Counts
		flaky []string
	}{
		{"go-test.json", count1, nil},
		{"gotestsum.json", count1, nil},
		{"go-test-count2.json", count2, []string{"example.com/gotestjson/count::TestFailsFirst"}},
		{"gotestsum-count2.json", count2, []string{"example.com/gotestjson/count::TestFailsFirst"}},
		{"go-test-timeout.json", timeout, nil},
		{"gotestsum-timeout.json", timeout, nil},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			run := runOf(t, tt.file)
			require.NotNil(t, run.Counts)
			assert.Equal(t, tt.want, *run.Counts)
			assert.True(t, run.Complete, "%q", run.IncompleteReasons)
			assert.Equal(t, tt.flaky, run.Flaky)
		})
	}

	run := runOf(t, "go-test.json")
	msg := map[string]string{}
	for _, f := range run.Failures {
		msg[f.ID] = f.Message
	}
	for id, want := range map[string]string{
		"example.com/gotestjson/fail::TestTotal":                    "fail_test.go:9: total mismatch: want 5 got 4\n    fail_test.go:11: logged after the failure",
		"example.com/gotestjson/sub::TestOuter/nested/deeper_fails": "sub_test.go:12: nested comparison: [1 2] != [1 3]",
		"example.com/gotestjson/sub::TestOuter":                     "--- FAIL: TestOuter (0.00s)",
		"example.com/gotestjson/mainexit::<package failed>":         "teardown: could not remove the database",
	} {
		assert.Equal(t, want, msg[id], id)
	}
	assert.True(t, strings.HasPrefix(msg["example.com/gotestjson/panics::TestPanics"], "panic: assignment to entry in nil map"), msg["example.com/gotestjson/panics::TestPanics"])
	assert.True(t, strings.HasPrefix(msg["example.com/gotestjson/initpanic::<package failed>"], "panic: init: configuration file missing"))
	assert.Contains(t, msg["example.com/gotestjson/nobuild::<build failed>"], `nobuild_test.go:6:14: cannot use "not a number"`)
	assert.Equal(t, testrun.OutcomeError, run.Cases["example.com/gotestjson/nobuild::<build failed>"])
	assert.Equal(t, testrun.OutcomeSkipped, run.Cases["example.com/gotestjson/sub::TestOuter/skipped"])
	assert.NotContains(t, run.Cases, "example.com/gotestjson/panics::TestAfterPanic", "a test after a panic never ran")

	hang := runOf(t, "go-test-timeout.json")
	assert.Equal(t, testrun.OutcomeFailed, hang.Cases["example.com/gotestjson/hang::TestHangs/inner"])
	for _, f := range hang.Failures {
		switch f.ID {
		case "example.com/gotestjson/hang::TestHangs/inner":
			assert.True(t, strings.HasPrefix(f.Message, "hang_test.go:18: waiting for a reply that never comes\npanic: test timed out after 3s"), f.Message)
		case "example.com/gotestjson/hang::<package failed>":
			assert.Equal(t, "the test binary ended while these tests ran: TestHangs, TestHangs/inner", f.Message)
		}
	}
}

// TestCountsAreGoTestVerbose: the counts of go-test.json are what go test
// -v itself printed for the same module: its "--- PASS/FAIL/SKIP" lines,
// plus one error per package that printed FAIL with no failing test of
// its own (a build failure, an init panic, a TestMain exit).
func TestCountsAreGoTestVerbose(t *testing.T) {
	var passed, failed, skipped, errs, failsInPkg int
	frame := regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): `)
	summary := regexp.MustCompile(`^(ok|FAIL|\?)\s+\S+`)
	sc := bufio.NewScanner(bytes.NewReader(readReport(t, "go-test-v.txt")))
	for sc.Scan() {
		line := sc.Text()
		if m := frame.FindStringSubmatch(line); m != nil {
			switch m[1] {
			case "PASS":
				passed++
			case "FAIL":
				failed++
				failsInPkg++
			case "SKIP":
				skipped++
			}
			continue
		}
		if m := summary.FindStringSubmatch(line); m != nil {
			if m[1] == "FAIL" && failsInPkg == 0 {
				errs++
			}
			failsInPkg = 0
		}
	}
	require.NoError(t, sc.Err())
	want := testrun.Counts{Total: passed + failed + errs + skipped, Passed: passed, Failed: failed, Errors: errs, Skipped: skipped}
	assert.Equal(t, testrun.Counts{Total: 29, Passed: 18, Failed: 6, Errors: 3, Skipped: 2}, want, "what go test -v printed")
	assert.Equal(t, want, *runOf(t, "go-test.json").Counts)
}

// gotestsumMains lists the packages whose suite in a gotestsum JUnit
// report holds gotestsum's stand-in for a package that failed outside a
// test: a testcase classname="" name="TestMain".
func gotestsumMains(t *testing.T, data []byte) []string {
	t.Helper()
	var doc struct {
		Suites []struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Class string `xml:"classname,attr"`
				Name  string `xml:"name,attr"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	require.NoError(t, xml.Unmarshal(data, &doc))
	var pkgs []string
	for _, s := range doc.Suites {
		for _, c := range s.Cases {
			if c.Class == "" && c.Name == "TestMain" {
				pkgs = append(pkgs, s.Name)
			}
		}
	}
	return pkgs
}

// TestSameAsGotestsumJUnit: gotestsum read one go test -json stream and
// wrote it both as the stream (--jsonfile) and as JUnit; read either way,
// every test has the same id and outcome, and the flaky tests are the
// same. The one difference is a package that failed outside a test:
// gotestsum writes it as a failed "TestMain" (one id for every such
// package), this reader as an error "<package>::<package failed>" or
// "<package>::<build failed>" — the same packages.
func TestSameAsGotestsumJUnit(t *testing.T) {
	for _, base := range []string{"gotestsum", "gotestsum-count2", "gotestsum-timeout"} {
		t.Run(base, func(t *testing.T) {
			fromJSON := runOf(t, base+".json")
			fromXML := junitRunOf(t, base+".xml")
			want := map[string]testrun.Outcome{}
			for id, o := range fromXML.Cases {
				if id != "TestMain" {
					want[id] = o
				}
			}
			got := map[string]testrun.Outcome{}
			var pkgErrors []string
			for id, o := range fromJSON.Cases {
				pkg, name, _ := strings.Cut(id, "::")
				if name == gotestjson.PackageFailedName || name == gotestjson.BuildFailedName {
					assert.Equal(t, testrun.OutcomeError, o, id)
					pkgErrors = append(pkgErrors, pkg)
					continue
				}
				got[id] = o
			}
			assert.Equal(t, want, got)
			assert.Equal(t, testrun.OutcomeFailed, fromXML.Cases["TestMain"])
			assert.ElementsMatch(t, gotestsumMains(t, readReport(t, base+".xml")), pkgErrors)
			assert.NotEmpty(t, pkgErrors)
			assert.Equal(t, fromXML.Flaky, fromJSON.Flaky)
		})
	}
}
