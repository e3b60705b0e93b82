package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testmem"
	"github.com/hangar-dev/testresults/testrun"
)

// Generous bounds for one hostile input on a slow, shared machine.
const (
	hostileTime = 20 * time.Second
	hostileHeap = 96 << 20
)

// checkRefused reads paths as a run and checks that it is never a pass: not
// complete, not counted, the reason recorded, in bounded time and memory.
func checkRefused(t *testing.T, paths []string, opts ...Option) *testrun.Run {
	t.Helper()
	var run *testrun.Run
	start := time.Now()
	peak := testmem.PeakHeap(func() {
		run, _ = ReadRun(paths, opts...)
	})
	elapsed := time.Since(start)
	require.NotNil(t, run)
	run.Kind = testrun.KindBase
	assert.False(t, run.Complete, "complete")
	assert.False(t, run.Counted(), "counted")
	assert.NotEmpty(t, run.IncompleteReasons)
	limit := hostileTime
	if raceEnabled {
		// The race detector slows the reader several times over; the bound
		// still tells a hang from a slow, shared machine.
		limit *= 4
	}
	assert.Less(t, elapsed, limit)
	assert.Less(t, peak, int64(hostileHeap), "peak heap")
	t.Logf("%v, peak heap %.1f MiB, reasons %q", elapsed.Round(time.Millisecond), float64(peak)/(1<<20), run.IncompleteReasons)
	return run
}

func TestHostileFiles(t *testing.T) {
	tests := []struct {
		file string
		want error
	}{
		{"billion-laughs.xml", ErrEntity},
		{"external-entity.xml", ErrEntity},
		{"parameter-entity.xml", ErrEntity},
		{"undefined-entity.xml", ErrEntity},
		// An internal DTD subset holding anything beside element and
		// attribute-list declarations (xcresultparser's Cobertura subset
		// with one more line).
		{"xcresult-dtd-conditional.xml", ErrDTD},
		{"xcresult-dtd-entity.xml", ErrEntity},
		{"xcresult-dtd-parameter-entity.xml", ErrEntity},
		{"truncated.xml", ErrTruncated},
		{"empty.xml", ErrEmpty},
		{"binary.xml", ErrBinary},
		{"utf16-declared.xml", ErrEncoding},
		{"truncated.lcov", ErrTruncated},
		{"truncated-cobertura.xml", ErrTruncated},
		{"control-esc-raw.xml", ErrChar},
		{"control-bel-raw.xml", ErrChar},
		{"control-esc-latin1.xml", ErrChar},
		{"control-esc-decimal-ref.xml", ErrChar},
		{"control-esc-hex-ref.xml", ErrChar},
		{"nonchar-fffe-ref.xml", ErrChar},
		{"nonchar-ffff-raw.xml", ErrChar},
		{"surrogate-ref.xml", ErrChar},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join("testdata", "hostile", tt.file)
			res, err := ParseFile(path)
			require.ErrorIs(t, err, tt.want)
			assert.False(t, res.Info.Skipped)
			assert.Empty(t, res.Info.SHA256)
			assert.Empty(t, res.Executions, "a refused report holds no case")
			assert.Nil(t, res.Coverage, "a refused report holds no coverage")
			run := checkRefused(t, []string{path})
			_, err = ReadRun([]string{path})
			assert.ErrorIs(t, err, ErrNoReports)
			require.Len(t, run.Reports, 1)
			assert.NotEmpty(t, run.Reports[0].Error)
			// Read whole or not at all: nothing of a refused report reaches
			// the run, and with no report read whole the counts are null.
			assert.Nil(t, run.Counts)
			assert.Nil(t, run.Cases)
			assert.Nil(t, run.Failures)
			assert.Nil(t, run.Flaky)
			assert.Nil(t, run.Coverage)
		})
	}
}

// writeGenerated writes a generated hostile file into a fresh folder.
func writeGenerated(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, data, 0o644))
	return path
}

