package testresultsreceiver

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gobwas/glob"

	"github.com/hangar-dev/testresults/internal/regular"
	"github.com/hangar-dev/testresults/report"
)

// ResultsFile marks a run folder written by testresults run: the run, read
// whole from it once it has settled, is the folder's one run.
const ResultsFile = "TEST-RESULTS.json"

// runFileNames are the files testresults run writes beside its reports,
// which are never read as reports.
var runFileNames = map[string]bool{ResultsFile: true, "run.json": true, "output.log": true}

const (
	// settlePolls is how many polls in a row a file's size and modification
	// time must stay the same before it is read.
	settlePolls = 2
	// openRootPolls is how many polls an XML file whose root element is not
	// closed must stay unchanged before it is read anyway (and refused as
	// truncated, unless it is whole).
	openRootPolls = 10
	// headBytes and tailBytes are how much of an XML file is read to find
	// its root element and whether the file ends by closing it.
	headBytes = 64 << 10
	tailBytes = 4 << 10
)

// fileState is what the watcher knows of one file.
type fileState struct {
	size  int64
	mtime time.Time
	// id is the file's inode and inode change time (on Linux): a file
	// rewritten to the same size with its time set back, or replaced by
	// another renamed over it, is changed.
	id fileIdentity
	// stable counts the polls in a row that saw the same size and time.
	stable int
	// seen is the poll that last listed the file.
	seen uint64
	// digest is the SHA-256 of the content at size and mtime, once read;
	// delivered is set once its checkpoint is known to be written.
	digest    string
	delivered bool
	// closed caches whether an XML file's root is closed at size and mtime.
	closed, closedKnown bool
}

// fileIdentity names one version of a file beyond its size and time; the
// zero value where it is not known.
type fileIdentity struct {
	dev, ino            uint64
	ctimeSec, ctimeNsec int64
}

// sameFile reports whether fi shows the file as st last saw it.
func (st *fileState) sameFile(fi fs.FileInfo) bool {
	return st.size == fi.Size() && st.mtime.Equal(fi.ModTime()) && st.id == identityOf(fi)
}

// watcher lists the files the include and exclude globs select and says
// which have settled. It is used by one goroutine.
type watcher struct {
	roots    []string
	include  []glob.Glob
	exclude  []glob.Glob
	files    map[string]*fileState
	poll     uint64
	problems func(path string, err error)
	// linked are the roots found to be symbolic links, said once each.
	linked map[string]bool
}

// errLinkedRoot is the problem of a watched root that is a symbolic link.
var errLinkedRoot = errors.New("the watched folder is a symbolic link: links are never followed, so nothing under it is read; watch the folder it leads to")

func newWatcher(cfg *WatchConfig, problems func(string, error)) (*watcher, error) {
	w := &watcher{files: map[string]*fileState{}, problems: problems}
	for _, p := range cfg.Include {
		g, err := compileGlob(p)
		if err != nil {
			return nil, fmt.Errorf("watch::include: %w", err)
		}
		w.include = append(w.include, g)
		w.roots = append(w.roots, globRoot(p))
	}
	for _, p := range cfg.Exclude {
		g, err := compileGlob(p)
		if err != nil {
			return nil, fmt.Errorf("watch::exclude: %w", err)
		}
		w.exclude = append(w.exclude, g)
	}
	w.roots = dedupRoots(w.roots)
	return w, nil
}

// globRoot is the folder a glob's matches lie under: its part before the
// first component with a glob character.
func globRoot(pattern string) string {
	parts := strings.Split(filepath.ToSlash(filepath.Clean(pattern)), "/")
	var fixed []string
	for _, p := range parts[:len(parts)-1] {
		if strings.ContainsAny(p, "*?[{\\") {
			break
		}
		fixed = append(fixed, p)
	}
	if len(fixed) == len(parts)-1 && !strings.ContainsAny(parts[len(parts)-1], "*?[{\\") {
		// No glob character at all: the pattern names one file.
		return filepath.FromSlash(strings.Join(fixed, "/"))
	}
	root := strings.Join(fixed, "/")
	if root == "" {
		root = "/"
	}
	return filepath.FromSlash(root)
}

