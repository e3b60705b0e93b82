package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func writeFile(t *testing.T, path, data string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	return path
}

func reportInfo(t *testing.T, run *testrun.Run, path string) testrun.ReportInfo {
	t.Helper()
	for _, r := range run.Reports {
		if r.Path == path {
			return r
		}
	}
	require.Failf(t, "not listed", "%s is not among the run's reports %+v", path, run.Reports)
	return testrun.ReportInfo{}
}

// TestStaleInOwnFolder: the run's own report folder was made empty for the
// run, so a report in it older than the run's start was copied in with its
// time kept (cp -p): it is listed, refused with the reason, and makes the
// run incomplete; it never vanishes. Named outside that folder, an old
// file is still only skipped.
func TestStaleInOwnFolder(t *testing.T) {
	own := t.TempDir()
	start := time.Now().Add(-time.Minute)
	fresh := writeFile(t, filepath.Join(own, "pytest.xml"), `<testsuite name="s"><testcase name="fresh"/></testsuite>`)
	old := writeFile(t, filepath.Join(own, "sub", "TEST-old.xml"), `<testsuite name="s"><testcase name="old"/></testsuite>`)
	copied := start.Add(-24 * time.Hour)
	require.NoError(t, os.Chtimes(old, copied, copied))

	t.Run("found in the folder", func(t *testing.T) {
		run, err := ReadRun([]string{own}, WithNewerThan(start), WithOwnFolder(own))
		require.NoError(t, err)
		require.Len(t, run.Reports, 2)
		info := reportInfo(t, run, old)
		assert.False(t, info.Skipped, "refused, not skipped")
		assert.Contains(t, info.Error, "older than the run")
		assert.Contains(t, info.Error, "own report folder")
		assert.Empty(t, reportInfo(t, run, fresh).Error)
		assert.False(t, run.Complete)
		assert.Contains(t, strings.Join(run.IncompleteReasons, "\n"), old)
		assert.Equal(t, 1, run.Counts.Total, "the old report adds no case")
		assert.NotContains(t, run.Cases, "s::old")
	})
	t.Run("named in the folder", func(t *testing.T) {
		run, _ := ReadRun([]string{own, old}, WithNewerThan(start), WithOwnFolder(own+string(filepath.Separator)))
		require.Len(t, run.Reports, 2, "listed once")
		assert.False(t, reportInfo(t, run, old).Skipped)
		assert.False(t, run.Complete)
	})
	t.Run("named elsewhere", func(t *testing.T) {
		run, err := ReadRun([]string{old}, WithNewerThan(start), WithOwnFolder(t.TempDir()))
		require.ErrorIs(t, err, ErrNoReports)
		require.Len(t, run.Reports, 1)
		assert.True(t, run.Reports[0].Skipped)
		assert.Contains(t, run.Reports[0].Error, "older than the run")
		assert.NotContains(t, run.Reports[0].Error, "own report folder")
	})
	t.Run("found in another folder", func(t *testing.T) {
		run, err := ReadRun([]string{own}, WithNewerThan(start))
		require.NoError(t, err)
		require.Len(t, run.Reports, 1, "passed over")
		assert.True(t, run.Complete)
	})
}

