package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hangar-dev/testresults/testrun"
)

// WriteResultsJSON writes TEST-RESULTS.json into dir from results, a JSON
// object already holding the run's fields and what a caller adds beside
// them (testrun.MarshalTestResults: a comparison with a base run), indented
// and replaced atomically. It also writes run.json (RunFile), run alone, for
// readers of runs. It returns the path of TEST-RESULTS.json. The folder is
// written as WriteResults writes it: never through a symbolic link.
func WriteResultsJSON(dir string, run *testrun.Run, results []byte) (string, error) {
	root, err := openDir(dir)
	if err != nil {
		return "", err
	}
	defer root.Close()
	if _, err := writeResultsJSON(root, run, results); err != nil {
		return "", err
	}
	return filepath.Join(dir, ResultsFile), nil
}

func writeResultsJSON(root *os.Root, run *testrun.Run, results []byte) (written, error) {
	var w written
	var out bytes.Buffer
	if err := json.Indent(&out, results, "", "  "); err != nil {
		return w, fmt.Errorf("check: results: %w", err)
	}
	if t := bytes.TrimSpace(out.Bytes()); len(t) == 0 || t[0] != '{' {
		return w, fmt.Errorf("check: results: not a JSON object")
	}
	out.WriteByte('\n')
	b, err := resultsJSON(run)
	if err != nil {
		return w, err
	}
	if err := writeInRoot(root, RunFile, b); err != nil {
		return w, err
	}
	w.run = sha256Hex(b)
	if err := writeInRoot(root, ResultsFile, out.Bytes()); err != nil {
		return w, err
	}
	w.results = sha256Hex(out.Bytes())
	return w, nil
}
