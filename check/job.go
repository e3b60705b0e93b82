package check

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/testrun"
)

// Exit codes of a Job besides the check's own, as timeout(1) gives them.
const (
	// ExitTimedOut is the exit code of a check ended by its timeout.
	ExitTimedOut = 124
	// ExitInternal is the exit code when something around the check
	// failed: a report folder or TEST-RESULTS.json could not be written, a
	// rerun could not run.
	ExitInternal = 125
)

// Job is one job of a check: its first run, compared with a base when
// there is one, and what the job does after a failure — one rerun that
// decides when the flaky list excuses every failure (RerunFlaky), up to
// RerunBudget reruns on the same tree that inform, an exit 0 when the
// failures are all quarantined (Quarantine). Every run's TEST-RESULTS.json
// is written in its report folder. The flaky list is the one given by
// OpenList, as it stood when the job started (the first run's start): an
// entry added during the job excuses nothing in it.
//
// What the job says goes out as it happens: the summaries through Summary,
// what went wrong through Errors, the rest for people to Text.
type Job struct {
	// Options are the options of the first run. A rerun runs with them,
	// kind rerun, its run id the first one's with -rerun (-rerun-N)
	// appended when that is still an id, in the sibling report folder
	// named so.
	Options []Option
	// Expected are the tests each run is expected to run (nil: no
	// expectation): testrun.WithExpectedIDs for the runs whose reports are
	// read, Run.ExpectIDs for the others.
	Expected []string
	// Base is the run each run is compared with (nil: none), BaseOutput
	// its kept output.
	Base       *testrun.Run
	BaseOutput []byte
	// RerunFlaky reruns a failed check once when the flaky list excuses
	// every failure (with a base, every new failure: testrun.Excuse); the
	// rerun decides the exit code, and the first run was transient when
	// it passed.
	RerunFlaky bool
	// RerunBudget reruns a failed check up to that many times on the same
	// tree (RerunBudget), and records the runs on the flaky list; the exit
	// code stays the first run's.
	RerunBudget int
	// Quarantine makes the exit code 0 when the run that decides failed
	// only by tests quarantined before the job started
	// (testrun.Quarantine).
	Quarantine bool
	// OpenList, when set, opens the flaky list once the first run ended;
	// without it, or when it fails, the flaky ids are not marked on_list
	// and nothing is excused, quarantined or recorded.
	OpenList func(ctx context.Context) (*FlakyList, error)
	// Notify and Stop, when set, are called before and after the check
	// runs: the caller's signal.Notify and signal.Stop of the channel given
	// WithSignals, so that signals reach a running check only.
	Notify, Stop func()
	// Summary, when set, shows a run and its comparison for people; path
	// is its TEST-RESULTS.json ("" when it could not be written), prefix
	// goes before its first line ("rerun " for the flaky rerun).
	Summary func(r *Result, cmp *testrun.Comparison, path, prefix string)
	// Errors, when set, gets what went wrong as it happens; the job goes
	// on.
	Errors func(err error)
	// Text gets the job's other lines for people (nil: none); it escapes
	// what reaches a terminal. EscapeLine, when set, escapes a value
	// shown within one of its lines, tabs and newlines too.
	Text       io.Writer
	EscapeLine func(string) string
	// Quiet keeps Text to the warnings about quarantine entries.
	Quiet bool
}

// FlakyList is the flaky list and the quarantine of one repository and
// environment, as a store keeps them.
type FlakyList struct {
	// Environment is the environment the quarantine entries apply in.
	Environment string
	// OnList returns, of ids, those on the list before jobStart.
	OnList func(ctx context.Context, ids []string, jobStart time.Time) ([]string, error)
	// Excused reports, for each of ids, whether the list excused it
	// before jobStart.
	Excused func(ctx context.Context, ids []string, jobStart time.Time) (map[string]bool, error)
	// Quarantine returns the quarantine entries of ids; nil when the
	// store keeps no quarantine.
	Quarantine func(ctx context.Context, ids []string) ([]testrun.QuarantineEntry, error)
	// Record records run on the list and returns the ids it put on it,
	// sorted (testrun.ErrNotRecordable: a run it cannot record).
	Record func(ctx context.Context, run *testrun.Run) ([]string, error)
}

