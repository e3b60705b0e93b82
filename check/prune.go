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
// be one. Only run folders are touched (named by a run id, holding
// TEST-RESULTS.json or output.log, or empty): any other folder is skipped
// with its reason. A missing root is nothing to prune.
func Prune(root string, now time.Time) (*Pruned, error) {
	p := &Pruned{Removed: []string{}, CasesDropped: []string{}, Skipped: []PruneSkip{}}
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

// isRunFolder reports whether dir is one that Run made: its name is a run
// id and it holds TEST-RESULTS.json or output.log (as regular files), or
// nothing at all. Any other folder is never removed, so that pruning the
// wrong folder by mistake cannot delete what is not a run's.
func isRunFolder(dir string) bool {
	if !testrun.ValidID(filepath.Base(dir)) {
		return false
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	if len(entries) == 0 {
		return true
	}
	for _, e := range entries {
		if (e.Name() == ResultsFile || e.Name() == OutputFile) && e.Type().IsRegular() {
			return true
		}
	}
	return false
}

func pruneRun(dir string, now time.Time, p *Pruned) error {
	dfi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !isRunFolder(dir) {
		return errNotRunFolder
	}
	results := filepath.Join(dir, ResultsFile)
	fields, err := readResultsFields(results)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// An unreadable file still ages out with its folder.
		fields = nil
	}
	var head struct {
		StartedAt *time.Time `json:"started_at"`
		Kind      *string    `json:"kind"`
	}
	age := now.Sub(dfi.ModTime())
	if fields != nil {
		if obj, err := fields.object(); err == nil && json.Unmarshal(obj, &head) == nil && head.StartedAt != nil {
			age = now.Sub(*head.StartedAt)
		}
	}
	var kind testrun.Kind
	if head.Kind != nil {
		kind = testrun.Kind(*head.Kind)
	}
	kept := testrun.Retain(kind, age)
	if kept == testrun.RetainNothing {
		if err := os.RemoveAll(dir); err != nil {
			return err
		}
		p.Removed = append(p.Removed, dir)
		return nil
	}
	if fields == nil || kept == testrun.RetainAll {
		return nil
	}
	// The cases become null and the durations, which name only ids in
	// cases, go with them.
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
	fields = left
	if !changed {
		return nil
	}
	obj, err := fields.object()
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, obj, "", "  "); err != nil {
		return err
	}
	out.WriteByte('\n')
	ffi, err := os.Lstat(results)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(results, out.Bytes()); err != nil {
		return err
	}
	// The rewrite is not a new run: keep the file's and the folder's times,
	// which date the run when started_at is missing. A time that cannot be
	// set back only makes the folder look younger, so it is kept longer,
	// never removed early.
	_ = os.Chtimes(results, ffi.ModTime(), ffi.ModTime())
	_ = os.Chtimes(dir, dfi.ModTime(), dfi.ModTime())
	p.CasesDropped = append(p.CasesDropped, results)
	return nil
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

// readResultsFields reads TEST-RESULTS.json (never through a symbolic link)
// as its top-level fields in order.
func readResultsFields(path string) (jsonFields, error) {
	f, err := openRegularNoFollow(path)
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
