package check

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"time"
)

// Bounds of the walk over the repository for reports.
const (
	// MaxWalkDepth is how deep below the repository the walk looks.
	MaxWalkDepth = 16
	// MaxWalkEntries is how many files and folders the walk examines; a
	// repository with more makes the run incomplete (a report may have been
	// missed).
	MaxWalkEntries = 200_000
)

// skipDirs are folders the walk never enters: they hold no report a check
// writes, and can be huge.
var skipDirs = map[string]bool{
	".git": true, ".hg": true, ".svn": true, "node_modules": true,
	".venv": true, "venv": true, "__pycache__": true, ".pytest_cache": true, ".mypy_cache": true,
}

// usualPlace reports whether a file at rel (slash-separated, relative to
// the repository) is where a common runner writes a test or coverage
// report: Maven surefire and failsafe and Gradle (TEST-*.xml under
// target/surefire-reports, target/failsafe-reports, build/test-results),
// cargo-nextest (target/nextest/<profile>/junit.xml), vitest, jest and
// others (*junit*.xml), Bazel (bazel-testlogs/**/test.xml, each test
// target's report), anything in test-results/ or test-reports/, and
// coverage: coverage.xml, cobertura*.xml, lcov.info and *.lcov.
func usualPlace(rel string) bool {
	parts := strings.Split(rel, "/")
	name := parts[len(parts)-1]
	lower := strings.ToLower(name)
	dirs := parts[:len(parts)-1]
	xml := strings.HasSuffix(lower, ".xml")
	switch {
	case lower == "coverage.xml", lower == "lcov.info", strings.HasSuffix(lower, ".lcov"),
		strings.HasPrefix(lower, "cobertura") && xml,
		strings.Contains(lower, "junit") && xml:
		return true
	}
	if !xml {
		return false
	}
	if strings.HasPrefix(name, "TEST-") {
		for i := 0; i+1 < len(dirs); i++ {
			switch dirs[i] + "/" + dirs[i+1] {
			case "target/surefire-reports", "target/failsafe-reports", "build/test-results":
				return true
			}
		}
	}
	for _, d := range dirs {
		if d == "test-results" || d == "test-reports" || (d == bazelTestlogs && name == bazelReport) {
			return true
		}
	}
	return false
}

// Bazel leaves at the workspace root a symbolic link, bazel-testlogs, to
// the test logs in its output base:
// <output_base>/execroot/<workspace>/bazel-out/<config>/testlogs, where
// each test target's report is <package>/<target>/test.xml (and, for a
// sharded or repeated target, shard_N_of_M/ or run_N_of_M/ below it).
// The output base is under the user's cache (~/.cache/bazel/_bazel_<user>/
// <hash>), or where --output_base or --output_user_root put it.
const (
	bazelTestlogs = "bazel-testlogs"
	bazelReport   = "test.xml"
)

// bazelOutputTree matches the end of a path that is Bazel's test logs
// folder in an output base.
var bazelOutputTree = regexp.MustCompile(`/execroot/[^/]+/bazel-out/[^/]+/testlogs$`)

// bazelLogs resolves the bazel-testlogs link at the repository root. It
// returns the folder the link leads to when that is Bazel's test logs
// folder (see bazelOutputTree), "" when the link leads nowhere (the output
// base was removed: no report can be there), and an error naming the
// target for a link to anything else, which is not followed.
func bazelLogs(link string) (string, error) {
	target, err := filepath.EvalSymlinks(link)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("%s could not be followed: %v", bazelTestlogs, err)
	}
	if fi, err := os.Stat(target); err != nil || !fi.IsDir() || !bazelOutputTree.MatchString(filepath.ToSlash(target)) {
		return "", fmt.Errorf("%s is a symbolic link to %s, not to Bazel's test logs (<output_base>/execroot/<workspace>/bazel-out/<config>/testlogs): not followed", bazelTestlogs, target)
	}
	return target, nil
}

// glob is a pattern relative to the repository, split at "/"; "**" stands
// for any number of folders.
type glob []string

var errGlob = errors.New("check: verify_reports")

