package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/hangar-dev/testresults/testrun"
)

// writeRun builds a complete run from id → outcome ("flaky:" ids are
// runner-retried passes) and writes its JSON form into dir.
func writeRun(t *testing.T, dir, id string, kind testrun.Kind, tree string, outcomes map[string]testrun.Outcome, flaky ...string) string {
	t.Helper()
	var execs []testrun.Execution
	for tid, o := range outcomes {
		msg := ""
		if o.Failing() {
			msg = tid + " broke"
		}
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: o, Message: msg})
	}
	for _, tid := range flaky {
		execs = append(execs, testrun.Execution{ID: tid, Scope: "s", Outcome: testrun.OutcomePassed, RunnerFlaky: true})
	}
	n := len(execs)
	b := testrun.NewBuilder()
	b.AddReport(testrun.ReportInfo{Path: "r.xml", Dialect: "junit", Tests: &n}, execs, nil)
	r := b.Build()
	r.ID, r.Kind, r.Tree = id, kind, tree
	data, err := json.Marshal(r)
	require.NoError(t, err)
	p := filepath.Join(dir, id+".json")
	require.NoError(t, os.WriteFile(p, data, 0o644))
	return p
}
