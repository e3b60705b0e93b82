package report_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/testrun"
)

// The counts testdata/runners/gotestjson/COMMAND gives for its streams.
var goTestJSONStreams = []struct {
	file   string
	counts testrun.Counts
	flaky  []string
}{
	{file: "go-test.json", counts: testrun.Counts{Total: 29, Passed: 18, Failed: 6, Errors: 3, Skipped: 2}},
	{file: "gotestsum.json", counts: testrun.Counts{Total: 29, Passed: 18, Failed: 6, Errors: 3, Skipped: 2}},
	{file: "go-test-count2.json", counts: testrun.Counts{Total: 29, Passed: 19, Failed: 5, Errors: 3, Skipped: 2, Flaky: 1},
		flaky: []string{"example.com/gotestjson/count::TestFailsFirst"}},
	{file: "gotestsum-count2.json", counts: testrun.Counts{Total: 29, Passed: 19, Failed: 5, Errors: 3, Skipped: 2, Flaky: 1},
		flaky: []string{"example.com/gotestjson/count::TestFailsFirst"}},
	{file: "go-test-timeout.json", counts: testrun.Counts{Total: 4, Passed: 1, Failed: 2, Errors: 1}},
	{file: "gotestsum-timeout.json", counts: testrun.Counts{Total: 4, Passed: 1, Failed: 2, Errors: 1}},
}

// TestReadRunGoTestJSON: the real go test -json streams read, by ReadRun
// and by ParseFile, as the go-test-json dialect with the counts go test
// itself gave; ReadRun's hand-over of the executions to the builder in
// batches builds the same run as the executions ParseFile returns.
func TestReadRunGoTestJSON(t *testing.T) {
	dir := filepath.Join(moduleRoot(t), "testdata", "runners", "gotestjson", "reports")
	for _, tt := range goTestJSONStreams {
		t.Run(tt.file, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			run, err := report.ReadRun([]string{path})
			require.NoError(t, err)
			assert.True(t, run.Complete, "%q", run.IncompleteReasons)
			require.NotNil(t, run.Counts)
			assert.Equal(t, tt.counts, *run.Counts)
			assert.Equal(t, tt.flaky, run.Flaky)
			require.Len(t, run.Reports, 1)
			info := run.Reports[0]
			assert.Equal(t, gotestjson.Dialect, info.Dialect)
			assert.Empty(t, info.Error)
			assert.Len(t, info.SHA256, 64)

			res, err := report.ParseFile(path)
			require.NoError(t, err)
			assert.Equal(t, gotestjson.Dialect, res.Info.Dialect)
			require.NotNil(t, res.Info.Tests)
			assert.Equal(t, len(res.Executions), *res.Info.Tests)
			assert.GreaterOrEqual(t, *res.Info.Tests, tt.counts.Total)
			assert.Equal(t, info.SHA256, res.Info.SHA256)
			assert.Equal(t, info.Tests, res.Info.Tests)

			b := testrun.NewBuilder()
			b.AddReport(res.Info, res.Executions, nil)
			whole := b.Build()
			assert.Equal(t, whole.Counts, run.Counts)
			assert.Equal(t, whole.Cases, run.Cases)
			assert.Equal(t, whole.Failures, run.Failures)
			assert.Equal(t, whole.Flaky, run.Flaky)
			assert.Equal(t, whole.Reports, run.Reports)
		})
	}
}

func TestIsCandidateGoTestJSON(t *testing.T) {
	for name, want := range map[string]bool{
		"go-test.json":          true,
		"go-test-unit.json":     true,
		"GO-TEST.JSON":          true,
		"go-test.jsonl":         true,
		"test2json.json":        true,
		"test2json-race.jsonl":  true,
		"Test2JSON.JSONL":       true,
		"gotestsum.json":        false,
		"gotestsum-count2.json": false,
		"package.json":          false,
		"results.json":          false,
		"go-test.json.gz":       false,
		"go-test.txt":           false,
		"my-go-test.json":       false,
		"report.xml":            true,
	} {
		assert.Equal(t, want, report.IsCandidate(name), name)
	}
}

// TestReadRunGoTestJSONFolder: a go test -json stream saved under one of
// its names is found in a folder and read; under any other name (*.json
// at large, gotestsum's --jsonfile) it is passed over in a folder, and
// read when named.
func TestReadRunGoTestJSONFolder(t *testing.T) {
	src := filepath.Join(moduleRoot(t), "testdata", "runners", "gotestjson", "reports", "go-test.json")
	stream, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	for _, name := range []string{"go-test.json", "gotestsum.json", "results.json"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), stream, 0o644))
	}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	single := "{\"Action\":\"start\",\"Package\":\"p\"}\n{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"TestA\"}\n" +
		"{\"Action\":\"skip\",\"Package\":\"p\",\"Test\":\"TestA\"}\n{\"Action\":\"pass\",\"Package\":\"p\"}\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "sub", "TEST2JSON.jsonl"), []byte(single), 0o644))

	run, err := report.ReadRun([]string{dir})
	require.NoError(t, err)
	assert.True(t, run.Complete, "%q", run.IncompleteReasons)
	var paths []string
	for _, r := range run.Reports {
		paths = append(paths, r.Path)
		assert.Equal(t, gotestjson.Dialect, r.Dialect, r.Path)
	}
	assert.Equal(t, []string{filepath.Join(dir, "go-test.json"), filepath.Join(dir, "sub", "TEST2JSON.jsonl")}, paths)
	require.NotNil(t, run.Counts)
	assert.Equal(t, testrun.Counts{Total: 30, Passed: 18, Failed: 6, Errors: 3, Skipped: 3}, *run.Counts)

	named := filepath.Join(dir, "results.json")
	run, err = report.ReadRun([]string{named})
	require.NoError(t, err)
	require.Len(t, run.Reports, 1)
	assert.Equal(t, named, run.Reports[0].Path)
	assert.Equal(t, 29, run.Counts.Total)
}

// TestGoTestJSONRefused: a stream cut short in the run's own folder is
// refused, never read as fewer tests; JSON that is not a go test -json
// stream is refused by name.
func TestGoTestJSONRefused(t *testing.T) {
	src := filepath.Join(moduleRoot(t), "testdata", "runners", "gotestjson", "reports", "go-test.json")
	stream, err := os.ReadFile(src)
	require.NoError(t, err)
	dir := t.TempDir()
	cut := stream[:len(stream)/2]
	cut = cut[:strings.LastIndexByte(string(cut), '\n')+1]
	require.NoError(t, os.WriteFile(filepath.Join(dir, "go-test.json"), cut, 0o644))
	run, err := report.ReadRun([]string{dir}, report.WithOwnFolder(dir))
	require.ErrorIs(t, err, report.ErrNoReports)
	assert.False(t, run.Complete)
	assert.Nil(t, run.Counts)
	require.Len(t, run.Reports, 1)
	assert.NotEmpty(t, run.Reports[0].Error)
	assert.Equal(t, gotestjson.Dialect, run.Reports[0].Dialect)

	res, err := report.Parse(strings.NewReader(`{"name": "a package.json"}`+"\n"), "package.json")
	require.ErrorIs(t, err, report.ErrNotXML)
	assert.Equal(t, "line 1: neither XML, an lcov tracefile nor a go test -json stream", res.Info.Error)
}
