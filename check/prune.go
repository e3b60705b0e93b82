package check

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/hangar-dev/testresults/testrun"
)

// Retention of report folders (see Prune) is testrun's, the store's too:
// these are its limits under the names this package has given them.
const (
	// RunRetention is how long a run folder is kept (testrun.RunRetention).
	RunRetention = testrun.RunRetention
	// CasesRetention is how long a run keeps its per-case outcomes
	// (testrun.CasesRetention).
	CasesRetention = testrun.CasesRetention
	// BaseCasesRetention is how long a base run keeps them
	// (testrun.BaseCasesRetention).
	BaseCasesRetention = testrun.BaseCasesRetention
)

// maxResultsBytes bounds the TEST-RESULTS.json Prune reads.
const maxResultsBytes = 256 << 20

// ErrPruneRoot is returned when the folder to prune cannot be used.
var ErrPruneRoot = errors.New("check: prune")

// Pruned is what Prune did.
type Pruned struct {
	// Removed are the run folders removed, older than RunRetention.
	Removed []string `json:"removed"`
	// CasesDropped are the TEST-RESULTS.json files whose per-case map was
	// dropped (set to null); the run keeps its counts and failures.
	CasesDropped []string `json:"cases_dropped"`
	// Skipped are entries left alone, with why.
	Skipped []PruneSkip `json:"skipped"`
}

// PruneSkip is an entry Prune left alone.
type PruneSkip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Prune applies retention (testrun.Retain) to the run folders in root (such
// as $HOME/.hangar/tests): a folder older than RunRetention is removed; the
// "cases" (and "durations") of its TEST-RESULTS.json are dropped after
// CasesRetention (BaseCasesRetention for runs of kind base), rewriting the file
// atomically and keeping its modification time. A run's age is taken from
// its started_at, else from its folder's modification time. Symbolic links
// are never followed: a link in root is skipped, and root itself must not
// be one (nor lead to one through a final "/" or "."). Only run folders are
// touched: named by a run id, empty or holding TEST-RESULTS.json or
// output.log beside nothing but regular files that are neither sources nor
// the marks of a repository; any other folder is skipped with its reason,
// and so is one a run in progress claims (see claimFolder). A folder is
// claimed while it is pruned, so no run starts in it meanwhile; it is
// emptied file by file, never recursively. A run's run.json loses its
// per-case map with its TEST-RESULTS.json. A missing root is nothing to
// prune.
func Prune(root string, now time.Time) (*Pruned, error) {
	p := &Pruned{Removed: []string{}, CasesDropped: []string{}, Skipped: []PruneSkip{}}
	root = filepath.Clean(root)
	fi, err := os.Lstat(root)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return p, nil
	case err != nil:
		return nil, fmt.Errorf("%w: %v", ErrPruneRoot, err)
	}
	if err := plainFolder(root, fi, ErrPruneRoot); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPruneRoot, err)
	}
	for _, e := range entries {
		dir := filepath.Join(root, e.Name())
		switch {
		case e.Type()&fs.ModeSymlink != 0:
			p.Skipped = append(p.Skipped, PruneSkip{dir, "a symbolic link (not followed)"})
			continue
		case !e.IsDir():
			continue
		}
		if err := pruneRun(dir, now, p); err != nil {
			p.Skipped = append(p.Skipped, PruneSkip{dir, err.Error()})
		}
	}
	return p, nil
}

// errNotRunFolder is why Prune leaves a folder alone.
var errNotRunFolder = errors.New("not a run folder (its name is no run id, or it holds neither " + ResultsFile + " nor " + OutputFile + ")")

// errRunInProgress is why Prune leaves alone a folder a run claims.
var errRunInProgress = errors.New("a run in progress holds it")

