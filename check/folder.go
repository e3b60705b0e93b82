package check

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// ReasonReplaced is the incomplete reason of a run whose report folder was
// replaced or removed while the check ran (by a link to another folder, or
// another folder of the same name): what is there now is not the run's, so
// it is neither read nor written.
const ReasonReplaced = "the report folder was replaced while the check ran: its reports are not read and nothing is written there"

// notRunEntries are names that no run writes in its report folder and that
// mark a repository or a source tree: a folder holding one is never
// emptied.
var notRunEntries = map[string]bool{
	".git": true, ".hg": true, ".svn": true, ".hangar": true,
	"go.mod": true, "go.sum": true, "package.json": true, "pyproject.toml": true, "setup.py": true,
	"setup.cfg": true, "Cargo.toml": true, "pom.xml": true, "build.gradle": true,
	"build.gradle.kts": true, "Makefile": true, "CMakeLists.txt": true, "Gemfile": true,
	"composer.json": true, "README.md": true,
}

// sourceExts are extensions of source files, which no runner writes in a
// report folder.
var sourceExts = map[string]bool{
	".go": true, ".py": true, ".js": true, ".mjs": true, ".cjs": true, ".ts": true, ".tsx": true,
	".jsx": true, ".java": true, ".kt": true, ".rs": true, ".c": true, ".h": true, ".cc": true,
	".cpp": true, ".rb": true, ".php": true, ".cs": true, ".swift": true, ".scala": true, ".sh": true,
}

// freshDir makes dir a fresh, empty report folder, opens it and claims it
// for this run (see claimFolder): made when missing, used when empty,
// emptied when it holds an earlier run's folder alone (see earlierRun),
// refused otherwise, when it is a symbolic link, or while another run holds
// it. Every later read and write of the folder goes through the returned
// root, which stays on the folder it opened; the claim is held until the
// returned claim is closed (nil where the folder could not be claimed). It
// returns the time from which a file counts as written by the run: start,
// or the file system's own clock when that is behind (file times come from
// a coarser clock).
func freshDir(dir string, start time.Time) (*os.Root, *folderClaim, time.Time, error) {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return nil, nil, time.Time{}, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	root, err := openFolder(dir, fi)
	if err != nil {
		return nil, nil, time.Time{}, err
	}
	// The claim comes before anything in the folder is looked at: a run
	// that holds it may be writing there.
	claim, err := claimFolder(root, dir)
	if err != nil {
		_ = root.Close() // an error path: the claim is the error to report
		return nil, nil, time.Time{}, err
	}
	fail := func(err error) (*os.Root, *folderClaim, time.Time, error) {
		if claim != nil {
			_ = claim.Close() // an error path: the first error is the one to report
		}
		_ = root.Close() // an error path: the first error is the one to report
		return nil, nil, time.Time{}, err
	}
	entries, err := readDir(root)
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrReportDir, err))
	}
	if len(entries) > 0 {
		if err := earlierRun(root, entries); err != nil {
			return fail(fmt.Errorf("%w: %s is not empty and is not an earlier run's folder: %v", ErrReportDir, dir, err))
		}
		for _, e := range entries {
			if err := root.Remove(e.Name()); err != nil {
				return fail(fmt.Errorf("%w: %v", ErrReportDir, err))
			}
		}
	}
	mark, name, err := createTemp(root, ".start-")
	if err != nil {
		return fail(fmt.Errorf("%w: %v", ErrReportDir, err))
	}
	mfi, err := mark.Stat()
	_ = mark.Close()      // an empty file, only its time is read
	_ = root.Remove(name) // a dot-file left behind is not a run's file and is removed by the next run
	if err == nil && mfi.ModTime().Before(start) {
		return root, claim, mfi.ModTime(), nil
	}
	return root, claim, start, nil
}

// plainFolder refuses dir, whose Lstat is fi, with an error wrapping kind
// unless it is a folder and not a symbolic link.
func plainFolder(dir string, fi fs.FileInfo, kind error) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("%w: %s is a symbolic link", kind, dir)
	case !fi.IsDir():
		return fmt.Errorf("%w: %s is not a folder", kind, dir)
	}
	return nil
}

// openFolder opens the folder dir, whose Lstat is fi, as a root: it must be
// a folder, not a symbolic link, and still the same folder once opened.
func openFolder(dir string, fi fs.FileInfo) (*os.Root, error) {
	if err := plainFolder(dir, fi, ErrReportDir); err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	rfi, err := root.Stat(".")
	if err != nil || !os.SameFile(fi, rfi) {
		_ = root.Close() // an error path: the change is the error to report
		return nil, fmt.Errorf("%w: %s changed while it was opened", ErrReportDir, dir)
	}
	return root, nil
}

