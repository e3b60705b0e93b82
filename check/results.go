package check

import (
	"bytes"
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
func WriteResults(dir string, run *testrun.Run, extra ...Field) (string, error) {
	if len(extra) > 0 {
		b, err := resultsJSON(run)
		if err != nil {
			return "", err
		}
		if err := writeFileAtomic(filepath.Join(dir, RunFile), b); err != nil {
			return "", err
		}
	}
	b, err := resultsJSON(run, extra...)
	if err != nil {
		return "", err
	}
	p := filepath.Join(dir, ResultsFile)
	if err := writeFileAtomic(p, b); err != nil {
		return "", err
	}
	return p, nil
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

// writeFileAtomic writes b to path through a temporary file in the same
// folder, renamed over path (readers never see a part; it is not synced to
// disk, which would cost more than the check's own run for a quick one). A symbolic link at path is
// replaced, never written through.
func writeFileAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr, os.Chmod(tmp.Name(), 0o644)); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("check: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("check: write %s: %w", path, err)
	}
	return nil
}
