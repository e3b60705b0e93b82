package report

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Entry is one path Find found.
type Entry struct {
	// Path is the file's path: as given, or joined under the folder given.
	Path string
	// Size is the file's size in bytes when known.
	Size int64
	// Err is nil for a file to read. Otherwise it says why the path is not
	// read: refused (a symbolic link, not a regular file, unreadable, older
	// than the run in the run's own report folder) or, when Skip is set,
	// skipped (ErrStale).
	Err  error
	Skip bool
	// found is set for a file a search found (in a folder walked, or marked
	// by WithFound) outside the run's own report folder: a well-formed file
	// with an unknown root is skipped rather than refused.
	found bool
}

// Found is what Find found, in the order of the paths given (files in a
// folder in lexical order).
type Found struct {
	Entries []Entry
	// Reasons make the run incomplete without naming one file (more report
	// files than the files limit).
	Reasons []string
}

// candidatesPerFile bounds the candidate files Find lists: the files limit
// times this. A folder such as Maven's target/ holds other XML besides its
// reports.
const candidatesPerFile = 16

// skipDirs are folders never walked into: they hold no report a check
// writes.
var skipDirs = map[string]bool{".git": true, "node_modules": true}

// IsCandidate reports whether a file found in a folder is read as a
// possible report: *.xml (JUnit, Cobertura; other XML is skipped by
// content), *.lcov, lcov.info and *.lcov.info, and go test -json streams
// by the names they are saved under: go-test*.json, test2json*.json and
// the same with .jsonl (not every *.json: most are not reports). Names
// are compared without regard to case. A file named directly is read
// whatever its name.
func IsCandidate(name string) bool {
	n := strings.ToLower(name)
	return strings.HasSuffix(n, ".xml") || strings.HasSuffix(n, ".lcov") ||
		n == "lcov.info" || strings.HasSuffix(n, ".lcov.info") ||
		isGoTestJSONName(n)
}

// isGoTestJSONName reports whether a lower-cased file name is one a go
// test -json stream is saved under (go-test.json, test2json.jsonl).
func isGoTestJSONName(n string) bool {
	if !strings.HasPrefix(n, "go-test") && !strings.HasPrefix(n, "test2json") {
		return false
	}
	return strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl")
}

// Find lists the report files in paths: files as given (any name; their
// content decides), folders walked for candidate names (see IsCandidate),
// never into .git or node_modules. A path with a symbolic link in it (in
// any component, or a link found in a folder) is refused, as is anything
// that is not a regular file. A file older than WithNewerThan's time is
// listed as skipped when named, passed over when found in a folder, and
// refused wherever it is in the run's own report folder (WithOwnFolder).
// At most 16 times the files limit (WithMaxFiles) are listed; more make
// the run incomplete. The files limit itself counts reports, not
// candidates: ReadRun applies it.
func Find(paths []string, opts ...Option) *Found {
	cfg := newConfig(opts)
	return find(paths, &cfg)
}

func find(paths []string, cfg *config) *Found {
	f := &Found{}
	seen := map[string]bool{}
	files, dropped := 0, 0
	add := func(e Entry) {
		key := e.Path
		if abs, err := filepath.Abs(e.Path); err == nil {
			key = abs
		}
		if seen[key] {
			return
		}
		seen[key] = true
		if e.Err == nil {
			// Files that are not reports do not count against the files
			// limit (ReadRun applies it to reports); this bound only keeps
			// the work on a huge folder finite.
			if files >= cfg.maxFiles*candidatesPerFile {
				dropped++
				return
			}
			files++
		}
		f.Entries = append(f.Entries, e)
	}
	for _, p := range paths {
		if err := checkPath(p); err != nil {
			add(Entry{Path: p, Err: err})
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			add(Entry{Path: p, Err: fmt.Errorf("report: %w", err)})
			continue
		}
		switch {
		case fi.Mode().IsRegular():
			abs := absPath(p)
			own := cfg.inOwnFolder(abs)
			if cfg.stale(fi) {
				add(staleEntry(p, fi, own))
				continue
			}
			add(Entry{Path: p, Size: fi.Size(), found: cfg.found[abs] && !own})
		case fi.IsDir():
			walk(p, cfg, add)
		default:
			add(Entry{Path: p, Err: fmt.Errorf("%w: %s", ErrNotRegular, fi.Mode().Type())})
		}
	}
	if dropped > 0 {
		f.Reasons = append(f.Reasons, fmt.Sprintf("%d more files were not examined: at most %d candidate files are (the files limit of %d reports, %d times)",
			dropped, cfg.maxFiles*candidatesPerFile, cfg.maxFiles, candidatesPerFile))
	}
	return f
}

