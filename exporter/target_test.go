package exporter_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/trace"

	"github.com/hangar-dev/testresults/exporter"
	"github.com/hangar-dev/testresults/testrun"
)

// TestSettingsPlan: Plan reads the base run, then the runs, with read; a
// job export wants a RUN.json; a session reads its turns; the output file
// goes into Options.OutputFile. PendingPlan wants -o for OTLP/JSON and one
// bare --turn for a session, and Put fills the one slot.
func TestSettingsPlan(t *testing.T) {
	var read []string
	reader := func(p string) (*testrun.Run, error) {
		read = append(read, p)
		return &testrun.Run{ID: p}, nil
	}
	s := exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none", BaseRun: "base.json", Output: "out.json"}
	p, err := s.Plan([]string{"a.json", "b.json"}, reader, noEnv, nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"base.json", "a.json", "b.json"}, read)
	assert.Equal(t, "base.json", p.Options.Base.ID)
	assert.Equal(t, "out.json", p.Options.OutputFile)
	assert.Len(t, p.Target.AllRuns(), 2)

	_, err = exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none"}.Plan(nil, reader, noEnv, nil)
	assert.ErrorIs(t, err, exporter.ErrSettings)
	assert.EqualError(t, err, "no RUN.json given")

	p, err = exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none", Session: "s", Turns: []string{"2=x.json", "1"}}.Plan([]string{"y.json"}, reader, noEnv, nil)
	require.NoError(t, err)
	require.NotNil(t, p.Target.Session)
	assert.Equal(t, []string{"x.json", "y.json"}, []string{p.Target.AllRuns()[0].ID, p.Target.AllRuns()[1].ID})

	failing := errors.New("unreadable")
	_, err = s.Plan([]string{"a.json"}, func(string) (*testrun.Run, error) { return nil, failing }, noEnv, nil)
	assert.ErrorIs(t, err, failing, "read's error as it is")

	_, err = exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none", Format: "otlp-json"}.PendingPlan(reader, noEnv, nil)
	assert.EqualError(t, err, "--format otlp-json needs -o FILE here: stdout carries the run")
	p, err = exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none", Session: "s", Turns: []string{"3"}}.PendingPlan(reader, noEnv, nil)
	require.NoError(t, err)
	p.Target.Put(&testrun.Run{ID: "made"})
	assert.Equal(t, 3, p.Target.Session.Turns[0].Number)
	assert.Equal(t, "made", p.Target.AllRuns()[0].ID)
	_, err = exporter.Settings{MaxCaseEvents: 1, CaseSpans: "none", Session: "s", Turns: []string{"1=a.json"}}.PendingPlan(reader, noEnv, nil)
	assert.ErrorIs(t, err, exporter.ErrSettings)
}

// TestOutputFile: with OutputFile the OTLP/JSON lands in the file, not in
// Output; a failed export leaves the previous file as it was.
func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	name := filepath.Join(dir, "out.json")
	var stdout strings.Builder
	o := exporter.Options{Format: exporter.FormatOTLPJSON, Output: &stdout, OutputFile: name, Getenv: noEnv, Environ: func() []string { return nil }}
	run := manyFailures(t, 3, 10)
	r, err := exporter.ExportRuns(context.Background(), []*testrun.Run{run}, o)
	require.NoError(t, err)
	assert.Empty(t, stdout.String())
	data, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"name":"test.case"`)
	assert.Equal(t, "exported 1 run in 1 span to "+name+" (OTLP/JSON); trace "+r.TraceIDs[0].String()+" (trusted/counted are recomputed by the collector)", r.Summary(o))

	_, err = exporter.ExportRuns(context.Background(), []*testrun.Run{{ID: ""}}, o)
	require.Error(t, err)
	again, err := os.ReadFile(name)
	require.NoError(t, err)
	assert.Equal(t, data, again, "a failed export leaves the file")
}

// TestSummary: the line names what went where, in the singular or plural.
func TestSummary(t *testing.T) {
	r := exporter.Result{Runs: 1, Spans: 2, Records: 3, Destination: "OTLP/HTTP http://h/v1/traces", LogDestination: "OTLP/HTTP http://h/v1/logs",
		TraceIDs: []trace.TraceID{{1}}}
	assert.Equal(t, "exported 1 run in 2 spans and 3 log records to OTLP/HTTP http://h/v1/traces (log records to OTLP/HTTP http://h/v1/logs); trace "+
		trace.TraceID{1}.String()+" (trusted/counted are recomputed by the collector)", r.Summary(exporter.Options{}))
	j := exporter.Result{Runs: 2, Spans: 1, Destination: "OTLP/JSON"}
	assert.Equal(t, "exported 2 runs in 1 span to stdout (OTLP/JSON) (trusted/counted are recomputed by the collector)",
		j.Summary(exporter.Options{Format: exporter.FormatOTLPJSON}))
}
