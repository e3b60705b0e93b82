package check

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

func TestPrune(t *testing.T) {
	now := time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)
	root := t.TempDir()
	mk := func(name, kind string, age time.Duration, withCases bool) string {
		dir := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(dir, 0o755))
		cases := `null`
		if withCases {
			cases = `{"a::b": "failed", "a::c": "passed"}, "durations": {"a::b": 0.5}`
		}
		k := `null`
		if kind != "" {
			k = `"` + kind + `"`
		}
		body := `{"id": "` + name + `", "kind": ` + k + `, "started_at": "` + now.Add(-age).Format(time.RFC3339) +
			`", "counts": {"total": 2, "passed": 1, "failed": 1, "errors": 0, "skipped": 0, "flaky": 0}, "failures": [{"id": "a::b", "outcome": "failed", "message": "m", "flaky": false}], "cases": ` + cases + `, "new_failures": ["a::b"]}`
		require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), []byte(body), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(dir, "output.log"), []byte("out"), 0o644))
		return dir
	}
	fresh := mk("fresh", "after_turn", time.Hour, true)
	fourDays := mk("four-days", "after_turn", 4*24*time.Hour, true)
	baseFourDays := mk("base-four-days", "base", 4*24*time.Hour, true)
	old := mk("old", "base", 15*24*time.Hour, true)
	// No TEST-RESULTS.json (the run was killed): its folder's time dates it.
	killed := filepath.Join(root, "killed")
	require.NoError(t, os.MkdirAll(killed, 0o755))
	past := now.Add(-20 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(killed, past, past))
	// Folders that are not a run's, however old: never removed.
	notRun := filepath.Join(root, "src")
	require.NoError(t, os.MkdirAll(notRun, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(notRun, "main.go"), nil, 0o644))
	require.NoError(t, os.Chtimes(notRun, past, past))
	badName := filepath.Join(root, ".cache")
	require.NoError(t, os.MkdirAll(badName, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(badName, OutputFile), nil, 0o644))
	require.NoError(t, os.Chtimes(badName, past, past))
	// A link to a folder elsewhere, which is never followed into.
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "keep"), nil, 0o644))
	require.NoError(t, os.Chtimes(outside, past, past))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "link")))
	before, err := os.Stat(filepath.Join(fourDays, ResultsFile))
	require.NoError(t, err)

	p, err := Prune(root, now)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{old, killed}, p.Removed)
	assert.Equal(t, []string{filepath.Join(fourDays, ResultsFile)}, p.CasesDropped)
	var skipped []string
	for _, s := range p.Skipped {
		skipped = append(skipped, s.Path)
	}
	assert.ElementsMatch(t, []string{filepath.Join(root, "link"), notRun, badName}, skipped)
	assert.FileExists(t, filepath.Join(notRun, "main.go"), "a folder that is not a run's is never removed")
	assert.DirExists(t, badName)
	assert.FileExists(t, filepath.Join(outside, "keep"))
	assert.NoDirExists(t, old)

	read := func(dir string) map[string]json.RawMessage {
		b, err := os.ReadFile(filepath.Join(dir, ResultsFile))
		require.NoError(t, err)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &m))
		return m
	}
	got := read(fourDays)
	assert.Equal(t, "null", string(got["cases"]))
	assert.NotContains(t, got, "durations", "durations go with the cases")
	assert.Contains(t, string(got["counts"]), `"failed": 1`, "counts stay")
	assert.Contains(t, string(got["failures"]), "a::b", "failures stay")
	assert.Contains(t, string(got["new_failures"]), "a::b", "other fields stay")
	after, err := os.Stat(filepath.Join(fourDays, ResultsFile))
	require.NoError(t, err)
	assert.Equal(t, before.ModTime(), after.ModTime(), "the rewrite keeps the file's time")
	assert.NotEqual(t, "null", string(read(fresh)["cases"]))
	assert.Contains(t, read(fresh), "durations")
	assert.NotEqual(t, "null", string(read(baseFourDays)["cases"]), "a base run keeps its cases 14 days")

	// Pruning again changes nothing.
	p, err = Prune(root, now)
	require.NoError(t, err)
	assert.Empty(t, p.Removed)
	assert.Empty(t, p.CasesDropped)

	// The root itself may not be a link; a missing root is nothing to do.
	link := filepath.Join(t.TempDir(), "rootlink")
	require.NoError(t, os.Symlink(root, link))
	_, err = Prune(link, now)
	assert.ErrorIs(t, err, ErrPruneRoot)
	p, err = Prune(filepath.Join(root, "missing"), now)
	require.NoError(t, err)
	assert.Empty(t, p.Removed)
}