// dedupRoots drops roots that lie under another root.
func dedupRoots(roots []string) []string {
	slices.Sort(roots)
	var out []string
	for _, r := range roots {
		if len(out) > 0 {
			last := out[len(out)-1]
			if r == last || strings.HasPrefix(r, strings.TrimSuffix(last, string(filepath.Separator))+string(filepath.Separator)) {
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

func (w *watcher) selected(path string) bool {
	p := filepath.ToSlash(path)
	for _, g := range w.exclude {
		if g.Match(p) {
			return false
		}
	}
	for _, g := range w.include {
		if g.Match(p) {
			return true
		}
	}
	return false
}

// scan lists the selected files under the roots, updates their states and
// returns them by folder. A run folder's TEST-RESULTS.json is listed with
// its folder's files whether or not the globs select it. Symbolic links
// are listed (report.ReadRun refuses them, naming the link); folders
// behind links are not walked.
func (w *watcher) scan() map[string][]string {
	w.poll++
	byDir := map[string][]string{}
	add := func(path string, fi fs.FileInfo) {
		st, ok := w.files[path]
		if !ok {
			st = &fileState{size: fi.Size(), mtime: fi.ModTime(), id: identityOf(fi)}
			w.files[path] = st
		} else if st.sameFile(fi) {
			if st.seen == w.poll-1 {
				st.stable++
			}
		} else {
			*st = fileState{size: fi.Size(), mtime: fi.ModTime(), id: identityOf(fi)}
		}
		st.seen = w.poll
		dir := filepath.Dir(path)
		byDir[dir] = append(byDir[dir], path)
	}
	for _, root := range w.roots {
		if fi, err := os.Lstat(root); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if !w.linked[root] {
				if w.linked == nil {
					w.linked = map[string]bool{}
				}
				w.linked[root] = true
				w.problems(root, errLinkedRoot)
			}
			continue
		}
		delete(w.linked, root)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					w.problems(path, err)
				}
				if d != nil && d.IsDir() && path != root {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || !w.selected(path) {
				return nil
			}
			fi, err := os.Lstat(path)
			if err != nil {
				return nil
			}
			if fi.Mode().IsRegular() || fi.Mode()&fs.ModeSymlink != 0 {
				add(path, fi)
			}
			return nil
		})
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			w.problems(root, err)
		}
	}
	for dir, paths := range byDir {
		results := filepath.Join(dir, ResultsFile)
		if slices.Contains(paths, results) {
			continue
		}
		if fi, err := os.Lstat(results); err == nil && fi.Mode().IsRegular() {
			add(results, fi)
		}
	}
	for path, st := range w.files {
		if st.seen != w.poll {
			delete(w.files, path)
		}
	}
	for dir := range byDir {
		slices.Sort(byDir[dir])
	}
	return byDir
}

// settled reports whether the file at path has settled: its size and time
// unchanged over settlePolls polls and, for XML, its root element closed
// (or openRootPolls polls unchanged). A stream (go test -json, lcov) has no
// end a reader can see: between two packages, or two source files, it is
// whole as far as it goes, and a writer that pauses (the next package
// compiling) would have it read half-way, as a complete run that leaves
// the rest out. It settles after openRootPolls polls unchanged.
func (w *watcher) settled(path string) bool {
	st := w.files[path]
	if st == nil || st.stable < settlePolls {
		return false
	}
	if st.stable >= openRootPolls {
		return true
	}
	if isStream(path) {
		return false
	}
	if !strings.EqualFold(filepath.Ext(path), ".xml") {
		return true
	}
	if !st.closedKnown {
		st.closed = rootClosed(path)
		st.closedKnown = true
	}
	return st.closed
}

// isStream reports whether path names a report written as a stream, with
// no end marked in it: a report candidate that is not XML, a go test -json
// stream or an lcov file (see report.IsCandidate, which a run folder's
// TEST-RESULTS.json, written whole, is not).
func isStream(path string) bool {
	name := filepath.Base(path)
	return report.IsCandidate(name) && !strings.EqualFold(filepath.Ext(name), ".xml")
}

// openRegular opens the regular file at path for reading: a symbolic link,
// a FIFO or a device is refused, so that nothing in the watched folder can
// make the poll block or read outside it.
func openRegular(path string) (*os.File, error) {
	return regular.File(os.OpenFile(path, openFlags, 0))
}

