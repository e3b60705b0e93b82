package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/hangar-dev/testresults/check"
	"github.com/hangar-dev/testresults/testrun"
)

func init() {
	register(command{name: "run", synopsis: "run a check, collect its reports and write TEST-RESULTS.json", run: runRun})
}

// Exit codes of run besides the check's own.
const (
	// exitTimedOut is the exit code of a check ended by --timeout, as
	// timeout(1) gives it.
	exitTimedOut = 124
	// exitInternal is the exit code when testresults itself failed around
	// the check (the report folder or TEST-RESULTS.json could not be
	// written), as timeout(1) gives it.
	exitInternal = 125
)

// summaryFailures is how many failing ids the summary on stderr lists.
const summaryFailures = 10

const runUsage = `Usage: testresults run [flags] -- CMD [ARGS...]

Runs the check CMD unchanged (its stdin, stdout, stderr and exit code are its
own), in a fresh report folder, and collects the reports it wrote:

  - the report folder ($HOME/.hangar/tests/RUN-ID, or --out) is exported to
    the check as HANGAR_TESTS_DIR;
  - unless the environment already sets them, runner variables point the
    common runners there: PYTEST_ADDOPTS gets --junitxml=$HANGAR_TESTS_DIR/
    pytest.xml (not when PYTEST_ADDOPTS, the command line or the repository's
    pytest configuration already names a JUnit file: that file is read
    instead), GOTESTSUM_JUNITFILE=$HANGAR_TESTS_DIR/gotestsum.xml, and
    JEST_JUNIT_OUTPUT_DIR=$HANGAR_TESTS_DIR when the repository uses
    jest-junit;
  - then it reads the reports written since the start (regular files, no
    symbolic link in the path) from the report folder, the globs the
    repository lists under verify_reports in .hangar/environment.yaml, and
    the usual places (Maven, Gradle, cargo-nextest, *junit*.xml,
    test-results/, test-reports/, coverage.xml, cobertura*.xml, lcov.info,
    *.lcov).

HANGAR_TEST_REPORTS=collect reads reports without setting any variable; off
does neither. The commit and working-tree digest are read before the check
runs; the last 1 MiB of its output is kept, redacted, in output.log.

TEST-RESULTS.json (the run; with --base-run also base_id, new_failures,
comparison_unavailable, base_failures, fixed and coverage_delta, and then
run.json beside it, the run alone, for 'testresults export') is written into
the report folder whatever happens, also after a timeout or a signal. stdout belongs to the
check: the run goes to that file, and a short summary to stderr (--quiet
silences it; colour only on a terminal, NO_COLOR honoured).

--timeout sends SIGTERM to the check's whole process group, then SIGKILL
after --kill-after; SIGINT and SIGTERM sent to testresults are passed on to
the group (a second one kills it).

Exit codes: the check's own exit code; 128+N when a signal N ended it; 124
when --timeout ended it; 126 or 127 when it could not be started (not
executable, not found); 125 when testresults failed around it (the report
folder or TEST-RESULTS.json); 2 usage error; with --export, 1 when the
export failed after a check that passed.

Flags:
`

type runOptions struct {
	kind       string
	grade      string
	runID      string
	timeout    time.Duration
	killAfter  time.Duration
	out        string
	cacheClear bool
	agentRun   string
	quiet      bool
	export     bool
	exp        *exportOptions
}