func TestHostileGenerated(t *testing.T) {
	deep := strings.Repeat("<testsuite>", 10_000) + strings.Repeat("</testsuite>", 10_000)

	var big bytes.Buffer
	big.WriteString(`<testsuite name="s">`)
	for big.Len() <= DefaultMaxBytes {
		big.WriteString(`<testcase classname="c" name="t"><system-out>` + strings.Repeat("x", 4000) + `</system-out></testcase>`)
	}
	big.WriteString(`</testsuite>`)

	var many bytes.Buffer
	many.WriteString(`<testsuite name="s">`)
	for i := 0; i <= DefaultMaxCasesPerReport; i++ {
		fmt.Fprintf(&many, `<testcase name="t%d"/>`, i)
	}
	many.WriteString(`</testsuite>`)

	elements := `<testsuite name="s">` + strings.Repeat("<p/>", DefaultMaxElements) + `</testsuite>`

	// 700,000 attributes on one tag (7.6 MB): each checked against the
	// earlier ones would take hours.
	var attrs bytes.Buffer
	attrs.WriteString(`<testsuite name="s"><testcase name="t"`)
	for i := 0; i < 700_000; i++ {
		fmt.Fprintf(&attrs, ` a%d=""`, i)
	}
	attrs.WriteString(`/></testsuite>`)

	tests := []struct {
		name  string
		data  string
		limit Limit
	}{
		{"10000-deep.xml", deep, LimitDepth},
		{"over-8MiB.xml", big.String(), LimitBytes},
		{"100001-cases.xml", many.String(), LimitCases},
		{"2000001-elements.xml", elements, LimitElements},
		{"700000-attributes.xml", attrs.String(), LimitAttributes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeGenerated(t, tt.name, []byte(tt.data))
			_, err := ParseFile(path)
			var le *LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tt.limit, le.Limit)
			assert.ErrorIs(t, err, ErrLimit)
			checkRefused(t, []string{path})

			// The same input streamed (no size known up front) is refused
			// by the reader itself.
			res, err := Parse(strings.NewReader(tt.data), tt.name)
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tt.limit, le.Limit)
			assert.Empty(t, res.Info.SHA256)
		})
	}
}

// TestInternalSubsetIgnored: an internal DTD subset of attribute-list
// declarations is read past and nothing in it is applied: the default
// classname it declares for every testcase ("injected") changes no id.
func TestInternalSubsetIgnored(t *testing.T) {
	res, err := ParseFile(filepath.Join("testdata", "hostile", "internal-subset.xml"))
	require.NoError(t, err)
	require.Len(t, res.Executions, 1)
	assert.Equal(t, "t", res.Executions[0].ID)
}

func TestHostileSymlinks(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "reports", "junit.xml")
	require.NoError(t, os.MkdirAll(filepath.Dir(good), 0o755))
	require.NoError(t, os.WriteFile(good, []byte(`<testsuite name="s"><testcase name="t"/></testsuite>`), 0o644))
	outside := filepath.Join(dir, "outside")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.xml"), []byte(`<testsuite name="x"><testcase name="planted"/></testsuite>`), 0o644))

	fileLink := filepath.Join(dir, "reports", "link.xml")
	require.NoError(t, os.Symlink(filepath.Join(outside, "secret.xml"), fileLink))
	dirLink := filepath.Join(dir, "linked-dir")
	require.NoError(t, os.Symlink(outside, dirLink))

	t.Run("file link", func(t *testing.T) {
		_, err := ParseFile(fileLink)
		require.ErrorIs(t, err, ErrSymlink)
		run := checkRefused(t, []string{fileLink})
		assert.Nil(t, run.Counts)
	})
	t.Run("link in a parent component", func(t *testing.T) {
		p := filepath.Join(dirLink, "secret.xml")
		_, err := ParseFile(p)
		require.ErrorIs(t, err, ErrSymlink)
		real, rerr := filepath.EvalSymlinks(filepath.Join(outside, "secret.xml"))
		require.NoError(t, rerr)
		assert.ErrorContains(t, err, dirLink+" is a symbolic link (no link is followed in a report's path; without links the path is "+real+")",
			"the refusal names the path to give instead")
		checkRefused(t, []string{p})
	})
	t.Run("link behind a parent reference", func(t *testing.T) {
		p := dirLink + string(filepath.Separator) + filepath.Join("..", "reports", "junit.xml")
		_, err := ParseFile(p)
		require.ErrorIs(t, err, ErrSymlink)
	})
	t.Run("link found in a folder", func(t *testing.T) {
		run := checkRefused(t, []string{filepath.Join(dir, "reports")})
		require.NotNil(t, run.Counts)
		assert.Equal(t, 1, run.Counts.Total, "the regular report is still read")
		_, planted := run.Cases["planted"]
		assert.False(t, planted)
	})
	t.Run("link to a folder found in a folder", func(t *testing.T) {
		run := checkRefused(t, []string{dir})
		_, planted := run.Cases["x::planted"]
		assert.False(t, planted)
		assert.Contains(t, strings.Join(run.IncompleteReasons, "\n"), "linked-dir")
	})
}