// openDir opens the report folder dir by its path, for writers given a path
// only: it must not be a symbolic link.
func openDir(dir string) (*os.Root, error) {
	fi, err := os.Lstat(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReportDir, err)
	}
	return openFolder(dir, fi)
}

// sameFolder reports whether dir still names the folder root opened: not
// removed, not replaced by a link or another folder.
func sameFolder(dir string, root *os.Root) bool {
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() {
		return false
	}
	rfi, err := root.Stat(".")
	return err == nil && os.SameFile(fi, rfi)
}

// maxFolderEntries bounds the entries of a folder freshDir examines: an
// earlier run's folder holds a handful.
const maxFolderEntries = 10_000

func readDir(root *os.Root) ([]fs.DirEntry, error) {
	f, err := root.Open(".")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := f.ReadDir(maxFolderEntries + 1)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	if len(entries) > maxFolderEntries {
		return nil, fmt.Errorf("it holds more than %d entries", maxFolderEntries)
	}
	return entries, err
}

// earlierRun says why a non-empty folder is not an earlier run's (nil when
// it is one): such a folder holds TEST-RESULTS.json and output.log, which
// Run and WriteResults write, the run itself reads back strictly as a run
// with an id (run.json when there is one, else TEST-RESULTS.json), and
// every entry is a regular file that is neither a source file nor the mark
// of a repository (.git, go.mod, package.json, ...). A sub-folder, a link
// or any other entry is refused by name: only files are ever removed, and
// the reports a runner wrote there (pytest.xml, gotestsum.xml, junit.xml,
// coverage files) are files.
func earlierRun(root *os.Root, entries []fs.DirEntry) error {
	has, err := runEntries(entries)
	if err != nil {
		return err
	}
	for _, name := range []string{ResultsFile, OutputFile} {
		if !has[name] {
			return fmt.Errorf("it holds no %s", name)
		}
	}
	name := ResultsFile
	if has[RunFile] {
		name = RunFile
	}
	run, err := readRunIn(root, name)
	if err != nil {
		return fmt.Errorf("%s is not a run's: %v", name, err)
	}
	if !testrun.ValidID(run.ID) || run.StartedAt.IsZero() {
		return fmt.Errorf("%s is not a run's: no run id or start", name)
	}
	if name == RunFile {
		var head struct {
			ID string `json:"id"`
		}
		f, err := root.Open(ResultsFile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := json.NewDecoder(io.LimitReader(f, testrun.MaxJSONBytes+1)).Decode(&head); err != nil || head.ID != run.ID {
			return fmt.Errorf("%s is not the results of the run in %s", ResultsFile, RunFile)
		}
	}
	return nil
}

// runEntries checks that entries are what a run's folder may hold: regular
// files only, none of them a source file or the mark of a repository (a
// sub-folder, a link or any other entry is refused by name), and returns
// their names.
func runEntries(entries []fs.DirEntry) (map[string]bool, error) {
	has := map[string]bool{}
	for _, e := range entries {
		name := e.Name()
		switch {
		case notRunEntries[name]:
			return nil, fmt.Errorf("it holds %s, the mark of a repository or a source tree", name)
		case sourceExts[strings.ToLower(path.Ext(name))]:
			return nil, fmt.Errorf("it holds %s, a source file", name)
		case e.IsDir():
			return nil, fmt.Errorf("it holds the folder %s (only files are removed; remove it yourself)", name)
		case !e.Type().IsRegular():
			return nil, fmt.Errorf("it holds %s, which is not a regular file (%s)", name, e.Type())
		}
		has[name] = true
	}
	return has, nil
}

// readRunIn reads the run in the file name of root, strictly.
func readRunIn(root *os.Root, name string) (*testrun.Run, error) {
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	return testrun.ReadRun(f)
}

// createTemp creates a new file in root named prefix and a random suffix,
// never opening one that exists.
func createTemp(root *os.Root, prefix string) (*os.File, string, error) {
	var b [8]byte
	for range 100 {
		rand.Read(b[:])
		name := prefix + hex.EncodeToString(b[:])
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, name, err
	}
	return nil, "", fmt.Errorf("check: no free temporary name for %s", prefix)
}