func newRunFlags() (*pflag.FlagSet, *runOptions) {
	o := &runOptions{}
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	kinds := make([]string, len(testrun.Kinds))
	for i, k := range testrun.Kinds {
		kinds[i] = string(k)
	}
	fs.StringVar(&o.kind, "kind", "", "the run's kind: "+strings.Join(kinds, ", "))
	fs.StringVar(&o.grade, "grade", "", "with --kind grader: the grader's grade (isolated, or a lower grade)")
	fs.StringVar(&o.runID, "run-id", "", "the run id, also the report folder's name (default: start time and random digits)")
	fs.DurationVar(&o.timeout, "timeout", 0, "end the check after this long (status timed_out, exit 124); 0 means never")
	fs.DurationVar(&o.killAfter, "kill-after", check.DefaultKillAfter, "after SIGTERM (timeout or signal), SIGKILL the check's process group this much later")
	fs.StringVar(&o.out, "out", "", "the report folder (default $HOME/.hangar/tests/RUN-ID); made fresh and empty")
	fs.BoolVar(&o.cacheClear, "cache-clear", false, "remove .pytest_cache and add --cache-clear to PYTEST_ADDOPTS before the check")
	fs.StringVar(&o.agentRun, "agent-run-id", "", "the agent run the check checked")
	fs.BoolVarP(&o.quiet, "quiet", "q", false, "no summary on stderr")
	fs.BoolVar(&o.export, "export", false, "also export the run as spans; the flags below are export's (--base-run is also the base of TEST-RESULTS.json)")
	o.exp = addExportFlags(fs)
	return fs, o
}

func runRun(ctx context.Context, args []string, env Env) int {
	fs, o := newRunFlags()
	usageTo := func(w io.Writer) {
		fmt.Fprint(w, runUsage)
		fmt.Fprint(w, fs.FlagUsages())
	}
	usageErr := func(format string, a ...any) int {
		fmt.Fprintf(env.Stderr, "testresults run: "+format+"\n\n", a...)
		usageTo(env.Stderr)
		return exitUsage
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			usageTo(env.Stdout)
			return exitOK
		}
		return usageErr("%v", err)
	}
	argv := fs.Args()
	switch {
	case len(argv) == 0:
		return usageErr("no command given (testresults run [flags] -- CMD [ARGS...])")
	case fs.ArgsLenAtDash() != 0:
		return usageErr("put the command after --: testresults run [flags] -- %s", strings.Join(argv, " "))
	}
	kind := testrun.Kind(o.kind)
	if o.kind != "" && !kind.Valid() {
		return usageErr("unknown --kind %q", o.kind)
	}
	if fs.Changed("grade") {
		if err := checkGradeFlag(kind, o.grade); err != nil {
			return usageErr("%s", err.msg)
		}
	}
	if o.runID != "" && !testrun.ValidID(o.runID) {
		return usageErr("--run-id %q cannot name a folder (letters, digits, '.', '_', '-'; at most %d)", o.runID, testrun.MaxIDLength)
	}
	if o.timeout < 0 {
		return usageErr("--timeout %s is negative", o.timeout)
	}
	if o.killAfter <= 0 {
		return usageErr("--kill-after %s: want a positive duration", o.killAfter)
	}

	var plan *exportPlan
	var base *testrun.Run
	if o.export {
		var err error
		if plan, err = o.exp.planRun(fs, env); err != nil {
			var uerr *usageError
			if errors.As(err, &uerr) {
				return usageErr("%s", uerr.msg)
			}
			fmt.Fprintf(env.Stderr, "testresults run: %v\n", err)
			return exitUsage
		}
		base = plan.opts.Base
	} else {
		for _, name := range exportFlagNames() {
			if name != "base-run" && fs.Changed(name) {
				return usageErr("--%s is an export flag: add --export", name)
			}
		}
		if o.exp.baseRun != "" {
			var err error
			if base, err = readRunFile(o.exp.baseRun, env.Stdin); err != nil {
				fmt.Fprintf(env.Stderr, "testresults run: --base-run: %v\n", err)
				return exitUsage
			}
		}
	}

	// Signals go to the check's process group; the run ends as aborted and
	// is still written.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	opts := []check.Option{
		check.WithEnv(env.Environ()),
		check.WithStdio(env.Stdin, env.Stdout, env.Stderr),
		check.WithSignals(sigs),
		check.WithKind(kind, o.grade),
		check.WithAgentRunID(o.agentRun),
		check.WithRunID(o.runID),
		check.WithReportDir(o.out),
		check.WithTimeout(o.timeout),
		check.WithKillAfter(o.killAfter),
	}
	if o.cacheClear {
		opts = append(opts, check.WithCacheClear())
	}
	// The check ends on the signals it is sent, not on this context: a
	// cancelled context would end it a second way.
	res, err := check.Run(context.WithoutCancel(ctx), argv, opts...)
	signal.Stop(sigs)
	if res == nil {
		fmt.Fprintf(env.Stderr, "testresults run: %v\n", err)
		if errors.Is(err, check.ErrMode) || errors.Is(err, check.ErrReportDir) {
			return exitUsage
		}
		return exitInternal
	}
	if err != nil {
		fmt.Fprintf(env.Stderr, "testresults run: %v\n", err)
	}
	run := res.Run
	code := res.ExitCode
	if run.Status == testrun.StatusTimedOut {
		code = exitTimedOut
	}

	var fields []check.Field
	var cmp *comparison
	if base != nil {
		cmp = compareRuns(base, run)
		fields = cmp.fields()
	}
	path, werr := check.WriteResults(res.Dir, run, fields...)
	if werr != nil {
		fmt.Fprintf(env.Stderr, "testresults run: %v\n", werr)
		code = exitInternal
	}
	if !o.quiet {
		s := summary{w: env.Stderr, color: useColor(env)}
		s.print(res, cmp, path)
	}
	if plan != nil {
		plan.put(run)
		ectx := ctx
		if run.Status == testrun.StatusAborted {
			// The signal that aborted the check also cancelled ctx; the
			// aborted run is still evidence worth exporting (the export's
			// own timeout bounds it).
			ectx = context.WithoutCancel(ctx)
		}
		if perr := plan.export(ectx, env.Stdout); perr != nil {
			fmt.Fprintf(env.Stderr, "testresults run: export: %v\n", perr)
			if code == exitOK {
				code = exitFailed
			}
		}
	}
	return code
}