func TestHostileRunLimits(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < DefaultMaxFiles+3; i++ {
		p := filepath.Join(dir, fmt.Sprintf("TEST-%03d.xml", i))
		require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf(`<testsuite name="s%d"><testcase name="t%d"/></testsuite>`, i, i)), 0o644))
	}
	run := checkRefused(t, []string{dir})
	require.Len(t, run.Reports, DefaultMaxFiles+3, "every file is listed, read or not")
	assert.Equal(t, DefaultMaxFiles, run.Counts.Total)
	assert.Contains(t, run.IncompleteReasons[0], "files limit of 64 exceeded")
	assert.Len(t, run.IncompleteReasons, 3)

	big := t.TempDir()
	body := `<testsuite name="s"><testcase name="t"><system-out>` + strings.Repeat("y", 7<<20) + `</system-out></testcase></testsuite>`
	for i := 0; i < 5; i++ {
		require.NoError(t, os.WriteFile(filepath.Join(big, fmt.Sprintf("r%d.xml", i)), []byte(body), 0o644))
	}
	run = checkRefused(t, []string{big})
	assert.Contains(t, run.IncompleteReasons[len(run.IncompleteReasons)-1], "run bytes limit of 33554432 exceeded")
	require.NotNil(t, run.Counts)
	assert.Equal(t, 1, run.Counts.Total)
}

// TestOversizedReportHitsItsOwnLimit: a report over the per-report limit is
// refused under that limit (not the run's), whatever its format and
// whether it is named directly or found in a folder, and adds nothing.
func TestOversizedReportHitsItsOwnLimit(t *testing.T) {
	const size = 128 << 20
	dir := t.TempDir()
	write := func(name string, head, fill, tail string) string {
		p := filepath.Join(dir, name)
		f, err := os.Create(p)
		require.NoError(t, err)
		defer func() { require.NoError(t, f.Close()) }()
		_, err = f.WriteString(head)
		require.NoError(t, err)
		block := []byte(strings.Repeat(fill, 64<<10/len(fill)))
		for n := len(head); n < size; n += len(block) {
			_, err = f.Write(block)
			require.NoError(t, err)
		}
		_, err = f.WriteString(tail)
		require.NoError(t, err)
		return p
	}
	files := map[string]string{
		"lcov":      write("lcov.info", "TN:\nSF:a.js\n", "DA:1,1\n", "end_of_record\n"),
		"junit":     write("junit.xml", `<testsuite name="s">`, `<testcase name="t"/>`, `</testsuite>`),
		"cobertura": write("coverage.xml", `<coverage line-rate="1" lines-covered="1" lines-valid="1"><sources>`, `<!---->`, `</sources></coverage>`),
	}
	for format, p := range files {
		for how, paths := range map[string][]string{"named": {p}, "in a folder": {dir}} {
			t.Run(format+" "+how, func(t *testing.T) {
				run, err := ReadRun(paths)
				require.ErrorIs(t, err, ErrNoReports)
				var info *testrun.ReportInfo
				for i := range run.Reports {
					if run.Reports[i].Path == p {
						info = &run.Reports[i]
					}
				}
				require.NotNil(t, info)
				assert.Equal(t, "bytes limit of 8388608 exceeded", info.Error)
				assert.Nil(t, run.Counts)
				assert.Nil(t, run.Coverage)
				assert.False(t, run.Complete)
			})
		}
		t.Run(format+" parsed", func(t *testing.T) {
			_, err := ParseFile(p)
			var le *LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, LimitBytes, le.Limit)
		})
	}
}