// JobSettings are the settings of a job's first run that run's flags give
// (--run-id, --timeout, --kill-after), and whether it has a flaky list
// (--repo), for Job.Check.
type JobSettings struct {
	RunID              string
	Timeout, KillAfter time.Duration
	Listed             bool
}

// Check refuses a job that cannot run as set, before anything starts, in
// the words of run's flags: a run id that cannot name a folder, a negative
// timeout, a kill delay that is not positive, a flaky rerun or quarantine
// without a flaky list, a rerun budget out of range or beside the flaky
// rerun.
func (j *Job) Check(s JobSettings) error {
	switch {
	case s.RunID != "" && !testrun.ValidID(s.RunID):
		return fmt.Errorf("--run-id %q cannot name a folder (letters, digits, '.', '_', '-'; at most %d)", s.RunID, testrun.MaxIDLength)
	case s.Timeout < 0:
		return fmt.Errorf("--timeout %s is negative", s.Timeout)
	case s.KillAfter <= 0:
		return fmt.Errorf("--kill-after %s: want a positive duration", s.KillAfter)
	case j.RerunFlaky && !s.Listed:
		return errors.New("--rerun-flaky needs --repo (and --store, HANGAR_STORE or the default store)")
	case j.Quarantine && !s.Listed:
		return errors.New("--quarantine needs --repo (and --store, HANGAR_STORE or the default store)")
	case j.RerunBudget < 0 || j.RerunBudget > MaxRerunBudget:
		return fmt.Errorf("--rerun-budget %d: want 0 to %d", j.RerunBudget, MaxRerunBudget)
	case j.RerunBudget > 0 && j.RerunFlaky:
		return errors.New("--rerun-budget and --rerun-flaky: give one (each reruns a failed check its own way)")
	}
	return nil
}

// JobResult is what a job ran and concluded. Its results are closed: what
// was written is written.
type JobResult struct {
	// Code is the job's exit code: the check's own (the flaky rerun's when
	// there was one), ExitTimedOut, ExitInternal, or 0 for a failure
	// quarantine excused.
	Code int
	// First is the first run, Comparison its comparison with the base
	// (nil without one).
	First      *Result
	Comparison *testrun.Comparison
	// Rerun is the flaky rerun (nil when none ran); Budget what the rerun
	// budget ran (nil when it did not run).
	Rerun  *Result
	Budget *BudgetResult
	// Quarantined is what quarantine decided (nil when it was not asked).
	Quarantined *testrun.Quarantined
	// Runs are the job's runs to record, in order: the first run, then the
	// reruns. The last one is the job's.
	Runs []*testrun.Run
}

// jobRun is one Run of a Job.
type jobRun struct {
	*Job
	list  *FlakyList
	start time.Time
	runID string
	dir   string
}

// Run runs the job for the check argv. The error is Run's when the first
// run could not be made (nothing ran: no result); everything after is
// said through Errors and Code. The check ends on the signals it is sent,
// not on ctx.
func (j *Job) Run(ctx context.Context, argv []string) (*JobResult, error) {
	keepOnBrokenPipe()
	first, err := j.runCheck(ctx, argv, j.options())
	if first == nil {
		return nil, err
	}
	defer func() { _ = first.Close() }() // what was written is written
	if err != nil {
		j.fail(err)
	}
	cfg := newConfig(j.Options)
	r := &jobRun{Job: j, start: first.Run.StartedAt, runID: cfg.runID, dir: cfg.dir}
	if r.dir == "" {
		r.dir = "." // the current folder: reruns select tests by their files there
	}
	res := &JobResult{First: first, Runs: []*testrun.Run{first.Run}}
	res.Code = r.ended(first)
	r.openList(ctx)
	res.Comparison = r.compare(ctx, first)
	path, werr := first.WriteTestResults(testrun.TestResults{Run: first.Run, Comparison: res.Comparison})
	if werr != nil {
		j.fail(werr)
		res.Code = ExitInternal
	}
	j.summary(first, res.Comparison, path, "")
	decides := first
	if j.RerunFlaky && werr == nil {
		if code, rerun := r.rerunFlaky(ctx, argv, first, res.Comparison); rerun != nil {
			res.Code, res.Rerun, decides = code, rerun, rerun
			res.Runs = append(res.Runs, rerun.Run)
		} else if res.Code == 0 {
			res.Code = code
		}
	}
	if j.RerunBudget > 0 && werr == nil {
		if res.Budget = r.rerunBudget(ctx, argv, first); res.Budget != nil {
			for _, b := range res.Budget.Reruns {
				res.Runs = append(res.Runs, b.Run)
			}
		}
	}
	if j.Quarantine {
		res.Code, res.Quarantined = r.quarantined(ctx, decides, res.Code)
	}
	return res, nil
}