// comparison is what TEST-RESULTS.json adds when a base run is given. The
// comparison rules are testrun's; this only gathers them.
type comparison struct {
	BaseID string
	// New are the failures of the run that the base did not have, with
	// their messages; nil when Unavailable says why they cannot be known.
	New         []newFailure
	Unavailable string
	// BaseFailures are the base's own failures.
	BaseFailures []testrun.Failure
	// Fixed are ids failing in the base that pass in the run; nil when
	// unknown.
	Fixed []string
	// CoverageDelta is the run's line rate minus the base's; nil when
	// either is unknown.
	CoverageDelta *float64
}

type newFailure struct {
	ID      string          `json:"id"`
	Outcome testrun.Outcome `json:"outcome"`
	Message *string         `json:"message"`
	Flaky   bool            `json:"flaky"`
}

// compareRuns compares the run with its base.
func compareRuns(base, after *testrun.Run) *comparison {
	c := &comparison{BaseID: base.ID, BaseFailures: base.Failures}
	if base.Counts != nil && c.BaseFailures == nil {
		c.BaseFailures = []testrun.Failure{}
	}
	ids, err := testrun.NewFailures(base, after)
	if err != nil {
		c.Unavailable = err.Error()
	} else {
		byID := make(map[string]testrun.Failure, len(after.Failures))
		for _, f := range after.Failures {
			byID[f.ID] = f
		}
		c.New = make([]newFailure, 0, len(ids))
		for _, id := range ids {
			nf := newFailure{ID: id, Outcome: after.Cases[id]}
			if f, ok := byID[id]; ok {
				msg := f.Message
				nf.Outcome, nf.Message, nf.Flaky = f.Outcome, &msg, f.Flaky
			}
			c.New = append(c.New, nf)
		}
		if baseFailing, err := testrun.FailingIDs(base); err == nil {
			c.Fixed = []string{}
			for id := range baseFailing {
				if after.Cases[id] == testrun.OutcomePassed {
					c.Fixed = append(c.Fixed, id)
				}
			}
			sort.Strings(c.Fixed)
		}
	}
	if base.Coverage != nil && after.Coverage != nil && base.Coverage.LineRate != nil && after.Coverage.LineRate != nil {
		d := *after.Coverage.LineRate - *base.Coverage.LineRate
		c.CoverageDelta = &d
	}
	return c
}

