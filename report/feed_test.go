package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// TestReadRunMatchesParse checks that ReadRun, which merges a JUnit
// report's cases on the hashing goroutine as the parser hands them over
// in batches (reusing the blocks of records once merged), builds the run
// that ParseFile and Builder.AddReport build, on a report of many batches
// (27,240 cases) beside a second one whose ids repeat the first's, and that
// a report refused after some batches adds none of its cases.
func TestReadRunMatchesParse(t *testing.T) {
	dir := t.TempDir()
	big := genBenchReport(benchSize)
	paths := []string{filepath.Join(dir, "a.xml"), filepath.Join(dir, "b.xml"), filepath.Join(dir, "c.xml")}
	require.NoError(t, os.WriteFile(paths[0], big, 0o600))
	require.NoError(t, os.WriteFile(paths[1], genBenchReport(300<<10), 0o600))
	require.NoError(t, os.WriteFile(paths[2], big[:len(big)-100], 0o600)) // cut: refused

	for _, opts := range [][]Option{nil, {WithRunOptions(testrun.WithMaxCases(100_000), testrun.WithMaxFailures(5000))}} {
		got, err := ReadRun([]string{dir}, opts...)
		require.NoError(t, err)

		cfg := newConfig(opts)
		b := testrun.NewBuilder(cfg.runOpts...)
		for _, p := range paths {
			res, _ := ParseFile(p, opts...)
			b.AddReport(res.Info, res.Executions, res.Coverage)
		}
		want := b.Build()
		require.Equal(t, want, got)
		require.False(t, got.Complete, "the cut report makes the run incomplete")
		require.Equal(t, 27240, got.Counts.Total)
	}
}