// TestUnknownRoot: a well-formed file whose root is neither a report's nor
// a known other kind is refused with its root named when it was named
// directly or lies in the run's own report folder, and skipped when a
// search found it (a folder walked, WithFound). A known other kind (a
// Maven POM) is skipped wherever it is.
func TestUnknownRoot(t *testing.T) {
	const unknown = `<?xml version="1.0"?><suites><suite name="s"><case name="t"/></suite></suites>`
	const pom = `<project><modelVersion>4.0.0</modelVersion></project>`
	const good = `<testsuite name="s"><testcase name="t"/></testsuite>`

	type want struct{ refused bool }
	tests := []struct {
		name  string
		setup func(t *testing.T) (paths []string, target string, opts []Option)
		want  want
	}{
		{"own folder", func(t *testing.T) ([]string, string, []Option) {
			own := t.TempDir()
			writeFile(t, filepath.Join(own, "junit.xml"), good)
			p := writeFile(t, filepath.Join(own, "results.xml"), unknown)
			return []string{own}, p, []Option{WithOwnFolder(own)}
		}, want{refused: true}},
		{"named directly", func(t *testing.T) ([]string, string, []Option) {
			dir := t.TempDir()
			g := writeFile(t, filepath.Join(dir, "junit.xml"), good)
			p := writeFile(t, filepath.Join(dir, "results.xml"), unknown)
			return []string{g, p}, p, nil
		}, want{refused: true}},
		{"walked folder", func(t *testing.T) ([]string, string, []Option) {
			dir := t.TempDir()
			writeFile(t, filepath.Join(dir, "junit.xml"), good)
			p := writeFile(t, filepath.Join(dir, "results.xml"), unknown)
			return []string{dir}, p, []Option{WithOwnFolder(t.TempDir())}
		}, want{refused: false}},
		{"found by a search", func(t *testing.T) ([]string, string, []Option) {
			own, repo := t.TempDir(), t.TempDir()
			writeFile(t, filepath.Join(own, "junit.xml"), good)
			p := writeFile(t, filepath.Join(repo, "test-results", "results.xml"), unknown)
			return []string{own, p}, p, []Option{WithOwnFolder(own), WithFound(p)}
		}, want{refused: false}},
		{"found by a search, in the own folder", func(t *testing.T) ([]string, string, []Option) {
			own := t.TempDir()
			writeFile(t, filepath.Join(own, "junit.xml"), good)
			p := writeFile(t, filepath.Join(own, "results.xml"), unknown)
			return []string{own, p}, p, []Option{WithOwnFolder(own), WithFound(p)}
		}, want{refused: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			paths, target, opts := tt.setup(t)
			run, err := ReadRun(paths, opts...)
			require.NoError(t, err)
			require.Len(t, run.Reports, 2)
			info := reportInfo(t, run, target)
			assert.Equal(t, 1, run.Counts.Total)
			if tt.want.refused {
				assert.False(t, info.Skipped)
				assert.Contains(t, info.Error, "unknown root element <suites>")
				assert.False(t, run.Complete)
				assert.Contains(t, strings.Join(run.IncompleteReasons, "\n"), "<suites>")
			} else {
				assert.True(t, info.Skipped)
				assert.Contains(t, info.Error, "root element <suites>")
				assert.True(t, run.Complete, "%q", run.IncompleteReasons)
			}
		})
	}

	t.Run("a POM in the own folder is skipped", func(t *testing.T) {
		own := t.TempDir()
		writeFile(t, filepath.Join(own, "junit.xml"), good)
		p := writeFile(t, filepath.Join(own, "pom.xml"), pom)
		run, err := ReadRun([]string{own, p}, WithOwnFolder(own))
		require.NoError(t, err)
		assert.True(t, reportInfo(t, run, p).Skipped)
		assert.True(t, run.Complete, "%q", run.IncompleteReasons)
	})
	t.Run("ParseFile names directly", func(t *testing.T) {
		p := writeFile(t, filepath.Join(t.TempDir(), "results.xml"), unknown)
		res, err := ParseFile(p)
		require.ErrorIs(t, err, ErrUnknownRoot)
		assert.NotErrorIs(t, err, ErrNotReport)
		assert.False(t, res.Info.Skipped)
		assert.Equal(t, "unknown root element <suites>: not JUnit XML, Cobertura or lcov", res.Info.Error)
	})
	t.Run("over the size limit in the own folder", func(t *testing.T) {
		own := t.TempDir()
		writeFile(t, filepath.Join(own, "junit.xml"), good)
		p := writeFile(t, filepath.Join(own, "big.xml"), `<suites>`+strings.Repeat("<suite/>", 200)+`</suites>`)
		run, err := ReadRun([]string{own}, WithOwnFolder(own), WithMaxRunBytes(1000))
		require.NoError(t, err)
		assert.False(t, reportInfo(t, run, p).Skipped)
		assert.False(t, run.Complete)
	})
}

// TestTestrunRoot: the Eclipse and Ant JUnit export's root <testrun> goes to
// the JUnit reader. Until that reader knows it, the file is told about as
// an unknown root; it is never read whole as a report without its cases.
func TestTestrunRoot(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "export.xml"),
		`<testrun name="all" project="p" tests="1"><testsuite name="c"><testcase classname="c" name="t"/></testsuite></testrun>`)
	res, err := ParseFile(p)
	if err != nil {
		require.ErrorIs(t, err, ErrUnknownRoot)
		assert.Contains(t, res.Info.Error, "<testrun>")
		return
	}
	require.Len(t, res.Executions, 1)
	assert.Equal(t, "c::t", res.Executions[0].ID)
}
