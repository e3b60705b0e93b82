package check

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/hangar-dev/testresults/testrun"
)

// WriteResultsJSON writes TEST-RESULTS.json into dir from results, a JSON
// object already holding the run's fields and what a caller adds beside
// them (testrun.MarshalTestResults: a comparison with a base run), indented
// and replaced atomically. It also writes run.json (RunFile), run alone, for
// readers of runs. It returns the path of TEST-RESULTS.json.
func WriteResultsJSON(dir string, run *testrun.Run, results []byte) (string, error) {
	var out bytes.Buffer
	if err := json.Indent(&out, results, "", "  "); err != nil {
		return "", fmt.Errorf("check: results: %w", err)
	}
	if t := bytes.TrimSpace(out.Bytes()); len(t) == 0 || t[0] != '{' {
		return "", fmt.Errorf("check: results: not a JSON object")
	}
	out.WriteByte('\n')
	b, err := resultsJSON(run)
	if err != nil {
		return "", err
	}
	if err := writeFileAtomic(filepath.Join(dir, RunFile), b); err != nil {
		return "", err
	}
	p := filepath.Join(dir, ResultsFile)
	if err := writeFileAtomic(p, out.Bytes()); err != nil {
		return "", err
	}
	return p, nil
}