func TestPruneLinkedResults(t *testing.T) {
	now := time.Now()
	root := t.TempDir()
	dir := filepath.Join(root, "run")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	target := filepath.Join(t.TempDir(), "elsewhere.json")
	body := `{"id": "x", "kind": null, "started_at": "` + now.Add(-5*24*time.Hour).Format(time.RFC3339) + `", "cases": {"a": "passed"}}`
	require.NoError(t, os.WriteFile(target, []byte(body), 0o644))
	require.NoError(t, os.Symlink(target, filepath.Join(dir, ResultsFile)))
	_, err := Prune(root, now)
	require.NoError(t, err)
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, body, string(b), "a linked TEST-RESULTS.json is not written through")
}

// retentionGrid is every kind (and no kind) at the ages around each limit
// of testrun's retention: Prune and the store's PruneRuns are each checked
// against testrun.Retain on it, so they agree with each other.
func retentionGrid() (kinds []testrun.Kind, ages []time.Duration) {
	kinds = append([]testrun.Kind{""}, testrun.Kinds...)
	for _, k := range kinds {
		for _, limit := range []time.Duration{testrun.CasesRetentionFor(k), testrun.RunRetention} {
			ages = append(ages, limit-time.Second, limit, limit+time.Second)
		}
	}
	slices.Sort(ages)
	return kinds, slices.Compact(ages)
}

func TestPruneFollowsRetain(t *testing.T) {
	now := time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)
	root := t.TempDir()
	kinds, ages := retentionGrid()
	want := map[string]testrun.Retained{}
	for _, k := range kinds {
		for i, age := range ages {
			name := fmt.Sprintf("k%s-%d", k, i)
			dir := filepath.Join(root, name)
			require.NoError(t, os.MkdirAll(dir, 0o755))
			kind := `null`
			if k != "" {
				kind = `"` + string(k) + `"`
			}
			body := `{"id": "` + name + `", "kind": ` + kind + `, "started_at": "` + now.Add(-age).Format(time.RFC3339) +
				`", "cases": {"a": "passed"}, "durations": {"a": 0.5}}`
			require.NoError(t, os.WriteFile(filepath.Join(dir, ResultsFile), []byte(body), 0o644))
			want[dir] = testrun.Retain(k, age)
		}
	}
	p, err := Prune(root, now)
	require.NoError(t, err)
	require.Empty(t, p.Skipped)
	got := map[string]testrun.Retained{}
	for dir := range want {
		got[dir] = testrun.RetainAll
	}
	for _, dir := range p.Removed {
		got[dir] = testrun.RetainNothing
	}
	for _, f := range p.CasesDropped {
		got[filepath.Dir(f)] = testrun.RetainCounts
	}
	assert.Equal(t, want, got)
	assert.NotEmpty(t, p.Removed)
	assert.NotEmpty(t, p.CasesDropped)
}

func TestPrunedLines(t *testing.T) {
	p := &Pruned{Removed: []string{"/r/old"}, CasesDropped: []string{"/r/mid/TEST-RESULTS.json"}, Skipped: []PruneSkip{{Path: "/r/x", Reason: "not a run folder"}}}
	want := []string{
		"removed /r/old",
		"dropped the per-case map of /r/mid/TEST-RESULTS.json",
		"skipped /r/x: not a run folder",
		"testresults prune: 1 run folders removed, 1 per-case maps dropped",
	}
	if got := p.Lines(); !slices.Equal(got, want) {
		t.Fatalf("Lines = %q, want %q", got, want)
	}
	if got := (&Pruned{}).Lines(); len(got) != 1 {
		t.Fatalf("nothing pruned: %q, want the count line alone", got)
	}
	if got, want := RunsDir("/home/u"), filepath.Join("/home/u", ".hangar", "tests"); got != want {
		t.Fatalf("RunsDir = %q, want %q", got, want)
	}
}