func pruneRun(dir string, now time.Time, p *Pruned) error {
	if !testrun.ValidID(filepath.Base(dir)) {
		return errNotRunFolder
	}
	dfi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	root, err := openFolder(dir, dfi)
	if err != nil {
		return err
	}
	defer func() { _ = root.Close() }() // a folder only read and emptied through: each step reports what failed
	// Claimed before anything in it is looked at: a run that holds it
	// may be writing there, and a run that comes later waits.
	claim, err := claimFolder(root, dir)
	switch {
	case errors.Is(err, errHeld):
		return errRunInProgress
	case err != nil:
		return err
	}
	if claim != nil {
		defer func() { _ = claim.Close() }() // closing gives the claim up whatever it returns
	}
	entries, err := readDir(root)
	if err != nil {
		return err
	}
	has, err := runEntries(entries)
	switch {
	case err != nil:
		return fmt.Errorf("not a run folder: %w", err)
	case len(entries) > 0 && !has[ResultsFile] && !has[OutputFile]:
		return errNotRunFolder
	}
	fields, err := readFields(root, ResultsFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// An unreadable file still ages out with its folder.
		fields = nil
	}
	kept := retained(fields, dfi.ModTime(), now)
	if kept == testrun.RetainNothing {
		// The files the folder was checked to hold, and then the folder
		// (which fails if anything else appeared in it meanwhile).
		for _, e := range entries {
			if err := root.Remove(e.Name()); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if err := os.Remove(dir); err != nil {
			return err
		}
		p.Removed = append(p.Removed, dir)
		return nil
	}
	if fields == nil || kept == testrun.RetainAll {
		return nil
	}
	changed, err := dropCases(root, ResultsFile, fields)
	if err != nil || !changed {
		return err
	}
	if has[RunFile] {
		if runFields, err := readFields(root, RunFile); err == nil {
			if _, err := dropCases(root, RunFile, runFields); err != nil {
				return err
			}
		}
	}
	// The rewrite is not a new run: keep the folder's time, which dates
	// the run when started_at is missing. A time that cannot be set back
	// only makes the folder look younger, so it is kept longer, never
	// removed early.
	_ = os.Chtimes(dir, dfi.ModTime(), dfi.ModTime())
	p.CasesDropped = append(p.CasesDropped, filepath.Join(dir, ResultsFile))
	return nil
}

// retained is what retention keeps of a run whose TEST-RESULTS.json has
// the top-level fields (nil when unreadable) and whose folder dates from
// folderTime: its age is its started_at's, else its folder's.
func retained(fields jsonFields, folderTime, now time.Time) testrun.Retained {
	var head struct {
		StartedAt *time.Time `json:"started_at"`
		Kind      *string    `json:"kind"`
	}
	age := now.Sub(folderTime)
	if fields != nil {
		if obj, err := fields.object(); err == nil && json.Unmarshal(obj, &head) == nil && head.StartedAt != nil {
			age = now.Sub(*head.StartedAt)
		}
	}
	var kind testrun.Kind
	if head.Kind != nil {
		kind = testrun.Kind(*head.Kind)
	}
	return testrun.Retain(kind, age)
}

// dropCases rewrites the file name of root, whose top-level fields are
// fields, with "cases" null and without "durations" (which name only ids
// in cases), atomically and keeping its modification time; it reports
// whether anything changed.
func dropCases(root *os.Root, name string, fields jsonFields) (bool, error) {
	changed := false
	left := fields[:0]
	for _, f := range fields {
		switch {
		case f.key == "cases" && string(f.value) != "null":
			f.value = json.RawMessage("null")
			changed = true
		case f.key == "durations":
			changed = true
			continue
		}
		left = append(left, f)
	}
	if !changed {
		return false, nil
	}
	obj, err := left.object()
	if err != nil {
		return false, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, obj, "", "  "); err != nil {
		return false, err
	}
	out.WriteByte('\n')
	fi, err := root.Lstat(name)
	if err != nil {
		return false, err
	}
	if err := writeInRoot(root, name, out.Bytes()); err != nil {
		return false, err
	}
	_ = root.Chtimes(name, fi.ModTime(), fi.ModTime()) // see pruneRun: a younger file is only kept longer
	return true, nil
}

// jsonFields are the top-level fields of a JSON object, in order.
type jsonFields []struct {
	key   string
	value json.RawMessage
}

func (f jsonFields) object() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, kv := range f {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := json.Marshal(kv.key)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(kv.value)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// readFields reads the JSON object in the file name of root (a regular
// file, never through a symbolic link) as its top-level fields in order.
func readFields(root *os.Root, name string) (jsonFields, error) {
	path := filepath.Join(root.Name(), name)
	fi, err := root.Lstat(name)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("check: %s is not a regular file", path)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxResultsBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxResultsBytes {
		return nil, fmt.Errorf("check: %s is larger than %d MiB", path, maxResultsBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("check: %s is not a JSON object", path)
	}
	var fields jsonFields
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("check: %s: %w", path, err)
		}
		key, ok := t.(string)
		if !ok {
			return nil, fmt.Errorf("check: %s: bad key", path)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("check: %s: %w", path, err)
		}
		fields = append(fields, struct {
			key   string
			value json.RawMessage
		}{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, fmt.Errorf("check: %s: %w", path, err)
	}
	return fields, nil
}

// RunsDir is the folder of run folders under home, where a check's report
// folder goes by default and what Prune applies to by default.
func RunsDir(home string) string { return filepath.Join(home, ".hangar", "tests") }

// ErrNoRunsDir is RunsDirOr's answer when no folder is named and $HOME is
// not set.
var ErrNoRunsDir = errors.New("HOME is not set: give --dir")

// RunsDirOr is the folder of run folders prune works on: dir when named,
// else RunsDir of $HOME as getenv reads it.
func RunsDirOr(dir string, getenv func(string) string) (string, error) {
	if dir != "" {
		return dir, nil
	}
	home := getenv("HOME")
	if home == "" {
		return "", ErrNoRunsDir
	}
	return RunsDir(home), nil
}

// Lines says, one line each for people, what Prune removed, dropped and
// skipped, then how many run folders and per-case maps; the lines carry
// the paths and reasons as they are (the caller escapes them for a
// terminal).
func (p *Pruned) Lines() []string {
	var out []string
	for _, d := range p.Removed {
		out = append(out, "removed "+d)
	}
	for _, f := range p.CasesDropped {
		out = append(out, "dropped the per-case map of "+f)
	}
	for _, s := range p.Skipped {
		out = append(out, "skipped "+s.Path+": "+s.Reason)
	}
	return append(out, fmt.Sprintf("testresults prune: %d run folders removed, %d per-case maps dropped", len(p.Removed), len(p.CasesDropped)))
}
