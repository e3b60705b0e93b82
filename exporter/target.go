package exporter

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/hangar-dev/testresults/testrun"
	"github.com/hangar-dev/testresults/translate"
)

// Target is what one export carries: runs on a job's span (Runs), or a
// session (Session).
type Target struct {
	Runs    []*testrun.Run
	Session *translate.Session
}

// Plan is a checked export: its options (the base run read, the output
// file in OutputFile) and what it carries.
type Plan struct {
	Options Options
	Target  Target
}

// Plan checks s and reads what its export carries with read: the base run
// (BaseRun), then the runs (Target). Its own errors match ErrSettings;
// read's are returned as they are.
func (s Settings) Plan(args []string, read func(string) (*testrun.Run, error), getenv func(string) string, environ func() []string) (Plan, error) {
	p, err := s.plan(read, getenv, environ)
	if err != nil {
		return Plan{}, err
	}
	p.Target, err = s.Target(args, read)
	return p, err
}

// PendingPlan is Plan for the export of one run yet to be made: its
// target is Pending's.
func (s Settings) PendingPlan(read func(string) (*testrun.Run, error), getenv func(string) string, environ func() []string) (Plan, error) {
	p, err := s.plan(read, getenv, environ)
	if err != nil {
		return Plan{}, err
	}
	p.Target, err = s.Pending()
	return p, err
}

func (s Settings) plan(read func(string) (*testrun.Run, error), getenv func(string) string, environ func() []string) (Plan, error) {
	o, outFile, err := s.Options(getenv, environ)
	if err != nil {
		return Plan{}, err
	}
	o.OutputFile = outFile
	if s.BaseRun != "" {
		if o.Base, err = read(s.BaseRun); err != nil {
			return Plan{}, err
		}
	}
	return Plan{Options: o}, nil
}

// Target reads the runs an export of s carries with read: with s.Session
// its turns (SessionTurns), else args, of which there must be one or more.
// Its own errors match ErrSettings; read's are returned as they are.
func (s Settings) Target(args []string, read func(string) (*testrun.Run, error)) (Target, error) {
	if s.Session != "" {
		session, err := s.SessionTurns(args, read)
		return Target{Session: session}, err
	}
	if len(args) == 0 {
		return Target{}, settingsf("no RUN.json given")
	}
	t := Target{Runs: make([]*testrun.Run, 0, len(args))}
	for _, a := range args {
		r, err := read(a)
		if err != nil {
			return Target{}, err
		}
		t.Runs = append(t.Runs, r)
	}
	return t, nil
}

// Pending is the target of an export of one run yet to be made (a command
// that makes the run and exports it): a job export, or with s.Session the
// run goes on the one --turn N (OneTurn). Put gives it its run. Since
// stdout carries the run, --format otlp-json needs -o FILE. Its errors
// match ErrSettings.
func (s Settings) Pending() (Target, error) {
	if f, err := s.format(); err == nil && f == FormatOTLPJSON && (s.Output == "" || s.Output == "-") {
		return Target{}, settingsf("--format otlp-json needs -o FILE here: stdout carries the run")
	}
	if s.Session == "" {
		return Target{Runs: []*testrun.Run{nil}}, nil
	}
	n, err := s.OneTurn()
	if err != nil {
		return Target{}, err
	}
	return Target{Session: &translate.Session{ID: s.Session, Turns: []translate.Turn{{Number: n, Runs: []*testrun.Run{nil}}}}}, nil
}

// Put gives a target made by Pending its run.
func (t *Target) Put(run *testrun.Run) {
	if t.Session != nil {
		t.Session.Turns[0].Runs[0] = run
		return
	}
	t.Runs[0] = run
}

// AllRuns lists the runs of t: its Runs, or the runs of its session's
// turns in the order given.
func (t Target) AllRuns() []*testrun.Run {
	if t.Session == nil {
		return t.Runs
	}
	var runs []*testrun.Run
	for _, turn := range t.Session.Turns {
		runs = append(runs, turn.Runs...)
	}
	return runs
}

// Export exports t with o: ExportSession for a session, ExportRuns
// otherwise.
func (t Target) Export(ctx context.Context, o Options) (Result, error) {
	if t.Session != nil {
		return ExportSession(ctx, *t.Session, o)
	}
	return ExportRuns(ctx, t.Runs, o)
}

// exportToFile makes the export of FormatOTLPJSON to o.OutputFile with
// WriteFile: the file is written whole once everything was translated and
// encoded, and a failed export leaves the previous file (or none) and no
// partial one.
func exportToFile(ctx context.Context, o Options, build func([]translate.Option) ([]translate.Span, error)) (Result, error) {
	var buf bytes.Buffer
	name := o.OutputFile
	o.Output, o.OutputFile = &buf, ""
	r, err := export(ctx, o, build)
	if err != nil {
		return r, err
	}
	return r, WriteFile(name, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}

// SummaryPrefix begins the summary line of an export (Summary); a command
// that paints its first word finds it there.
const SummaryPrefix = "exported"

// flagsNote ends the summary line: the trust flags an export writes are
// the sender's claim, which the collector's testresults processor
// overwrites, so the line must not read as if the runs went out trusted.
const flagsNote = "(trusted/counted are recomputed by the collector)"

// Summary is the line for people that says what the export of o
// delivered: how many runs, spans and log records went where, and the
// trace ids, and that the trust flags are recomputed by the collector. It
// begins with SummaryPrefix and holds no colour codes.
func (r Result) Summary(o Options) string {
	dest := r.Destination
	switch {
	case o.Format != FormatOTLPJSON && o.Format != FormatOTel:
	case o.OutputFile != "":
		dest = o.OutputFile + " (" + r.Destination + ")"
	default:
		dest = "stdout (" + r.Destination + ")"
	}
	carried := count(r.Spans, "span")
	if r.Records > 0 {
		carried += " and " + count(r.Records, "log record")
	}
	line := fmt.Sprintf("%s %s in %s to %s", SummaryPrefix, count(r.Runs, "run"), carried, dest)
	if r.Records > 0 && r.LogDestination != r.Destination {
		line += " (log records to " + r.LogDestination + ")"
	}
	if len(r.TraceIDs) > 0 {
		ids := make([]string, len(r.TraceIDs))
		for i, id := range r.TraceIDs {
			ids[i] = id.String()
		}
		word := "traces"
		if len(ids) == 1 {
			word = "trace"
		}
		line += fmt.Sprintf("; %s %s", word, strings.Join(ids, ", "))
	}
	return line + " " + flagsNote
}