// TestRunsDirOr: a named folder wins; else the folder under $HOME; with
// neither, ErrNoRunsDir.
func TestRunsDirOr(t *testing.T) {
	env := func(home string) func(string) string {
		return func(k string) string {
			if k == "HOME" {
				return home
			}
			return ""
		}
	}
	got, err := RunsDirOr("/runs", env("/h"))
	require.NoError(t, err)
	assert.Equal(t, "/runs", got)
	got, err = RunsDirOr("", env("/h"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join("/h", ".hangar", "tests"), got)
	_, err = RunsDirOr("", env(""))
	assert.ErrorIs(t, err, ErrNoRunsDir)
}

// TestPruneLeavesWhatIsNotARunsAlone: prune removes only what a run's
// folder holds. A folder named like a run that holds a repository's marks,
// sources, sub-folders or files beside a run's is skipped whole; so is a
// folder a run in progress claims; a root named through a link with a
// final "/" is refused; and a run's run.json loses its cases with its
// TEST-RESULTS.json.
func TestPruneLeavesWhatIsNotARunsAlone(t *testing.T) {
	now := time.Date(2026, 6, 30, 12, 0, 0, 0, time.UTC)
	past := now.Add(-30 * 24 * time.Hour)
	root := t.TempDir()
	mk := func(name string, files map[string]string, dirs ...string) string {
		dir := filepath.Join(root, name)
		for _, d := range dirs {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
		}
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for f, body := range files {
			require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte(body), 0o644))
		}
		require.NoError(t, os.Chtimes(dir, past, past))
		return dir
	}
	repo := mk("myproj", map[string]string{OutputFile: "log", "go.mod": "module x", "main.go": "package main"}, ".git")
	results := mk("results", map[string]string{ResultsFile: `{"id": "r"}`, "notes.txt": "mine"}, "r-1")
	sources := mk("scripts", map[string]string{OutputFile: "log", "run.sh": "echo"})

	live := filepath.Join(root, "live")
	liveRoot, claim, _, err := freshDir(live, now)
	require.NoError(t, err)
	defer liveRoot.Close()
	defer claim.Close()
	require.NoError(t, os.WriteFile(filepath.Join(live, "junit.xml"), []byte("<testsuite/>"), 0o644))
	require.NoError(t, os.Chtimes(live, past, past))

	mid := mk("mid", map[string]string{OutputFile: "log"})
	started := now.Add(-5 * 24 * time.Hour).Format(time.RFC3339)
	withCases := `{"id": "mid", "kind": "after_turn", "started_at": "` + started + `", "cases": {"a": "passed"}, "durations": {"a": 1}}`
	for _, f := range []string{ResultsFile, RunFile} {
		require.NoError(t, os.WriteFile(filepath.Join(mid, f), []byte(withCases), 0o644))
	}

	p, err := Prune(root+string(filepath.Separator), now)
	require.NoError(t, err)
	assert.Empty(t, p.Removed)
	reasons := map[string]string{}
	for _, s := range p.Skipped {
		reasons[s.Path] = s.Reason
	}
	assert.Contains(t, reasons[repo], "the mark of a repository")
	assert.Contains(t, reasons[results], "holds the folder r-1")
	assert.Contains(t, reasons[sources], "a source file")
	assert.Equal(t, "a run in progress holds it", reasons[live])
	assert.DirExists(t, filepath.Join(repo, ".git"))
	for _, f := range []string{filepath.Join(repo, "main.go"), filepath.Join(results, "notes.txt"), filepath.Join(live, "junit.xml")} {
		assert.FileExists(t, f)
	}
	for _, f := range []string{ResultsFile, RunFile} {
		b, err := os.ReadFile(filepath.Join(mid, f))
		require.NoError(t, err)
		var m map[string]json.RawMessage
		require.NoError(t, json.Unmarshal(b, &m))
		assert.Equal(t, "null", string(m["cases"]), f)
		assert.NotContains(t, m, "durations", f)
	}

	link := filepath.Join(t.TempDir(), "link")
	require.NoError(t, os.Symlink(root, link))
	for _, named := range []string{link, link + string(filepath.Separator), link + string(filepath.Separator) + "."} {
		_, err = Prune(named, now.Add(365*24*time.Hour))
		assert.ErrorIs(t, err, ErrPruneRoot, "%s", named)
	}
	assert.DirExists(t, mid)
}
