package report_test

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

var update = flag.Bool("update", false, "rewrite the expected.json (and error) files of the golden tests from the parser's output")

// corpusPrefix starts the input paths of reports taken from the shared
// corpus, which lies beside the repository and may be absent.
const corpusPrefix = "../shared/corpus/"

// TestGolden reads the reports named by each testdata/golden/<case>/input
// (one path per line, relative to the repository root) into a run and
// compares its JSON form with <case>/expected.json. When ReadRun returns an
// error, its text must equal <case>/error. An optional <case>/workdir names
// the folder the reports' runner ran in (report.WithWorkDir), which
// coverage paths are made relative to. Regenerate with
//
//	go test ./report -run TestGolden -update
//
// and read every changed expected.json against its report before committing.
func TestGolden(t *testing.T) {
	golden, err := filepath.Abs(filepath.Join("testdata", "golden"))
	require.NoError(t, err)
	cases, err := os.ReadDir(golden)
	require.NoError(t, err)
	root := moduleRoot(t)
	// ReadRun is given the paths as written in input, relative to the
	// repository root, so the run lists them the same on every machine.
	t.Chdir(root)
	_, corpusErr := os.Stat(filepath.Join(root, filepath.FromSlash(corpusPrefix)))

	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		dir := filepath.Join(golden, c.Name())
		t.Run(c.Name(), func(t *testing.T) {
			paths := readInput(t, filepath.Join(dir, "input"))
			for _, p := range paths {
				if strings.HasPrefix(p, corpusPrefix) && corpusErr != nil {
					testcorpus.Dir(t) // skips, or fails under CI
				}
			}

			opts := []report.Option{report.WithRunOptions(testrun.WithRedactor(testrun.NewRedactor(nil)))}
			if wd, err := os.ReadFile(filepath.Join(dir, "workdir")); err == nil {
				opts = append(opts, report.WithWorkDir(strings.TrimSpace(string(wd))))
			} else {
				require.ErrorIs(t, err, os.ErrNotExist)
			}
			run, readErr := report.ReadRun(paths, opts...)
			require.NotNil(t, run)
			run.ID = "golden-" + c.Name()
			run.Kind = testrun.KindBase
			run.Command = "testresults parse " + strings.Join(paths, " ")
			got, err := json.MarshalIndent(run, "", "  ")
			require.NoError(t, err)
			got = append(got, '\n')
			gotErr := ""
			if readErr != nil {
				gotErr = readErr.Error() + "\n"
			}

			expectedPath := filepath.Join(dir, "expected.json")
			errorPath := filepath.Join(dir, "error")
			if *update {
				require.NoError(t, os.WriteFile(expectedPath, got, 0o644))
				if gotErr != "" {
					require.NoError(t, os.WriteFile(errorPath, []byte(gotErr), 0o644))
				} else if err := os.Remove(errorPath); err != nil && !errors.Is(err, os.ErrNotExist) {
					require.NoError(t, err)
				}
			}

			want, err := os.ReadFile(expectedPath)
			require.NoError(t, err, "no expected.json: run with -update, then check it against the report")
			assert.Equal(t, string(want), string(got))

			wantErr, err := os.ReadFile(errorPath)
			if errors.Is(err, os.ErrNotExist) {
				assert.NoError(t, readErr)
			} else {
				require.NoError(t, err)
				assert.Equal(t, string(wantErr), gotErr)
			}
		})
	}
}

// readInput returns the non-empty lines of an input file.
func readInput(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	var paths []string
	for _, line := range strings.Split(string(b), "\n") {
		if line = strings.TrimSpace(line); line != "" {
			paths = append(paths, line)
		}
	}
	require.NotEmpty(t, paths, "%s names no report", path)
	return paths
}

// moduleRoot is the folder holding go.mod.
func moduleRoot(t *testing.T) string { return testcorpus.Root(t) }
