package check

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangar-dev/testresults/testrun"
)

// Field is one more top-level field of TEST-RESULTS.json, after the run's
// own.
type Field struct {
	Name  string
	Value any
}

// WriteResults writes TEST-RESULTS.json into dir, replacing it atomically
// (a reader sees the old file or the new one, never a part): the run's JSON
// form, followed by the extra fields in order (a comparison with a base
// run). It returns the file's path.
//
// With extra fields it also writes run.json (RunFile), the run alone: a
// reader of runs (export) reads a run's fields only.
//
// The folder is opened once, and written through that handle only: dir
// must be a folder, not a symbolic link, and a link inside it is replaced,
// never written through. Result.WriteResults writes into the folder Run
// made, even when its path has been changed since.
func WriteResults(dir string, run *testrun.Run, extra ...Field) (string, error) {
	root, err := openDir(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if _, err := writeResults(root, run, extra); err != nil {
		return "", err
	}
	return filepath.Join(dir, ResultsFile), nil
}

// written are the SHA-256 digests (hex) of what was written: "" for a file
// that was not.
type written struct {
	results, run string
}

func writeResults(root *os.Root, run *testrun.Run, extra []Field) (written, error) {
	var w written
	if len(extra) > 0 {
		b, err := resultsJSON(run)
		if err != nil {
			return w, err
		}
		if err := writeInRoot(root, RunFile, b); err != nil {
			return w, err
		}
		w.run = sha256Hex(b)
	}
	b, err := resultsJSON(run, extra...)
	if err != nil {
		return w, err
	}
	if err := writeInRoot(root, ResultsFile, b); err != nil {
		return w, err
	}
	w.results = sha256Hex(b)
	return w, nil
}

// WriteResults writes TEST-RESULTS.json (and, with extra fields, run.json)
// of r.Run as the package-level WriteResults does, into the folder Run made
// and opened: never into what its path names after the check replaced it
// (ErrReplaced). It sets ResultsSHA256 and RunSHA256.
func (r *Result) WriteResults(extra ...Field) (string, error) {
	return r.write(func(root *os.Root) (written, error) { return writeResults(root, r.Run, extra) })
}

// WriteResultsJSON writes TEST-RESULTS.json from results and run.json from
// r.Run as the package-level WriteResultsJSON does, into the folder Run
// made (see WriteResults).
func (r *Result) WriteResultsJSON(results []byte) (string, error) {
	return r.write(func(root *os.Root) (written, error) { return writeResultsJSON(root, r.Run, results) })
}

func (r *Result) write(f func(*os.Root) (written, error)) (string, error) {
	root := r.root
	if root == nil {
		var err error
		if root, err = openDir(r.Dir); err != nil {
			return "", err
		}
		defer root.Close()
	} else if !sameFolder(r.Dir, root) {
		return "", fmt.Errorf("%w: %s", ErrReplaced, r.Dir)
	}
	w, err := f(root)
	if w.run != "" {
		r.RunSHA256 = w.run
	}
	if w.results != "" {
		r.ResultsSHA256 = w.results
	}
	if err != nil {
		return "", err
	}
	return filepath.Join(r.Dir, ResultsFile), nil
}

// Close closes the report folder Run opened; writing the results opens it
// again by its path.
func (r *Result) Close() error {
	if r.root == nil {
		return nil
	}
	err := r.root.Close()
	r.root = nil
	return err
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func resultsJSON(run *testrun.Run, extra ...Field) ([]byte, error) {
	b, err := marshalNoEscape(run)
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	if len(extra) > 0 {
		if len(b) < 2 || b[len(b)-1] != '}' {
			return nil, errors.New("check: the run's JSON is not an object")
		}
		var buf bytes.Buffer
		buf.Write(b[:len(b)-1])
		seen := map[string]bool{}
		for _, f := range extra {
			if seen[f.Name] {
				return nil, fmt.Errorf("check: field %q given twice", f.Name)
			}
			seen[f.Name] = true
			name, _ := json.Marshal(f.Name)
			v, err := marshalNoEscape(f.Value)
			if err != nil {
				return nil, fmt.Errorf("check: field %q: %w", f.Name, err)
			}
			buf.WriteByte(',')
			buf.Write(name)
			buf.WriteByte(':')
			buf.Write(v)
		}
		buf.WriteByte('}')
		b = buf.Bytes()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// writeInRoot writes b to the file name in root through a temporary file
// in the same folder, renamed over it (readers never see a part; it is not
// synced to disk, which would cost more than the check's own run for a
// quick one). A symbolic link at name is replaced, never written through,
// and nothing is written outside root.
func writeInRoot(root *os.Root, name string, b []byte) error {
	tmp, tmpName, err := createTemp(root, "."+name+".")
	if err != nil {
		return fmt.Errorf("check: write %s: %w", name, err)
	}
	_, werr := tmp.Write(b)
	merr := tmp.Chmod(0o644)
	cerr := tmp.Close()
	if err := errors.Join(werr, merr, cerr); err != nil {
		root.Remove(tmpName)
		return fmt.Errorf("check: write %s: %w", name, err)
	}
	if err := root.Rename(tmpName, name); err != nil {
		root.Remove(tmpName)
		return fmt.Errorf("check: write %s: %w", name, err)
	}
	return nil
}

// writeFileAtomic writes b to path as writeInRoot does, in the folder that
// holds path (which must not be a symbolic link).
func writeFileAtomic(path string, b []byte) error {
	root, err := openDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("check: write %s: %w", path, err)
	}
	defer root.Close()
	return writeInRoot(root, filepath.Base(path), b)
}