// parseGlob checks a declared glob: relative, inside the repository (no
// ".." segment), and well-formed for path.Match.
func parseGlob(s string) (glob, error) {
	s = filepath.ToSlash(strings.TrimSpace(s))
	if s == "" || strings.HasPrefix(s, "/") || filepath.IsAbs(s) {
		return nil, fmt.Errorf("%w: %q is not relative to the repository", errGlob, s)
	}
	var g glob
	for _, seg := range strings.Split(s, "/") {
		switch seg {
		case "", ".":
			continue
		case "..":
			return nil, fmt.Errorf("%w: %q leaves the repository", errGlob, s)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return nil, fmt.Errorf("%w: %q: %v", errGlob, s, err)
		}
		g = append(g, seg)
	}
	if len(g) == 0 {
		return nil, fmt.Errorf("%w: %q names nothing", errGlob, s)
	}
	return g, nil
}

// match reports whether the slash-separated relative path's segments match
// the glob.
func (g glob) match(parts []string) bool {
	if len(g) == 0 {
		return len(parts) == 0
	}
	if g[0] == "**" {
		for i := 0; i <= len(parts); i++ {
			if g[1:].match(parts[i:]) {
				return true
			}
		}
		return false
	}
	if len(parts) == 0 {
		return false
	}
	ok, _ := path.Match(g[0], parts[0])
	return ok && g[1:].match(parts[1:])
}

// walkResult is what the walk over the repository found.
type walkResult struct {
	paths   []string
	reasons []string
	// notes name the folders of other runs whose reports were passed over.
	notes []string
	// others caches, for each folder looked at, whether it is another
	// run's report folder or lies in one.
	others map[string]bool
}

// otherRun reports whether the folder dir, which holds a report found
// under root that changed since start, is the report folder of another run
// or lies in one: a folder between dir and root (root itself aside) that
// another run in progress claims (see claimFolder), or that holds the
// TEST-RESULTS.json of a run that ended since start. Such a run's reports
// are its own evidence, read with its run: this run reading them too would
// count tests it never ran. A run that ended before start owns nothing
// written since (a runner writing its reports where an earlier --out put
// its run), and a folder this process claims is this run's own, or its
// first run's while a rerun runs.
func (res *walkResult) otherRun(dir, root, own string, start time.Time) bool {
	if res.others == nil {
		res.others = map[string]bool{}
	}
	var seen []string
	other := false
	for d := dir; d != root && d != own && strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if o, ok := res.others[d]; ok {
			other = o
			break
		}
		seen = append(seen, d)
		if fi, err := os.Stat(d); err == nil && claimedHere(fi) {
			break
		}
		fi, err := os.Lstat(filepath.Join(d, ResultsFile))
		ended := err == nil && fi.Mode().IsRegular() && !fi.ModTime().Before(start)
		if ended || claimedElsewhere(d) {
			other = true
			res.notes = append(res.notes, fmt.Sprintf("%s is the report folder of another run: the reports in it were not read", d))
			break
		}
	}
	for _, d := range seen {
		res.others[d] = other
	}
	return other
}

// walkRepository lists the files under root that a declared glob or a
// usual place names and that changed at or after start (their own
// modification time: a symbolic link is listed by its own time, and
// report then refuses it). Files that predate start are passed over: a
// repository's earlier builds leave them, and they are not this run's.
// Links are never followed, but for one: bazel-testlogs at the root, when
// it leads to Bazel's test logs folder (see bazelLogs), whose test.xml
// files are listed by the path the link leads to (no link in it, so report
// reads them), links inside it again not followed. A bazel-testlogs link
// to anything else is refused: the run is incomplete with the reason.
// Reports in another run's folder are passed over (see otherRun); own is
// this run's folder.
func walkRepository(root string, globs []glob, start time.Time, own string) walkResult {
	var res walkResult
	entries := 0
	bazel := ""
	stopped, err := walkBounded(root, &entries, func(p, rel string, d fs.DirEntry) error {
		if rel == bazelTestlogs && d.Type()&fs.ModeSymlink != 0 {
			target, err := bazelLogs(p)
			if err != nil {
				res.reasons = append(res.reasons, err.Error())
			}
			bazel = target
			return nil
		}
		if d.IsDir() {
			if skipDirs[d.Name()] || strings.Count(rel, "/")+1 >= MaxWalkDepth {
				return filepath.SkipDir
			}
			return nil
		}
		parts := splitSlash(rel)
		wanted := usualPlace(rel)
		for _, g := range globs {
			if wanted {
				break
			}
			wanted = g.match(parts)
		}
		if wanted && changedSince(d, start) && !res.otherRun(filepath.Dir(p), root, own, start) {
			res.paths = append(res.paths, p)
		}
		return nil
	})
	if err != nil {
		res.reasons = append(res.reasons, fmt.Sprintf("the repository could not be searched for reports: %v", err))
	}
	if bazel != "" && !stopped {
		stopped = walkBazelLogs(bazel, start, &entries, &res)
	}
	if stopped {
		res.reasons = append(res.reasons, fmt.Sprintf("the search for reports stopped after %d files and folders: a report may have been missed", MaxWalkEntries))
	}
	return res
}