// options are the options of the job's runs before a rerun's own.
func (j *Job) options() []Option {
	opts := slices.Clone(j.Options)
	if j.Expected != nil {
		// The builder decides by every id the reports mention, before it
		// caps the cases it keeps.
		opts = append(opts, WithReportOptions(report.WithRunOptions(testrun.WithExpectedIDs(j.Expected))))
	}
	return opts
}

// runCheck runs the check while the caller listens for signals; a
// cancelled context would end it a second way.
func (j *Job) runCheck(ctx context.Context, argv []string, opts []Option) (*Result, error) {
	j.listen(true)
	defer j.listen(false)
	return Run(context.WithoutCancel(ctx), argv, opts...)
}

// listen calls Notify (on) or Stop when set.
func (j *Job) listen(on bool) {
	switch {
	case on && j.Notify != nil:
		j.Notify()
	case !on && j.Stop != nil:
		j.Stop()
	}
}

func (j *Job) fail(err error) {
	if j.Errors != nil {
		j.Errors(err)
	}
}

func (j *Job) summary(r *Result, cmp *testrun.Comparison, path, prefix string) {
	if j.Summary != nil {
		j.Summary(r, cmp, path, prefix)
	}
}

// say writes a line for people to Text, unless Quiet.
func (j *Job) say(format string, a ...any) {
	if !j.Quiet && j.Text != nil {
		fmt.Fprintf(j.Text, format, a...)
	}
}

func (j *Job) text() io.Writer {
	if j.Text == nil {
		return io.Discard
	}
	return j.Text
}

func (j *Job) escape(s string) string {
	if j.EscapeLine == nil {
		return s
	}
	return j.EscapeLine(s)
}

// ended checks the run of r against the expected tests and returns its
// exit code: the check's own, ExitTimedOut when its timeout ended it. A
// run no report builder checked (its check could not start, or its
// reports are off) ran none of them; one whose reports were read was
// checked as they were, and keeps the reason of its expected tests that
// never ran.
func (j *Job) ended(r *Result) int {
	if j.Expected != nil && r.Run.NotRun == nil {
		r.Run.ExpectIDs(j.Expected)
	}
	if r.Run.Status == testrun.StatusTimedOut {
		return ExitTimedOut
	}
	return r.ExitCode
}

func (r *jobRun) openList(ctx context.Context) {
	if r.OpenList == nil {
		return
	}
	l, err := r.OpenList(ctx)
	if err != nil {
		r.fail(fmt.Errorf("flaky list: %w", err))
		return
	}
	r.list = l
}

// compare compares the run of res with the base, nil without a base; the
// flaky ids on the list are marked on_list.
func (r *jobRun) compare(ctx context.Context, res *Result) *testrun.Comparison {
	if r.Base == nil {
		return nil
	}
	opts := []testrun.CompareOption{testrun.WithOutput(r.BaseOutput, res.KeptOutput())}
	if r.list != nil && r.list.OnList != nil {
		ids, err := r.list.OnList(ctx, res.Run.Flaky, r.start)
		if err != nil {
			r.fail(fmt.Errorf("flaky list: %w", err))
		} else {
			opts = append(opts, testrun.WithFlakyList(ids))
		}
	}
	c := testrun.Compare(r.Base, res.Run, opts...)
	return &c
}

// failed reports whether the check of res failed by its tests: a non-zero
// exit and status failure.
func failed(res *Result) bool {
	return res.ExitCode != 0 && res.Run.Status == testrun.StatusFailure
}