func TestPartialSetIsIncomplete(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.xml")
	require.NoError(t, os.WriteFile(good, []byte(`<testsuite name="s"><testcase name="t"/></testsuite>`), 0o644))
	run, err := ReadRun([]string{good, filepath.Join("testdata", "hostile", "billion-laughs.xml"), filepath.Join(dir, "missing.xml")})
	require.NoError(t, err)
	assert.False(t, run.Complete)
	require.NotNil(t, run.Counts)
	assert.Equal(t, 1, run.Counts.Total)
	assert.Len(t, run.IncompleteReasons, 2)
}

// TestHostileNamesInErrors: a name of megabytes from the file is quoted
// short in the error and the run's reasons.
func TestHostileNamesInErrors(t *testing.T) {
	long := strings.Repeat("A", 7_000_000)
	for name, doc := range map[string]string{
		"end tag":      `<testsuite><testcase name="t"/></` + long + `>`,
		"foreign root": `<` + long + `/>`,
	} {
		t.Run(name, func(t *testing.T) {
			path := writeGenerated(t, "r.xml", []byte(doc))
			run, _ := ReadRun([]string{path})
			require.Len(t, run.Reports, 1)
			assert.Less(t, len(run.Reports[0].Error), 1024, "the error quotes the name short")
			for _, r := range run.IncompleteReasons {
				assert.Less(t, len(r), 2048)
			}
		})
	}
}

// TestNonReportsDoNotCountAgainstLimits: XML that is not a report (a
// Maven target/ holds plenty) is skipped, and neither its number nor its
// size makes the run incomplete.
func TestNonReportsDoNotCountAgainstLimits(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < 60; i++ {
		p := filepath.Join(dir, fmt.Sprintf("TEST-%03d.xml", i))
		require.NoError(t, os.WriteFile(p, []byte(fmt.Sprintf(`<testsuite name="s%d"><testcase name="t%d"/></testsuite>`, i, i)), 0o644))
	}
	for i := 0; i < 10; i++ {
		p := filepath.Join(dir, fmt.Sprintf("pom-%d.xml", i))
		require.NoError(t, os.WriteFile(p, []byte(`<project><modelVersion>4.0.0</modelVersion></project>`), 0o644))
	}
	huge := `<project>` + strings.Repeat("<dependency/>", 1<<20) + `</project>` // 13 MiB
	require.NoError(t, os.WriteFile(filepath.Join(dir, "huge-site.xml"), []byte(huge), 0o644))

	run, err := ReadRun([]string{dir})
	require.NoError(t, err)
	assert.True(t, run.Complete, "%q", run.IncompleteReasons)
	assert.Equal(t, 60, run.Counts.Total)
	skipped := 0
	for _, r := range run.Reports {
		if r.Skipped {
			skipped++
		}
	}
	assert.Equal(t, 11, skipped)
}

// TestHostileCoverageLines: four lcov files of 8 MiB of distinct DA lines
// each (2.8 million lines, the most a run's 32 MiB can hold) are merged in
// bounded time and memory.
func TestHostileCoverageLines(t *testing.T) {
	dir := t.TempDir()
	want := int64(0)
	for k := 0; k < 4; k++ {
		var b bytes.Buffer
		fmt.Fprintf(&b, "SF:f%d.c\n", k)
		for i := 1; b.Len() < DefaultMaxBytes-64; i++ {
			fmt.Fprintf(&b, "DA:%d,%d\n", i, i%2)
			want++
		}
		b.WriteString("end_of_record\n")
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("r%d.lcov", k)), b.Bytes(), 0o644))
	}
	var run *testrun.Run
	var err error
	start := time.Now()
	peak := testmem.PeakHeap(func() { run, err = ReadRun([]string{dir}) })
	require.NoError(t, err)
	assert.True(t, run.Complete, "%q", run.IncompleteReasons)
	require.NotNil(t, run.Coverage.LinesValid)
	assert.Equal(t, want, *run.Coverage.LinesValid)
	bound := hostileTime
	if raceEnabled {
		bound *= 10
	}
	assert.Less(t, time.Since(start), bound)
	assert.Less(t, peak, int64(hostileHeap), "peak heap")
	t.Logf("%d lines, peak heap %.1f MiB, %v", want, float64(peak)/(1<<20), time.Since(start).Round(time.Millisecond))
}