// walkBazelLogs lists the test.xml files under Bazel's test logs folder
// dir that changed at or after start, within the walk's bounds (entries is
// the count so far); it reports whether the bound on entries stopped it.
// Links are not followed (WalkDir never does); one named test.xml is
// listed, and report refuses it.
func walkBazelLogs(dir string, start time.Time, entries *int, res *walkResult) (stopped bool) {
	stopped, err := walkBounded(dir, entries, func(p, rel string, d fs.DirEntry) error {
		if d.IsDir() {
			// The logs folder counts as one level below the repository.
			if strings.Count(rel, "/")+2 >= MaxWalkDepth {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Name() == bazelReport {
			res.addChanged(p, d, start)
		}
		return nil
	})
	if err != nil {
		res.reasons = append(res.reasons, fmt.Sprintf("Bazel's test logs could not be searched for reports: %v", err))
	}
	return stopped
}

// walkBounded walks the tree at root, links never followed (WalkDir never
// does), calling visit for each entry below root with its path relative
// to root, slash-separated. An entry that cannot be read is passed over,
// a folder with all it holds; a root that cannot be read is the error.
// The entries are counted in *entries, and the walk stops (stopped) once
// they pass MaxWalkEntries.
func walkBounded(root string, entries *int, visit func(p, rel string, d fs.DirEntry) error) (stopped bool, err error) {
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if p == root {
			return nil
		}
		*entries++
		if *entries > MaxWalkEntries {
			stopped = true
			return filepath.SkipAll
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil {
			return nil
		}
		return visit(p, filepath.ToSlash(rel), d)
	})
	return stopped, err
}

// addChanged lists the file p when it changed at or after start (its own
// modification time).
func (res *walkResult) addChanged(p string, d fs.DirEntry, start time.Time) {
	if changedSince(d, start) {
		res.paths = append(res.paths, p)
	}
}

// changedSince reports whether the entry d changed at or after start (its
// own modification time).
func changedSince(d fs.DirEntry, start time.Time) bool {
	fi, err := d.Info()
	return err == nil && !fi.ModTime().Before(start)
}

// declaredGlobs reads the repository's verify_reports globs from
// .hangar/environment.yaml. A missing file declares none.
func declaredGlobs(repo string) ([]glob, error) {
	p := filepath.Join(repo, ".hangar", "environment.yaml")
	b, err := readConfig(p)
	if err != nil {
		return nil, fmt.Errorf("check: %s: %w", p, err)
	}
	if b == nil {
		return nil, nil
	}
	raw, err := verifyReports(b)
	if err != nil {
		return nil, err
	}
	globs := make([]glob, 0, len(raw))
	for _, s := range raw {
		g, err := parseGlob(s)
		if err != nil {
			return nil, err
		}
		globs = append(globs, g)
	}
	return globs, nil
}

// existing keeps the paths that exist (as files or links, not followed), so
// that a runner that was never invoked leaves no reason behind.
func existing(paths []string) []string {
	var out []string
	for _, p := range paths {
		if fi, err := os.Lstat(p); err == nil && !fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}

func splitSlash(rel string) []string { return strings.Split(rel, "/") }