// rootClosed reports whether the XML file at path ends by closing the
// element it opens first, so that a writer pausing between chunks is not
// read half-way. A file that cannot be read or has no root is reported
// closed: the parser refuses it with its reason.
func rootClosed(path string) bool {
	f, err := openRegular(path)
	if err != nil {
		return true
	}
	defer f.Close()
	head := make([]byte, headBytes)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	d := xml.NewDecoder(bytes.NewReader(head))
	d.Strict = false
	var root string
	selfClosed := false
	for root == "" {
		tok, err := d.RawToken()
		if err != nil {
			return true
		}
		if se, ok := tok.(xml.StartElement); ok {
			root = se.Name.Local
			if se.Name.Space != "" {
				root = se.Name.Space + ":" + root
			}
			if next, err := d.RawToken(); err == nil {
				if ee, ok := next.(xml.EndElement); ok && ee.Name == se.Name {
					selfClosed = true
				}
			}
		}
	}
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	off := max(0, fi.Size()-tailBytes)
	tail := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(tail, off); err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	tail = bytes.TrimRight(tail, " \t\r\n")
	if selfClosed && bytes.HasSuffix(tail, []byte(">")) {
		return true
	}
	if !bytes.HasSuffix(tail, []byte(">")) {
		return false
	}
	i := bytes.LastIndex(tail, []byte("</"))
	if i < 0 {
		return false
	}
	name := strings.TrimSpace(string(tail[i+2 : len(tail)-1]))
	return name == root
}

// digest returns the SHA-256 of the whole file at path (hex), read once for
// the size and time the watcher saw. A symbolic link is not followed: its
// digest is that of its target's name (report.ReadRun refuses it, naming
// the link).
func (w *watcher) digest(path string) (string, error) {
	st := w.files[path]
	if st != nil && st.digest != "" {
		return st.digest, nil
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		sum := sha256.Sum256([]byte("symlink\x00" + target))
		d := hex.EncodeToString(sum[:])
		if st != nil {
			st.digest = d
		}
		return d, nil
	}
	f, err := openRegular(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	d := hex.EncodeToString(h.Sum(nil))
	if st != nil {
		st.digest = d
	}
	return d, nil
}

// movedSinceScan reports whether one of paths is no longer the file the
// last scan saw settled (written to, truncated, its times set, another
// file renamed over it), looked at after it was read: what was read may
// then be a writer's first half, even when its digest agrees with the
// read. Each such file settles again. A file removed since is not moved:
// what was read is what settled.
func (w *watcher) movedSinceScan(paths []string) bool {
	moved := false
	for _, p := range paths {
		st := w.files[p]
		if st == nil {
			continue
		}
		fi, err := os.Lstat(p)
		if err != nil {
			continue
		}
		if !st.sameFile(fi) {
			w.changed(p)
			moved = true
		}
	}
	return moved
}

// changed forgets what the watcher knew of path, so that it settles again.
func (w *watcher) changed(path string) {
	if st := w.files[path]; st != nil {
		st.stable, st.digest, st.closedKnown = 0, "", false
	}
}

// group is the unit one poll may deliver from a folder.
type group struct {
	dir string
	// results is the folder's TEST-RESULTS.json, or "" for bare reports.
	results string
	// files are the bare report files not yet delivered, sorted.
	files []string
}

// groups returns the folders whose files have all settled: a run folder's
// TEST-RESULTS.json, or the candidate report files of another folder (the
// names parse reads in a folder, see report.IsCandidate) that are not yet
// delivered.
func (w *watcher) groups(byDir map[string][]string) []group {
	dirs := make([]string, 0, len(byDir))
	for d := range byDir {
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	var out []group
	for _, dir := range dirs {
		paths := byDir[dir]
		results := filepath.Join(dir, ResultsFile)
		if _, ok := w.files[results]; ok && slices.Contains(paths, results) {
			st := w.files[results]
			if !st.delivered && w.settled(results) {
				out = append(out, group{dir: dir, results: results})
			}
			continue
		}
		g := group{dir: dir}
		ready := true
		for _, p := range paths {
			base := filepath.Base(p)
			if runFileNames[base] || !report.IsCandidate(base) {
				continue
			}
			st := w.files[p]
			if st.delivered {
				continue
			}
			if !w.settled(p) {
				ready = false
				break
			}
			g.files = append(g.files, p)
		}
		if ready && len(g.files) > 0 {
			out = append(out, g)
		}
	}
	return out
}

// times are the first and last modification times of paths.
func (w *watcher) times(paths []string) (first, last time.Time) {
	for _, p := range paths {
		st := w.files[p]
		if st == nil {
			continue
		}
		if first.IsZero() || st.mtime.Before(first) {
			first = st.mtime
		}
		if st.mtime.After(last) {
			last = st.mtime
		}
	}
	return first, last
}

// markDelivered remembers that paths are delivered at their current state.
func (w *watcher) markDelivered(paths []string) {
	for _, p := range paths {
		if st := w.files[p]; st != nil {
			st.delivered = true
		}
	}
}