func (c *comparison) fields() []check.Field {
	var unavailable *string
	if c.Unavailable != "" {
		unavailable = &c.Unavailable
	}
	return []check.Field{
		{Name: "base_id", Value: c.BaseID},
		{Name: "new_failures", Value: c.New},
		{Name: "comparison_unavailable", Value: unavailable},
		{Name: "base_failures", Value: c.BaseFailures},
		{Name: "fixed", Value: c.Fixed},
		{Name: "coverage_delta", Value: c.CoverageDelta},
	}
}

// summary prints the run for people.
type summary struct {
	w     io.Writer
	color bool
}

func (s summary) paint(code, text string) string {
	if !s.color {
		return text
	}
	return "\x1b[" + code + "m" + text + "\x1b[0m"
}

func (s summary) print(res *check.Result, cmp *comparison, path string) {
	run := res.Run
	status := string(run.Status)
	switch run.Status {
	case testrun.StatusSuccess:
		status = s.paint("32", status)
	case testrun.StatusFailure:
		status = s.paint("31", status)
	default:
		status = s.paint("33", status)
	}
	exit := "exit ?"
	if run.ExitCode != nil {
		exit = fmt.Sprintf("exit %d", *run.ExitCode)
	}
	fmt.Fprintf(s.w, "testresults: %s (%s, %s)\n", status, exit, run.EndedAt.Sub(run.StartedAt).Round(time.Millisecond))
	if c := run.Counts; c != nil {
		line := fmt.Sprintf("  %d tests: %d passed, %d failed, %d errors, %d skipped", c.Total, c.Passed, c.Failed, c.Errors, c.Skipped)
		if c.Flaky > 0 {
			line += fmt.Sprintf(", %d flaky", c.Flaky)
		}
		fmt.Fprintln(s.w, line)
	} else {
		fmt.Fprintln(s.w, "  no test counts: "+s.paint("33", "nothing was counted"))
	}
	for i, f := range run.Failures {
		if i == summaryFailures {
			fmt.Fprintf(s.w, "  ... %d more in %s\n", len(run.Failures)-i, check.ResultsFile)
			break
		}
		fmt.Fprintf(s.w, "  %-6s %s\n", s.paint("31", string(f.Outcome)), escapeControl(f.ID))
	}
	for _, id := range run.Flaky {
		fmt.Fprintf(s.w, "  %-6s %s\n", s.paint("33", "flaky"), escapeControl(id))
	}
	for _, r := range run.IncompleteReasons {
		fmt.Fprintf(s.w, "  %s %s\n", s.paint("33", "incomplete:"), escapeControl(r))
	}
	if cmp != nil {
		switch {
		case cmp.Unavailable != "":
			fmt.Fprintf(s.w, "  new failures: unknown (%s)\n", escapeControl(cmp.Unavailable))
		case len(cmp.New) == 0:
			fmt.Fprintf(s.w, "  new failures against %s: none\n", escapeControl(cmp.BaseID))
		default:
			ids := make([]string, len(cmp.New))
			for i, f := range cmp.New {
				ids[i] = escapeControl(f.ID)
			}
			fmt.Fprintf(s.w, "  new failures against %s: %s\n", escapeControl(cmp.BaseID), s.paint("31", strings.Join(ids, ", ")))
		}
	}
	for _, n := range res.Notes {
		fmt.Fprintf(s.w, "  note: %s\n", escapeControl(n))
	}
	if path != "" {
		fmt.Fprintf(s.w, "  results: %s\n", escapeControl(path))
	}
}

// escapeControl escapes what could drive a terminal: control characters
// (C0, DEL, C1), Unicode format characters (bidirectional overrides,
// zero-width characters) and invalid UTF-8.
func escapeControl(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029' {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r < 0x80 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\u2028' || r == '\u2029':
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
