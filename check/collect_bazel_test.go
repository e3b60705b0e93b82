package check

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/internal/testcorpus"
	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// bazelTestlogsRel is where the fixture's output base keeps the test logs.
const bazelTestlogsRel = "execroot/_main/bazel-out/k8-fastbuild/testlogs"

// bazelProject copies testdata/projects/bazel into a fresh folder, after
// start, and returns the workspace and the output base. No link is made.
func bazelProject(t *testing.T) (workspace, outputBase string) {
	t.Helper()
	src := filepath.Join(testcorpus.Root(t), "testdata", "projects", "bazel")
	dst := filepath.Join(t.TempDir(), "bazel")
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	// The folder a test gets may lie behind a link (macOS's /var): the
	// paths are taken as the file system resolves them.
	dst, err := filepath.EvalSymlinks(dst)
	require.NoError(t, err)
	return filepath.Join(dst, "workspace"), filepath.Join(dst, "output_base")
}

// readWalk reads what the walk found as check.Run does.
func readWalk(t *testing.T, w walkResult, start time.Time) *testrun.Run {
	t.Helper()
	run, _ := report.ReadRun(w.paths, report.WithNewerThan(start), report.WithFound(w.paths...),
		report.WithRunOptions(testrun.WithRedactor(testrun.NewRedactor(nil))))
	require.NotNil(t, run)
	return run
}

// TestBazelTestlogs: after `bazel test`, the workspace's bazel-testlogs
// link leads to the test logs in Bazel's output base; the walk follows it
// there (and nowhere else) and reads each target's test.xml: the one test
// Bazel writes for a target that writes no report (named after the
// target's path), the JUnit runner's own tests for a java_test, never the
// failed attempts of a flaky target.
func TestBazelTestlogs(t *testing.T) {
	start := time.Now().Add(-time.Second)
	ws, ob := bazelProject(t)
	logs := filepath.Join(ob, filepath.FromSlash(bazelTestlogsRel))
	require.NoError(t, os.Symlink(logs, filepath.Join(ws, "bazel-testlogs")))
	// Bazel's other links at the workspace root are not followed.
	require.NoError(t, os.Symlink(filepath.Dir(filepath.Dir(logs)), filepath.Join(ws, "bazel-out")))

	w := walkRepository(ws, nil, start, "")
	assert.Empty(t, w.reasons)
	var rel []string
	for _, p := range w.paths {
		r, err := filepath.Rel(logs, p)
		require.NoError(t, err, "listed by the path the link leads to")
		rel = append(rel, filepath.ToSlash(r))
	}
	assert.ElementsMatch(t, []string{
		"app/server/server_test/test.xml",
		"java/com/example/calc/CalcTest/test.xml",
		"lib/parse/parse_test/test.xml",
	}, rel)

	run := readWalk(t, w, start)
	assert.Empty(t, run.IncompleteReasons)
	require.NotNil(t, run.Counts)
	assert.Equal(t, testrun.Counts{Total: 5, Passed: 4, Errors: 1}, *run.Counts)
	assert.Equal(t, map[string]testrun.Outcome{
		"app/server/server_test":               testrun.OutcomePassed,
		"lib/parse/parse_test":                 testrun.OutcomeError,
		"com.example.calc.CalcTest::adds":      testrun.OutcomePassed,
		"com.example.calc.CalcTest::subtracts": testrun.OutcomePassed,
		"com.example.calc.CalcTest::divides":   testrun.OutcomePassed,
	}, run.Cases)
	require.Len(t, run.Failures, 1)
	assert.Equal(t, "lib/parse/parse_test", run.Failures[0].ID)
	assert.Empty(t, run.Flaky, "the failed attempt of the flaky target is not read")
	for _, r := range run.Reports {
		assert.Empty(t, r.Error, r.Path)
	}
}

