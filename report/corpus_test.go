package report

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report/lcov"
	"github.com/hangar-dev/testresults/testrun"
)

// corpusDir locates ../shared/corpus beside the repository root, or skips.
func corpusDir(t testing.TB) string { return testcorpus.Dir(t) }

type manifestRow struct {
	file, dialect, expected, notes string
}

func readManifest(t *testing.T, dir string) []manifestRow {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "MANIFEST.tsv"))
	require.NoError(t, err)
	defer f.Close()
	var rows []manifestRow
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for first := true; sc.Scan(); first = false {
		if first {
			continue
		}
		c := strings.Split(sc.Text(), "\t")
		require.Len(t, c, 8, sc.Text())
		rows = append(rows, manifestRow{file: c[0], dialect: c[1], expected: c[6], notes: c[7]})
	}
	require.NoError(t, sc.Err())
	return rows
}

// structural reads a count such as "testcase=12" from a manifest note.
func structural(notes, key string) (int, bool) {
	m := regexp.MustCompile(`\b` + regexp.QuoteMeta(key) + `=(\d+)`).FindStringSubmatch(notes)
	if m == nil {
		return 0, false
	}
	n, _ := strconv.Atoi(m[1])
	return n, true
}

// refusedCorpus is the exact error every hostile or unreadable corpus file
// gets. A skipped file (ErrNotReport) is listed but never counted.
var refusedCorpus = map[string]error{
	"hostile/codecov-not-xml.junit.xml":          ErrNotXML,
	"hostile/defusedxml-cyclic.xml":              ErrEntity,
	"hostile/defusedxml-external-file.xml":       ErrEntity,
	"hostile/defusedxml-quadratic.xml":           ErrEntity,
	"hostile/defusedxml-xmlbomb2.xml":            ErrEntity,
	"hostile/jenkins-xxe-oob-dtd.xml":            ErrEntity,
	"hostile/jenkins-xxe-parameter-entities.xml": ErrEntity,
	"hostile/nunit-xxe-file.xml":                 ErrEntity,
	"hostile/nunit-xxe-https.xml":                ErrEntity,
	// An external DTD is allowed and never fetched; the document is XHTML.
	"hostile/defusedxml-dtd.xml": ErrNotReport,
	// An unknown root element (<suites>), named directly: refused with its
	// root named (found by a walk, it would be skipped).
	"hostile/enricomi-non-junit.xml": ErrUnknownRoot,
	// CTest's own dashboard format, not JUnit (ctest --output-junit is).
	"ctest/xunit-plugin-native-case2.xml": ErrNotReport,
	// Not well-formed: </methods> and </lines> close elements never opened
	// (line 781). encoding/xml's RawToken does not check end tags; a strict
	// reader refuses the file.
	"cobertura/coveralls-big-doctype.xml": ErrMalformedXML,
	// The second record is cut off in a DA line without a hit count.
	"lcov/grcov-invalid-da.info": lcov.ErrMalformed,
}

// ErrMalformedXML stands for "a *SyntaxError about well-formedness" in
// refusedCorpus.
var ErrMalformedXML = &SyntaxError{}

// incompleteCorpus lists files read whole whose run is still incomplete.
// None today: a testcase with neither classname nor name (jest's test
// titled "", junit-generic/no-attributes.xml) is told apart by its position
// in its suite ("<suite>::#N") instead of making the run incomplete.
var incompleteCorpus = map[string]string{}

// casesNoteDiffers lists JUnit files whose testcase element count differs
// from the manifest's raw count of "<testcase", and why.
var casesNoteDiffers = map[string]struct {
	n   int
	why string
}{
	"junit-generic/junit4-complete.xml": {8, "the manifest also counts the word <testcase> in an XML comment"},
}

