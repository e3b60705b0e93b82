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

// WriteResults writes TEST-RESULTS.json of run alone into dir, as
// WriteTestResults does.
func WriteResults(dir string, run *testrun.Run) (string, error) {
	return WriteTestResults(dir, testrun.TestResults{Run: run})
}

// WriteTestResults writes TEST-RESULTS.json into dir, replacing it
// atomically (a reader sees the old file or the new one, never a part):
// the JSON form of testrun.TestResults, indented, which every reader of
// runs reads (testrun.ReadTestResults). The run's keys come first, with the
// same bytes with or without a comparison. It returns the file's path.
//
// When results holds more than the run (a comparison, a rerun) it also
// writes run.json (RunFile), the run alone.
//
// The folder is opened once, and written through that handle only: dir
// must be a folder, not a symbolic link, and a link inside it is replaced,
// never written through. Result.WriteTestResults writes into the folder Run
// made, even when its path has been changed since.
func WriteTestResults(dir string, results testrun.TestResults) (string, error) {
	root, err := openDir(dir)
	if err != nil {
		return "", err
	}
	defer func() { _ = root.Close() }() // a folder opened to write in: writeResults reports what failed
	if _, err := writeResults(root, results); err != nil {
		return "", err
	}
	return filepath.Join(dir, ResultsFile), nil
}

// written are the SHA-256 digests (hex) of what was written: "" for a file
// that was not.
type written struct {
	results, run string
}

func writeResults(root *os.Root, results testrun.TestResults) (written, error) {
	var w written
	if results.Run == nil {
		return w, errors.New("check: results without a run")
	}
	b, err := indented(results)
	if err != nil {
		return w, err
	}
	if results != (testrun.TestResults{Run: results.Run}) {
		rb, err := indented(results.Run)
		if err != nil {
			return w, err
		}
		if err := writeInRoot(root, RunFile, rb); err != nil {
			return w, err
		}
		w.run = sha256Hex(rb)
	}
	if err := writeInRoot(root, ResultsFile, b); err != nil {
		return w, err
	}
	w.results = sha256Hex(b)
	return w, nil
}

// WriteResults writes TEST-RESULTS.json of r.Run alone as WriteTestResults
// does, into the folder Run made and opened.
func (r *Result) WriteResults() (string, error) {
	return r.WriteTestResults(testrun.TestResults{Run: r.Run})
}

// WriteTestResults writes TEST-RESULTS.json (and, with more than the run,
// run.json) as the package-level WriteTestResults does, into the folder Run
// made and opened: never into what its path names after the check replaced
// it (ErrReplaced). results.Run must be r.Run. It sets ResultsSHA256 and
// RunSHA256.
func (r *Result) WriteTestResults(results testrun.TestResults) (string, error) {
	if results.Run != r.Run {
		return "", errors.New("check: the results are not of this run")
	}
	return r.write(func(root *os.Root) (written, error) { return writeResults(root, results) })
}

func (r *Result) write(f func(*os.Root) (written, error)) (string, error) {
	root := r.root
	if root == nil {
		var err error
		if root, err = openDir(r.Dir); err != nil {
			return "", err
		}
		defer func() { _ = root.Close() }() // opened to write in: f reports what failed
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

// Close closes the report folder Run opened and gives up the run's claim
// on it, after which another run may use the folder; writing the results
// opens it again by its path.
func (r *Result) Close() error {
	if r.claim != nil {
		_ = r.claim.Close() // closing gives the claim up whatever it returns
		r.claim = nil
	}
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

// indented is v's JSON form (v's MarshalJSON), indented, with a final
// newline.
func indented(v json.Marshaler) ([]byte, error) {
	b, err := v.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
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
		_ = root.Remove(tmpName) // cleanup on an error path: the first error is the one to report
		return fmt.Errorf("check: write %s: %w", name, err)
	}
	if err := root.Rename(tmpName, name); err != nil {
		_ = root.Remove(tmpName) // cleanup on an error path: the first error is the one to report
		return fmt.Errorf("check: write %s: %w", name, err)
	}
	return nil
}