// rerunFlaky reruns the check when it failed and the flaky list excuses
// every failure. It returns the rerun's exit code and result; no result
// when there was no rerun or it could not run.
func (r *jobRun) rerunFlaky(ctx context.Context, argv []string, first *Result, cmp *testrun.Comparison) (int, *Result) {
	if !failed(first) {
		return 0, nil
	}
	why := "the flaky list could not be read"
	if r.list != nil && r.list.Excused != nil {
		e, err := testrun.Excuse(first.Run, cmp, func(ids []string) (map[string]bool, error) {
			return r.list.Excused(ctx, ids, r.start)
		})
		switch {
		case err != nil:
			why = "flaky list: " + err.Error()
		case e.Transient:
			return r.rerun(ctx, argv, first, cmp, e.Excused())
		default:
			why = e.Reason()
		}
	}
	r.say("  no rerun: %s\n", r.escape(why))
	return 0, nil
}

// rerun runs the check once more, kind rerun, in the sibling report
// folder FOLDER-rerun, and rewrites the first run's TEST-RESULTS.json to
// name the rerun and say whether the first run was transient (the rerun
// passed).
func (r *jobRun) rerun(ctx context.Context, argv []string, first *Result, firstCmp *testrun.Comparison, excused []string) (int, *Result) {
	opts := append(r.options(), WithKind(testrun.KindRerun, ""), WithRunID(RerunID(r.runID, "-rerun")), WithReportDir(first.Dir+"-rerun"))
	r.say("testresults: every failure is on the flaky list (%s): running the check once more\n", r.escape(strings.Join(excused, ", ")))
	res, err := r.runCheck(ctx, argv, opts)
	if res == nil {
		r.fail(fmt.Errorf("rerun: %w", err))
		return ExitInternal, nil
	}
	defer func() { _ = res.Close() }() // what was written is written
	if err != nil {
		r.fail(fmt.Errorf("rerun: %w", err))
	}
	code := r.ended(res)
	transient := code == 0
	cmp := r.compare(ctx, res)
	path, werr := res.WriteTestResults(testrun.TestResults{Run: res.Run, Comparison: cmp, RerunOf: first.Link(excused)})
	if werr != nil {
		r.fail(fmt.Errorf("rerun: %w", werr))
		code = ExitInternal
	}
	if _, err := first.WriteTestResults(testrun.TestResults{Run: first.Run, Comparison: firstCmp, Rerun: res.Link(excused), Transient: &transient}); err != nil {
		r.fail(err)
		code = ExitInternal
	}
	r.summary(res, cmp, path, "rerun ")
	if transient {
		r.say("  the first run (%s) was transient: the rerun passed\n", r.escape(first.Run.ID))
	}
	return code, res
}

// errNoQuarantine is said when quarantine was asked and no quarantine
// could be read.
var errNoQuarantine = errors.New("quarantine: the store could not be read")

// quarantined returns the exit code of res's run with quarantine: 0 when
// its check failed only by tests quarantined before the job started (its
// reports' failures, and none its output names beside them), else code;
// and what quarantine decided (nil when it did not look). It writes which
// failures were quarantined, each entry that no longer counts, and why the
// run still fails.
func (r *jobRun) quarantined(ctx context.Context, res *Result, code int) (int, *testrun.Quarantined) {
	run := res.Run
	if code == 0 || run.Status != testrun.StatusFailure {
		return code, nil
	}
	if r.list == nil || r.list.Quarantine == nil {
		r.fail(errNoQuarantine)
		return code, nil
	}
	failing, err := testrun.ExcusableFailures(run, nil)
	var entries []testrun.QuarantineEntry
	if err == nil {
		if entries, err = r.list.Quarantine(ctx, failing); err != nil {
			r.fail(fmt.Errorf("quarantine: %w", err))
			return code, nil
		}
	}
	got := testrun.Quarantine(run, entries, r.list.Environment, r.start, testrun.WithOutput(nil, res.KeptOutput()))
	got.WriteText(r.text(), code, r.Quiet)
	if !got.Passes {
		return code, &got
	}
	return 0, &got
}