func TestCorpus(t *testing.T) {
	dir := corpusDir(t)
	parsed, junitFiles := 0, 0
	for _, row := range readManifest(t, dir) {
		if strings.HasPrefix(row.file, "(") || strings.Contains(row.file, ".expected") {
			continue
		}
		t.Run(row.file, func(t *testing.T) {
			path := filepath.Join(dir, row.file)
			res, err := ParseFile(path)
			run := build(res)
			if want, ok := refusedCorpus[row.file]; ok {
				require.Error(t, err)
				if want == ErrMalformedXML {
					var se *SyntaxError
					require.ErrorAs(t, err, &se)
				} else {
					require.ErrorIs(t, err, want)
				}
				assert.NotEmpty(t, res.Info.Error)
				assert.Equal(t, errorsIs(err, ErrNotReport), res.Info.Skipped)
				assert.False(t, run.Counted())
				assert.Empty(t, res.Info.SHA256)
				return
			}
			require.NoError(t, err)
			parsed++
			assert.Len(t, res.Info.SHA256, 64)
			assert.Empty(t, res.Info.Error)
			if why, ok := incompleteCorpus[row.file]; ok {
				t.Logf("read whole, run incomplete: %s", why)
				assert.False(t, run.Complete)
				assert.False(t, run.Counted())
			} else {
				assert.True(t, run.Complete, "%v", run.IncompleteReasons)
			}
			switch row.dialect {
			case "cobertura":
				assert.Equal(t, DialectCobertura, res.Info.Dialect)
				require.NotNil(t, res.Coverage)
				return
			case "lcov":
				assert.Equal(t, DialectLcov, res.Info.Dialect)
				require.NotNil(t, res.Coverage)
				return
			}
			junitFiles++
			require.NotNil(t, res.Info.Tests)
			n, ok := structural(row.notes, "testcase")
			if !ok {
				n = 0
			}
			if d, ok := casesNoteDiffers[row.file]; ok {
				t.Logf("testcase count %d, manifest says %d: %s", d.n, n, d.why)
				n = d.n
			}
			suiteLevel := 0
			for _, e := range res.Executions {
				if strings.HasSuffix(e.ID, "<suite-level error>") {
					suiteLevel++
				}
			}
			assert.Equal(t, n, len(res.Executions)-suiteLevel, "testcase elements")
			require.NotNil(t, run.Counts)
			c := run.Counts
			assert.Equal(t, c.Total, c.Passed+c.Failed+c.Errors+c.Skipped)
		})
	}
	t.Logf("%d corpus reports parsed, %d of them JUnit", parsed, junitFiles)
}

