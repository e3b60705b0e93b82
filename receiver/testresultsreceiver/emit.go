package testresultsreceiver

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gobwas/glob"
	"go.opentelemetry.io/collector/pdata/plog"
	"go.opentelemetry.io/collector/pdata/ptrace"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// folderPlaceholder in a job id stands for the name of the run's folder.
const folderPlaceholder = "{folder}"

// senders resolves the sender of a run from the configuration: the first
// rule whose glob matches the run's folder, else the receiver's own.
type senders struct {
	def   Sender
	rules []compiledRule
}

type compiledRule struct {
	globs  []glob.Glob
	sender Sender
}

func newSenders(cfg *Config) (*senders, error) {
	s := &senders{def: cfg.Sender}
	for i, r := range cfg.Rules {
		cr := compiledRule{sender: r.merge(cfg.Sender)}
		for _, m := range r.Match {
			g, err := compileGlob(m)
			if err != nil {
				return nil, fmt.Errorf("rules[%d]::match: %w", i, err)
			}
			cr.globs = append(cr.globs, g)
		}
		s.rules = append(s.rules, cr)
	}
	return s, nil
}

// forFolder returns the sender of the runs in dir.
func (s *senders) forFolder(dir string) Sender {
	p := filepath.ToSlash(dir)
	for _, r := range s.rules {
		for _, g := range r.globs {
			if g.Match(p) {
				return r.sender
			}
		}
	}
	return s.def
}

// jobID is the sender's job for a run in dir: "{folder}" replaced by the
// folder's name.
func (snd Sender) jobID(dir string) string {
	if dir == "" {
		return strings.ReplaceAll(snd.Job, folderPlaceholder, "")
	}
	return strings.ReplaceAll(snd.Job, folderPlaceholder, filepath.Base(dir))
}

// apply makes the sender's say the run's: its kind and grade. What the
// files claimed is replaced; trusted and counted are computed from these.
func (snd Sender) apply(run *testrun.Run) {
	run.Kind = testrun.Kind(snd.Kind)
	run.Grade = snd.Grade
}

// emitter turns runs into the pdata the receiver emits, with the library
// calls testresults export makes.
type emitter struct {
	events   translate.Events
	redactor *testrun.Redactor
	workDir  string
}

// telemetryOut is what one run becomes: spans, and log records when the
// events go to logs.
type telemetryOut struct {
	traces ptrace.Traces
	logs   plog.Logs
	spans  int
	// records is the number of log records.
	records int
}

// emit translates run as a job export with the sender's job and resource:
// the spans (and log records) testresults export --job JOB writes for it,
// with the resource the configuration gives instead of the SDK's.
func (e *emitter) emit(run *testrun.Run, snd Sender, dir string) (telemetryOut, error) {
	spans, err := translate.JobSpans(translate.Job{ID: snd.jobID(dir)}, []*testrun.Run{run},
		translate.WithRedactor(e.redactor),
		translate.WithEvents(e.events),
	)
	if err != nil {
		return telemetryOut{}, err
	}
	out := telemetryOut{traces: translate.Traces(spans, nil), spans: len(spans)}
	putResource(out.traces.ResourceSpans().At(0).Resource().Attributes().PutStr, snd.ResourceAttributes)
	if e.events.Logs() {
		out.logs = translate.Logs(spans, nil)
		out.records = out.logs.LogRecordCount()
		if out.logs.ResourceLogs().Len() > 0 {
			putResource(out.logs.ResourceLogs().At(0).Resource().Attributes().PutStr, snd.ResourceAttributes)
		}
	}
	return out, nil
}

// putResource puts the resource attributes in key order.
func putResource(put func(k, v string), attrs map[string]string) {
	keys := make([]string, 0, len(attrs))
	for k := range attrs {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		put(k, attrs[k])
	}
}

// reportOptions are the options of report.ReadRun for a run, the ones
// testresults parse gives it.
func (e *emitter) reportOptions() []report.Option {
	opts := []report.Option{report.WithRunOptions(testrun.WithRedactor(e.redactor))}
	if e.workDir != "" {
		opts = append(opts, report.WithWorkDir(e.workDir))
	}
	return opts
}

// readFiles builds the run of bare report files, as testresults parse
// --started-at FIRST --ended-at LAST FILES... does: the id derived from
// the reports, the times of the first and last modification. err is
// report.ErrNoReports when not one report could be read.
func (e *emitter) readFiles(paths []string, first, last time.Time) (*testrun.Run, error) {
	run, err := report.ReadRun(paths, e.reportOptions()...)
	if run == nil {
		return nil, err
	}
	run.ID = testrun.DeriveID(run.Reports)
	run.StartedAt, run.EndedAt = first, last
	return run, err
}

// errNoID refuses a run JSON without an id, as export does.
var errNoID = errors.New("the run has no id")