// TestBazelTestlogsRefused: the bazel-testlogs link is followed only at the
// repository root, only to a folder shaped as Bazel's test logs, never
// through a link inside it, and only to files written during the run.
func TestBazelTestlogsRefused(t *testing.T) {
	t.Run("link to a folder that is not Bazel's", func(t *testing.T) {
		start := time.Now().Add(-time.Second)
		ws, _ := bazelProject(t)
		elsewhere := filepath.Join(t.TempDir(), "planted")
		require.NoError(t, os.MkdirAll(filepath.Join(elsewhere, "pkg", "t"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(elsewhere, "pkg", "t", "test.xml"),
			[]byte(`<testsuite name="pkg/t"><testcase name="pkg/t"/></testsuite>`), 0o644))
		require.NoError(t, os.Symlink(elsewhere, filepath.Join(ws, "bazel-testlogs")))

		w := walkRepository(ws, nil, start, "")
		assert.Empty(t, w.paths)
		require.Len(t, w.reasons, 1)
		assert.Contains(t, w.reasons[0], "bazel-testlogs is a symbolic link to "+elsewhere)
		assert.Contains(t, w.reasons[0], "not followed")
	})
	t.Run("link to a file", func(t *testing.T) {
		start := time.Now().Add(-time.Second)
		ws, ob := bazelProject(t)
		f := filepath.Join(ob, filepath.FromSlash(bazelTestlogsRel), "app", "server", "server_test", "test.xml")
		require.NoError(t, os.Symlink(f, filepath.Join(ws, "bazel-testlogs")))
		w := walkRepository(ws, nil, start, "")
		assert.Empty(t, w.paths)
		require.Len(t, w.reasons, 1)
		assert.Contains(t, w.reasons[0], "not followed")
	})
	t.Run("link below the root", func(t *testing.T) {
		start := time.Now().Add(-time.Second)
		ws, ob := bazelProject(t)
		logs := filepath.Join(ob, filepath.FromSlash(bazelTestlogsRel))
		require.NoError(t, os.Symlink(logs, filepath.Join(ws, "lib", "bazel-testlogs")))
		w := walkRepository(ws, nil, start, "")
		assert.Empty(t, w.paths)
		assert.Empty(t, w.reasons)
	})
	t.Run("dangling link", func(t *testing.T) {
		// The output base was removed (bazel clean --expunge, a fresh
		// cache): nothing can have been written there.
		start := time.Now().Add(-time.Second)
		ws, ob := bazelProject(t)
		logs := filepath.Join(ob, filepath.FromSlash(bazelTestlogsRel))
		require.NoError(t, os.Symlink(logs, filepath.Join(ws, "bazel-testlogs")))
		require.NoError(t, os.RemoveAll(ob))
		w := walkRepository(ws, nil, start, "")
		assert.Empty(t, w.paths)
		assert.Empty(t, w.reasons)
	})
	t.Run("stale reports and links inside", func(t *testing.T) {
		start := time.Now().Add(-time.Second)
		ws, ob := bazelProject(t)
		logs := filepath.Join(ob, filepath.FromSlash(bazelTestlogsRel))
		require.NoError(t, os.Symlink(logs, filepath.Join(ws, "bazel-testlogs")))
		// A target Bazel did not run this time keeps its old test.xml.
		old := filepath.Join(logs, "app", "server", "server_test", "test.xml")
		before := start.Add(-time.Hour)
		require.NoError(t, os.Chtimes(old, before, before))
		// A folder and a report inside the logs that are links.
		outside := filepath.Join(t.TempDir(), "outside")
		require.NoError(t, os.MkdirAll(filepath.Join(outside, "t"), 0o755))
		planted := filepath.Join(outside, "t", "test.xml")
		require.NoError(t, os.WriteFile(planted, []byte(`<testsuite name="x"><testcase name="planted"/></testsuite>`), 0o644))
		require.NoError(t, os.Symlink(outside, filepath.Join(logs, "linked")))
		require.NoError(t, os.MkdirAll(filepath.Join(logs, "pkg", "t"), 0o755))
		fileLink := filepath.Join(logs, "pkg", "t", "test.xml")
		require.NoError(t, os.Symlink(planted, fileLink))

		w := walkRepository(ws, nil, start, "")
		assert.NotContains(t, w.paths, old)
		assert.NotContains(t, w.paths, filepath.Join(logs, "linked", "t", "test.xml"))
		assert.Contains(t, w.paths, fileLink, "listed, for report to refuse")

		run := readWalk(t, w, start)
		assert.False(t, run.Complete)
		assert.NotContains(t, run.Cases, "x::planted")
		assert.NotContains(t, run.Cases, "app/server/server_test")
		assert.Contains(t, strings.Join(run.IncompleteReasons, "\n"), "symbolic link")
		assert.Equal(t, 4, run.Counts.Total)
	})
}

// TestBazelUsualPlace: a bazel-testlogs folder that is no link (copied out
// of the output base, as CI caches do) is a usual place for test.xml, and
// only for test.xml.
func TestBazelUsualPlace(t *testing.T) {
	for path, want := range map[string]bool{
		"bazel-testlogs/app/server/server_test/test.xml":                    true,
		"bazel-testlogs/pkg/t/shard_1_of_2/test.xml":                        true,
		"sub/bazel-testlogs/pkg/t/test.xml":                                 true,
		"bazel-testlogs/java/calc/CalcTest/test_attempts/attempt_1.xml":     false,
		"bazel-testlogs/pkg/t/test.outputs/result.xml":                      false,
		"testlogs/pkg/t/test.xml":                                           false,
		"bazel-testlogs/pkg/t/test.log":                                     false,
		"execroot/_main/bazel-out/k8-fastbuild/testlogs/pkg/t/test.xml":     false,
		"bazel-testlogs/pkg/t/test.outputs/test-results/TEST-com.x.Foo.xml": true,
	} {
		assert.Equal(t, want, usualPlace(path), path)
	}
	for target, want := range map[string]bool{
		"/home/u/.cache/bazel/_bazel_u/6a1f/execroot/_main/bazel-out/k8-fastbuild/testlogs": true,
		"/tmp/ob/execroot/ws/bazel-out/darwin_arm64-opt/testlogs":                           true,
		"/tmp/ob/execroot/ws/bazel-out/k8-fastbuild/testlogs/pkg":                           false,
		"/tmp/ob/execroot/bazel-out/k8-fastbuild/testlogs":                                  false,
		"/tmp/ob/bazel-out/k8-fastbuild/testlogs":                                           false,
		"/tmp/testlogs": false,
	} {
		assert.Equal(t, want, bazelOutputTree.MatchString(target), target)
	}
}