func errorsIs(err, target error) bool {
	for e := err; e != nil; {
		if e == target {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

func build(res *Result) *testrun.Run {
	b := testrun.NewBuilder()
	b.AddReport(res.Info, res.Executions, res.Coverage)
	r := b.Build()
	r.Kind = testrun.KindBase
	return r
}

// enricoStats is the stats object of the expected results the
// publish-unit-test-result-action project ships: "tests" counts distinct
// tests (by class and name), "runs" counts testcase elements.
type enricoStats struct {
	Stats struct {
		Tests      int `json:"tests"`
		TestsSucc  int `json:"tests_succ"`
		TestsSkip  int `json:"tests_skip"`
		TestsFail  int `json:"tests_fail"`
		TestsError int `json:"tests_error"`
		Runs       int `json:"runs"`
	} `json:"stats"`
}

// expectationDiffers documents where a shipped expectation counts what the
// reading rules (package report's doc) say not to count.
var expectationDiffers = map[string]string{
	// The action falls back to the suite's tests=/failures=/skipped=
	// attributes when there are no testcase elements; counts are never read
	// from them: the failure they state, which no test case shows, is one
	// suite-level error, so the run fails.
	"junit-generic/no-cases-but-tests.xml": "counts from tests= attributes",
	// The action parses the NUnit file after dropping the entity; every
	// file with an entity declaration is refused here.
	"hostile/nunit-xxe-file.xml":  "entity declaration refused",
	"hostile/nunit-xxe-https.xml": "entity declaration refused",
	// The action reports a parse error; the file is skipped here as not a
	// report.
	"hostile/enricomi-non-junit.xml": "foreign root skipped",
}

// countsDiffer holds the counts (total, passed, skipped, failed, errors)
// read where a shipped expectation counts otherwise, and why.
var countsDiffer = map[string]struct {
	counts [5]int
	why    string
}{
	// A case that carries <skipped> is skipped whatever failure it carries
	// (node:test writes a failing todo test so), not beside an <error>;
	// the action takes the worst child instead.
	"junit-generic/multiresult.xml": {[5]int{4, 1, 2, 0, 1}, "<skipped> wins over <failure>, <error> over <skipped>"},
}

func TestCorpusExpectedJSON(t *testing.T) {
	dir := corpusDir(t)
	for _, row := range readManifest(t, dir) {
		if !strings.HasSuffix(row.expected, ".expected.json") || strings.Contains(row.expected, ";") {
			if !strings.Contains(row.expected, ".expected.json") {
				continue
			}
		}
		var expFile string
		for _, e := range strings.Split(row.expected, ";") {
			if strings.HasSuffix(e, ".expected.json") {
				expFile = e
			}
		}
		t.Run(row.file, func(t *testing.T) {
			data, err := os.ReadFile(filepath.Join(dir, expFile))
			require.NoError(t, err)
			var exp enricoStats
			require.NoError(t, json.Unmarshal(data, &exp))
			res, perr := ParseFile(filepath.Join(dir, row.file))
			run := build(res)
			if why, ok := expectationDiffers[row.file]; ok {
				t.Logf("differs from the shipped expectation (%d tests): %s", exp.Stats.Tests, why)
				if run.Counted() {
					assert.Positive(t, run.Counts.Failed+run.Counts.Errors, "never read as a pass")
				}
				return
			}
			require.NoError(t, perr)
			require.NotNil(t, run.Counts)
			got := [5]int{run.Counts.Total, run.Counts.Passed, run.Counts.Skipped, run.Counts.Failed, run.Counts.Errors}
			want := [5]int{exp.Stats.Tests, exp.Stats.TestsSucc, exp.Stats.TestsSkip, exp.Stats.TestsFail, exp.Stats.TestsError}
			if d, ok := countsDiffer[row.file]; ok {
				t.Logf("differs from the shipped expectation %v: %s", want, d.why)
				want = d.counts
			}
			assert.Equal(t, want, got, "total, passed, skipped, failed, errors")
			assert.Equal(t, exp.Stats.Runs, len(res.Executions), "testcase elements")
		})
	}
}

// TestCorpusExpectedXML compares with the JUnit files the Jenkins xunit
// plugin ships as the expected conversion of its inputs: the same test ids
// with the same outcomes.
func TestCorpusExpectedXML(t *testing.T) {
	dir := corpusDir(t)
	for _, row := range readManifest(t, dir) {
		if !strings.HasSuffix(row.expected, ".expected.xml") {
			continue
		}
		t.Run(row.file, func(t *testing.T) {
			res, err := ParseFile(filepath.Join(dir, row.file))
			if row.file == "ctest/xunit-plugin-native-case2.xml" {
				// The input is CTest's dashboard format, which the plugin
				// converts and this package skips (use ctest --output-junit).
				require.ErrorIs(t, err, ErrNotReport)
				return
			}
			require.NoError(t, err)
			exp, err := ParseFile(filepath.Join(dir, row.expected))
			require.NoError(t, err)
			assert.Equal(t, build(exp).Cases, build(res).Cases)
			assert.Equal(t, build(exp).Counts, build(res).Counts)
		})
	}
}

func TestCorpusCoverageValues(t *testing.T) {
	dir := corpusDir(t)
	tests := []struct {
		file             string
		rate             float64
		covered, valid   int64
		ratePrecisionOff bool
	}{
		// Cobertura: counted from the classes' <line> elements; the counts
		// agree with the stated totals, the rate is exact (the files state
		// 0.6667 and 0.6117).
		{file: "cobertura/coveragepy-gold-xml.xml", covered: 2, valid: 3},
		{file: "cobertura/coverlet.xml", covered: 156, valid: 255},
		// lcov: lines from DA records merged per SF; records without DA
		// contribute LF/LH (counted by hand).
		{file: "lcov/cargo-llvm-cov-summary-only.lcov.info", covered: 19, valid: 27},
		{file: "lcov/gcovr-merging-functions.lcov", covered: 7, valid: 8},
		{file: "lcov/grcov-fn-with-commas.info", covered: 27, valid: 57},
		{file: "lcov/reportgenerator-docs.info", covered: 75, valid: 108},
		{file: "lcov/lcov-parse-parts.info", covered: 218, valid: 263},
		{file: "lcov/coveralls-for-base-path.lcov", covered: 16, valid: 17},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			res, err := ParseFile(filepath.Join(dir, tt.file))
			require.NoError(t, err)
			cov := build(res).Coverage
			require.NotNil(t, cov)
			require.NotNil(t, cov.LinesCovered)
			require.NotNil(t, cov.LinesValid)
			assert.Equal(t, tt.covered, *cov.LinesCovered)
			assert.Equal(t, tt.valid, *cov.LinesValid)
			require.NotNil(t, cov.LineRate)
			want := tt.rate
			if want == 0 {
				want = float64(tt.covered) / float64(tt.valid)
			}
			assert.InDelta(t, want, *cov.LineRate, 1e-9)
		})
	}
}