// staleEntry lists a file older than the run: skipped, or refused when it
// lies in the run's own report folder. That folder was made empty for the
// run, so an older file in it was copied in with its time kept (cp -p, a
// restored cache): evidence from another run, never this one's.
func staleEntry(path string, fi fs.FileInfo, own bool) Entry {
	modified := fi.ModTime().UTC().Format("2006-01-02T15:04:05Z")
	if own {
		return Entry{Path: path, Size: fi.Size(),
			Err: fmt.Errorf("%w: modified %s, in the run's own report folder, which the run made empty: copied in, not written by the run", ErrStale, modified)}
	}
	return Entry{Path: path, Size: fi.Size(), Err: fmt.Errorf("%w: modified %s", ErrStale, modified), Skip: true}
}

func (c *config) stale(fi fs.FileInfo) bool {
	return !c.newerThan.IsZero() && fi.ModTime().Before(c.newerThan)
}

func walk(root string, cfg *config, add func(Entry)) {
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if path == root {
				return err
			}
			add(Entry{Path: path, Err: fmt.Errorf("report: %w", err)})
			if d != nil && d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if path == root {
			return nil
		}
		name := d.Name()
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			if IsCandidate(name) {
				add(Entry{Path: path, Err: fmt.Errorf("%w: %s is a symbolic link", ErrSymlink, path)})
			} else if fi, err := os.Stat(path); err == nil && fi.IsDir() {
				add(Entry{Path: path, Err: fmt.Errorf("%w: %s is a symbolic link to a folder (not followed)", ErrSymlink, path)})
			}
			return nil
		case d.IsDir():
			if skipDirs[name] {
				return filepath.SkipDir
			}
			return nil
		case !IsCandidate(name):
			return nil
		case !t.IsRegular():
			add(Entry{Path: path, Err: fmt.Errorf("%w: %s", ErrNotRegular, t)})
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			add(Entry{Path: path, Err: fmt.Errorf("report: %w", err)})
			return nil
		}
		own := cfg.inOwnFolder(absPath(path))
		if cfg.stale(fi) {
			if own {
				add(staleEntry(path, fi, true))
			}
			return nil
		}
		add(Entry{Path: path, Size: fi.Size(), found: !own})
		return nil
	})
	if err != nil {
		add(Entry{Path: root, Err: fmt.Errorf("report: %w", err)})
	}
}

// linkInPath returns the first component of path that is a symbolic link
// ("" when none). Components are checked as written, ".." included, so a
// link cannot hide behind a parent reference; a relative path is taken from
// the working directory, whose own components are checked too.
func linkInPath(path string) (string, error) {
	if path == "" {
		return "", errors.New("empty path")
	}
	cur := ""
	rest := path
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return "", err
		}
		if link, err := linkInPath(wd); err != nil || link != "" {
			return link, err
		}
		cur = wd
	} else {
		vol := filepath.VolumeName(path)
		cur = vol + string(filepath.Separator)
		rest = path[len(vol):]
	}
	for _, part := range strings.Split(filepath.ToSlash(rest), "/") {
		if part == "" || part == "." {
			continue
		}
		if strings.HasSuffix(cur, string(filepath.Separator)) {
			cur += part
		} else {
			cur += string(filepath.Separator) + part
		}
		fi, err := os.Lstat(cur)
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			return cur, nil
		}
	}
	return "", nil
}
