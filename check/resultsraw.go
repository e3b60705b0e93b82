package check

import (
	"encoding/json"
	"fmt"

	"github.com/hangar-dev/testresults/testrun"
)

// WriteResultsJSON writes TEST-RESULTS.json into dir for run from results,
// the JSON object of an older writer that put a comparison with a base run
// (and a rerun's fields) beside the run's fields, with the comparison's
// flaky marks under "flaky". It reads the comparison and the rerun's fields
// from results, by their types, and writes them with run as
// WriteTestResults does: the file is always TestResults' one form.
//
// Deprecated: build a testrun.TestResults and call WriteTestResults.
func WriteResultsJSON(dir string, run *testrun.Run, results []byte) (string, error) {
	tr, err := legacyResults(run, results)
	if err != nil {
		return "", err
	}
	return WriteTestResults(dir, tr)
}

// WriteResultsJSON writes TEST-RESULTS.json from results as the
// package-level WriteResultsJSON does, into the folder Run made.
//
// Deprecated: build a testrun.TestResults and call Result.WriteTestResults.
func (r *Result) WriteResultsJSON(results []byte) (string, error) {
	tr, err := legacyResults(r.Run, results)
	if err != nil {
		return "", err
	}
	return r.WriteTestResults(tr)
}

// legacyResults reads what an older writer put beside the run: only the
// comparison's and the rerun's fields, each into its type; the run's own
// fields in results are ignored (run is written instead).
func legacyResults(run *testrun.Run, results []byte) (testrun.TestResults, error) {
	var j struct {
		BaseID         *string                 `json:"base_id"`
		Available      *bool                   `json:"available"`
		Unavailable    *string                 `json:"unavailable_reason"`
		NewFailures    []legacyFailure         `json:"new_failures"`
		BaseFailures   []legacyFailure         `json:"base_failures"`
		Fixed          []string                `json:"fixed"`
		Flaky          json.RawMessage         `json:"flaky"`
		FlakyOnList    []testrun.FlakyMark     `json:"flaky_on_list"`
		CoverageDelta  *float64                `json:"coverage_delta"`
		OutputFailures []testrun.OutputFailure `json:"output_failures"`
		RerunOf        *testrun.RerunLink      `json:"rerun_of"`
		Rerun          *testrun.RerunLink      `json:"rerun"`
		Transient      *bool                   `json:"transient"`
	}
	if err := json.Unmarshal(results, &j); err != nil {
		return testrun.TestResults{}, fmt.Errorf("check: results: %w", err)
	}
	tr := testrun.TestResults{Run: run, RerunOf: j.RerunOf, Rerun: j.Rerun, Transient: j.Transient}
	if j.Available != nil {
		c := &testrun.Comparison{
			AfterID:        run.ID,
			Available:      *j.Available,
			NewFailures:    failuresOf(j.NewFailures),
			BaseFailures:   failuresOf(j.BaseFailures),
			Fixed:          j.Fixed,
			Flaky:          j.FlakyOnList,
			CoverageDelta:  j.CoverageDelta,
			OutputFailures: j.OutputFailures,
		}
		if j.BaseID != nil {
			c.BaseID = *j.BaseID
		}
		if j.Unavailable != nil {
			c.Unavailable = *j.Unavailable
		}
		if c.Flaky == nil {
			// The older form's flaky marks; a run's list of ids is not.
			var marks []testrun.FlakyMark
			if json.Unmarshal(j.Flaky, &marks) == nil {
				c.Flaky = marks
			}
		}
		tr.Comparison = c
	}
	return tr, nil
}

type legacyFailure struct {
	ID      string          `json:"id"`
	Outcome testrun.Outcome `json:"outcome"`
	Message *string         `json:"message"`
	Flaky   bool            `json:"flaky"`
	File    string          `json:"file"`
	Line    int             `json:"line"`
}

func failuresOf(fs []legacyFailure) []testrun.Failure {
	if fs == nil {
		return nil
	}
	out := make([]testrun.Failure, len(fs))
	for i, f := range fs {
		out[i] = testrun.Failure{ID: f.ID, Outcome: f.Outcome, Flaky: f.Flaky, File: f.File, Line: f.Line}
		if f.Message != nil {
			out[i].Message = *f.Message
		}
	}
	return out
}
