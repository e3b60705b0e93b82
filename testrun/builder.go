package testrun

import (
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync/atomic"
	"time"
)

// Builder merges the executions and coverage of a run's reports into a Run.
// Add every report in a stable order (the order decides which failures are
// listed first); then call Build. A Builder is not safe for concurrent use.
type Builder struct {
	cfg config

	// ids interns each test id once: it finds the id's state in cases,
	// which keeps the ids in order of first appearance.
	ids   idIndex
	cases caseList
	// more holds, by index in cases, the suites after the first an id ran
	// in (few ids run in more than one).
	more map[int32][]scopeState
	// scopes interns the suite names executions give: a case's state
	// holds an index, not the name. last is the index of the name looked
	// up last (consecutive executions share their suite).
	scopes    map[string]int32
	names     []string // the names of scopes, by index
	last      int32
	lastScope string
	// msgs holds the failure messages of the states; a state's msg is an
	// index in it plus one.
	msgs []string
	// locs holds where the reports say test cases are written; a state's
	// loc is an index in it plus one.
	locs    []location
	reports []ReportInfo
	reasons []string
	tests   bool // a test report was read whole

	cov covState
}

// scopeState is the retry history of one test id inside one suite. It
// holds no pointer: a run's tens of thousands of them give the garbage
// collector nothing to scan.
type scopeState struct {
	scope   int32 // index of the suite's name (see Builder.scopes)
	msg     int32 // index of the failure message in Builder.msgs plus one; 0 when none yet
	outcome uint8 // the outcome's code (see outcomeCode)
	passed  bool  // some attempt passed
	failed  bool  // some attempt failed or errored
	flaky   bool  // the runner reported a retry that passed
}

// outcomeCodes are the outcomes a scopeState stores, by code: the code of
// an outcome is its Severity plus one, so that codes order as severities
// do and 0 stands for none.
var outcomeCodes = [...]Outcome{"", OutcomeSkipped, OutcomePassed, OutcomeFailed, OutcomeError}

func outcomeCode(o Outcome) uint8 { return uint8(o.Severity() + 1) }

// The codes of passed and of the first failing outcome (failed, then
// error): an execution's code tells what its outcome is without comparing
// strings again.
const (
	codePassed = 2
	codeFailed = 3
)

// caseState is a test id and its history in the first suite it ran in;
// Builder.more holds the other suites, if any.
type caseState struct {
	id string
	// dur sums the times its executions state; it is -1 once one stated
	// none (or the sum passed MaxCaseDuration): the id's time is then
	// unknown.
	dur   time.Duration
	first scopeState
	// loc is the index in Builder.locs, plus one, of where the first
	// execution that names a valid file says the test is written; 0 when
	// none has.
	loc int32
}

// location is a test case's source file and line, as a report gives them.
type location struct {
	file string
	line int
}

// setLocation records where e says the test at c is written, unless c
// already has a place or e names no valid file (see ValidFile). A line
// below 1 is unknown.
func (b *Builder) setLocation(c *caseState, e *Execution) {
	if c.loc != 0 || e.File == "" || !ValidFile(e.File) {
		return
	}
	b.locs = append(b.locs, location{file: e.File, line: max(e.Line, 0)})
	c.loc = int32(len(b.locs))
}

// scopeIndex returns the index of the suite named name.
func (b *Builder) scopeIndex(name string) int32 {
	if b.scopes != nil && name == b.lastScope {
		return b.last
	}
	i, ok := b.scopes[name]
	if !ok {
		if b.scopes == nil {
			b.scopes = make(map[string]int32)
		}
		i = int32(len(b.names))
		b.scopes[name] = i
		b.names = append(b.names, name)
	}
	b.last, b.lastScope = i, name
	return i
}

// scope returns the history of the id at index i in the suite of index
// scope.
func (b *Builder) scope(i, scope int32) *scopeState {
	if c := b.cases.at(i); c.first.scope == scope {
		return &c.first
	}
	more := b.more[i]
	for j := range more {
		if more[j].scope == scope {
			return &more[j]
		}
	}
	if b.more == nil {
		b.more = make(map[int32][]scopeState)
	}
	more = append(more, scopeState{scope: scope})
	b.more[i] = more
	return &more[len(more)-1]
}

// Bounds of the coverage a run merges: past either, the run's coverage is
// unknown (the reason is recorded) and the run is incomplete. Each
// report's own size is bounded by its parser's limits; these bound the sum
// of up to 64 of them.
const (
	// DefaultMaxCoverageLines is the most distinct source lines (file and
	// line number) a run merges.
	DefaultMaxCoverageLines = 4_000_000
	// DefaultMaxCoverageFiles is the most distinct source files a run
	// merges.
	DefaultMaxCoverageFiles = 100_000
)

// MaxCoverageLineNumber is the largest source line number a coverage
// report may state; parsers refuse larger ones.
const MaxCoverageLineNumber = 1<<31 - 1

// covState is the coverage of the reports added so far, merged per source
// file and line.
type covState struct {
	reports int // coverage reports read whole
	// first holds the totals the first of them states; firstTotals is
	// true when that is all it states (no line data).
	first       CoverageReport
	firstTotals bool
	// totalsOnly names the first report that states only totals.
	totalsOnly string
	files      map[string]*mergedFile
	lines      int64  // distinct lines in files
	over       string // the bound passed, "" when none

	maxLines, maxFiles int64
}

// mergedFile is one source file's coverage over the run's reports. Its
// lines are kept sorted and packed, line<<1 | covered, eight bytes a line
// (a map would take five times that).
type mergedFile struct {
	lines    []uint64
	hasLines bool  // some report stated the file line by line
	found    int64 // the LF/LH of lcov records without DA lines
	hit      int64
}

// merge adds lines (a report's Lines map) and returns how many lines are
// new to f; ok is false, and nothing is added, when a line number is
// outside 0..MaxCoverageLineNumber. Line 0 names no source line and is
// passed over.
func (f *mergedFile) merge(lines map[int64]bool) (n int64, ok bool) {
	add := make([]uint64, 0, len(lines))
	for line, hit := range lines {
		if line < 0 || line > MaxCoverageLineNumber {
			return 0, false
		}
		if line == 0 {
			continue
		}
		v := uint64(line) << 1
		if hit {
			v |= 1
		}
		add = append(add, v)
	}
	slices.Sort(add)
	f.hasLines = true
	if len(f.lines) == 0 {
		f.lines = add
		return int64(len(add)), true
	}
	before := len(f.lines)
	out := make([]uint64, 0, len(f.lines)+len(add))
	i, j := 0, 0
	for i < len(f.lines) || j < len(add) {
		switch {
		case j == len(add) || (i < len(f.lines) && f.lines[i]>>1 < add[j]>>1):
			out = append(out, f.lines[i])
			i++
		case i == len(f.lines) || add[j]>>1 < f.lines[i]>>1:
			out = append(out, add[j])
			j++
		default: // the same line: covered when either covers it
			out = append(out, f.lines[i]|add[j])
			i++
			j++
		}
	}
	f.lines = out
	return int64(len(out) - before), true
}

// NewBuilder returns an empty Builder.
func NewBuilder(opts ...Option) *Builder {
	return &Builder{
		cfg: newConfig(opts),
		cov: covState{maxLines: DefaultMaxCoverageLines, maxFiles: DefaultMaxCoverageFiles},
	}
}

// AddReport adds one report file: its description, the test executions it
// holds (nil for a coverage report) and the coverage it states (nil for a
// test report). A report is read whole or not at all: one whose info.Error
// is set and that is not Skipped makes the run incomplete, with the error
// as the reason, and adds nothing else (no cases, counts, coverage or flaky
// ids, whatever execs and cov hold). A Skipped file is only listed.
func (b *Builder) AddReport(info ReportInfo, execs []Execution, cov *CoverageReport) {
	b.AddReportSeq(info, len(execs), func(yield func(*Execution) bool) {
		for i := range execs {
			if !yield(&execs[i]) {
				return
			}
		}
	}, cov)
}

// AddReportSeq is AddReport for executions a parser holds in its own form:
// execs yields them in order, and the Execution it passes may be reused
// once yield returns. n is how many it yields, or 0 when that is not known;
// it only sizes the builder. execs may be nil for a coverage report.
func (b *Builder) AddReportSeq(info ReportInfo, n int, execs iter.Seq[*Execution], cov *CoverageReport) {
	b.addReport(info, cov, func() {
		if info.Tests != nil || n > 0 {
			b.tests = true
		}
		b.reserve(n)
		if execs != nil {
			for e := range execs {
				b.tests = true
				b.addExecution(e)
			}
		}
	})
}

// addReport lists a report and, unless it was skipped or refused, calls
// add to add its executions, then adds its coverage.
func (b *Builder) addReport(info ReportInfo, cov *CoverageReport, add func()) {
	b.reports = append(b.reports, info)
	if info.Skipped {
		return
	}
	if info.Error != "" {
		b.Incomplete(fmt.Sprintf("%s: %s", info.Path, info.Error))
		return
	}
	add()
	if cov != nil {
		b.addCoverage(info.Path, cov)
	}
}

// reserve makes room for n more test ids.
func (b *Builder) reserve(n int) {
	b.ids.reserve(n)
}

// Incomplete marks the run incomplete with a reason.
func (b *Builder) Incomplete(reason string) {
	b.reasons = append(b.reasons, reason)
}

func (b *Builder) addExecution(e *Execution) {
	b.addExecutionHashed(e, b.ids.hash(e.ID))
}

// addExecutionHashed is addExecution for an execution whose id's hash
// (see idIndex.hash) is h.
func (b *Builder) addExecutionHashed(e *Execution, h uint32) {
	code := outcomeCode(e.Outcome)
	if e.ID == "" || code == 0 {
		b.Incomplete(fmt.Sprintf("a test case with id %q and outcome %q cannot be read", e.ID, e.Outcome))
		return
	}
	scope := b.scopeIndex(e.Scope)
	var s *scopeState
	i, h := b.ids.findHashed(e.ID, h, &b.cases)
	if i >= 0 {
		s = b.scope(i, scope)
	} else {
		i = b.cases.add(caseState{id: e.ID, first: scopeState{scope: scope}})
		b.ids.insert(h, i)
		s = &b.cases.at(i).first
	}
	c := b.cases.at(i)
	b.setLocation(c, e)
	if c.dur >= 0 {
		// Both terms are within 0..MaxCaseDuration: the sum cannot wrap.
		d := e.Duration.Round(DurationResolution)
		if !e.Timed || d < 0 || d > MaxCaseDuration || c.dur+d > MaxCaseDuration {
			c.dur = -1
		} else {
			c.dur += d
		}
	}
	// Retries inside one suite: the last outcome wins, with its message.
	s.outcome = code
	msg := ""
	if code >= codeFailed {
		msg = e.Message
		s.failed = true
	}
	b.setMessage(s, msg)
	if code == codePassed {
		s.passed = true
	}
	if e.RunnerFlaky {
		s.flaky = true
	}
}

// setMessage makes msg the failure message of s. A state keeps its slot
// in msgs, so that the message of an attempt retried is dropped, not kept
// beside the next one.
func (b *Builder) setMessage(s *scopeState, msg string) {
	switch {
	case s.msg > 0:
		b.msgs[s.msg-1] = msg
	case msg != "":
		b.msgs = append(b.msgs, msg)
		s.msg = int32(len(b.msgs))
	}
}

// merged is the final outcome of the id at index i, as a code (see
// outcomeCode): the worst over its configurations.
func (b *Builder) merged(i int32) (uint8, string, bool) {
	s := &b.cases.at(i).first
	out, msg := s.outcome, s.msg
	// Within one suite a test that both failed and passed is flaky;
	// differing outcomes across suites do not make it flaky.
	flaky := s.flaky || (s.failed && s.passed)
	if b.more != nil {
		more := b.more[i]
		for j := range more {
			s := &more[j]
			if s.outcome > out {
				out, msg = s.outcome, s.msg
			}
			if s.flaky || (s.failed && s.passed) {
				flaky = true
			}
		}
	}
	m := ""
	if msg > 0 {
		m = b.msgs[msg-1]
	}
	return out, m, flaky
}

// addCoverage merges one coverage report read whole, per source file and
// line: a line is covered when any report covers it.
func (b *Builder) addCoverage(path string, cov *CoverageReport) {
	c := &b.cov
	c.reports++
	if c.reports == 1 {
		c.first = CoverageReport{LineRate: cov.LineRate, LinesCovered: cov.LinesCovered, LinesValid: cov.LinesValid}
		c.firstTotals = cov.Files == nil
	}
	if c.totalsOnly == "" && cov.OnlyTotals() {
		c.totalsOnly = path
	}
	if c.over != "" {
		return
	}
	for name, f := range cov.Files {
		if f == nil {
			continue
		}
		if c.files == nil {
			c.files = make(map[string]*mergedFile)
		}
		dst, ok := c.files[name]
		if !ok {
			if int64(len(c.files)) >= c.maxFiles {
				c.overflow(fmt.Sprintf("coverage of more than %d source files (the run's limit)", c.maxFiles))
				return
			}
			dst = &mergedFile{}
			c.files[name] = dst
		}
		if f.Lines != nil {
			n, ok := dst.merge(f.Lines)
			if !ok {
				c.overflow(fmt.Sprintf("%s: coverage of %s states a line number outside 0..%d", path, name, MaxCoverageLineNumber))
				return
			}
			c.lines += n
			if c.lines > c.maxLines {
				c.overflow(fmt.Sprintf("coverage of more than %d source lines (the run's limit)", c.maxLines))
				return
			}
		} else {
			dst.found, dst.hit = max(dst.found, f.Found), max(dst.hit, f.Hit)
		}
	}
}

// overflow drops the merged lines once a bound is passed.
func (c *covState) overflow(reason string) {
	c.over, c.files = reason, nil
}

// coverage returns the run's coverage: nil when no coverage report was
// read whole; else counted from the merged lines. A report that states
// only totals is taken as stated when it is the run's only coverage
// report; beside others its lines cannot be merged and the totals are
// unknown, with the reason.
func (b *Builder) coverage() *Coverage {
	c := &b.cov
	switch {
	case c.reports == 0:
		return nil
	case c.over != "":
		return &Coverage{Reason: c.over + ": the totals are unknown"}
	case c.reports == 1 && c.firstTotals:
		return statedCoverage(&c.first)
	case c.totalsOnly != "" && c.reports > 1:
		return &Coverage{Reason: fmt.Sprintf("%s states only coverage totals, not lines: they cannot be merged with the run's %d other coverage report(s), so the totals are unknown",
			c.totalsOnly, c.reports-1)}
	}
	var covered, valid int64
	for _, f := range c.files {
		if !f.hasLines {
			// An lcov record with LF/LH and no DA, in the run's only
			// coverage report: taken as stated.
			valid += f.found
			covered += f.hit
			continue
		}
		valid += int64(len(f.lines))
		for _, v := range f.lines {
			covered += int64(v & 1)
		}
	}
	out := &Coverage{LinesCovered: &covered, LinesValid: &valid}
	if valid > 0 {
		r := float64(covered) / float64(valid)
		out.LineRate = &r
	}
	return out
}

// statedCoverage is the coverage one report states by its totals alone.
func statedCoverage(cov *CoverageReport) *Coverage {
	out := &Coverage{}
	if cov.LineRate != nil {
		r := *cov.LineRate
		out.LineRate = &r
	}
	if cov.LinesCovered != nil && cov.LinesValid != nil {
		covered, valid := *cov.LinesCovered, *cov.LinesValid
		out.LinesCovered, out.LinesValid = &covered, &valid
		if out.LineRate == nil && valid > 0 {
			r := float64(covered) / float64(valid)
			out.LineRate = &r
		}
	}
	return out
}

// Build returns the run the added reports describe. Only the result fields
// are set; the caller fills in the run's identity and metadata.
func (b *Builder) Build() *Run {
	reasons := append([]string(nil), b.reasons...)
	if b.cov.over != "" {
		reasons = append(reasons, b.cov.over)
	}
	r := &Run{
		Complete:          len(reasons) == 0,
		IncompleteReasons: reasons,
		Reports:           append([]ReportInfo(nil), b.reports...),
		Coverage:          b.coverage(),
	}
	if !b.tests {
		if len(reasons) == 0 && b.cov.reports == 0 {
			r.Complete = false
			r.IncompleteReasons = append(r.IncompleteReasons, "no test report was read")
		}
		b.expect(r)
		return r
	}

	counts := &Counts{}
	// outs holds each id's merged outcome, in the order of b.cases; the
	// failing and flaky ids are listed by their index there.
	outs := make([]uint8, b.cases.len())
	var failing, flaky []int32
	for i := range outs {
		c := b.cases.at(int32(i))
		code, msg, isFlaky := b.merged(int32(i))
		out := outcomeCodes[code]
		outs[i] = code
		counts.Total++
		switch out {
		case OutcomePassed:
			counts.Passed++
		case OutcomeFailed:
			counts.Failed++
		case OutcomeError:
			counts.Errors++
		case OutcomeSkipped:
			counts.Skipped++
		}
		if isFlaky {
			counts.Flaky++
			flaky = append(flaky, int32(i))
		}
		if out.Failing() {
			failing = append(failing, int32(i))
			// Only the failures kept are redacted (below).
			if len(r.Failures) < b.cfg.maxFailures {
				f := Failure{ID: c.id, Outcome: out, Message: msg, Flaky: isFlaky}
				if c.loc > 0 {
					l := b.locs[c.loc-1]
					f.File, f.Line = l.file, l.line
				}
				r.Failures = append(r.Failures, f)
			}
		}
	}
	r.Counts = counts
	// The flaky ids are kept in id order.
	slices.SortFunc(flaky, func(i, j int32) int { return strings.Compare(b.cases.at(i).id, b.cases.at(j).id) })
	var flakyIDs []string
	for _, i := range flaky {
		flakyIDs = append(flakyIDs, b.cases.at(i).id)
	}
	r.Flaky = flakyIDs
	// The kept messages are redacted on a goroutine of their own while
	// the kept outcomes are gathered: on a large run each takes a few
	// milliseconds.
	redacted := aside(func() {
		for i := range r.Failures {
			f := &r.Failures[i]
			f.Message = Clip(b.cfg.redactor.Redact(f.Message), b.cfg.maxMessage)
		}
	})
	r.Cases, r.Durations = b.keepCases(outs, failing, flaky, b.cfg.maxCases)
	redacted()
	b.expect(r)
	return r
}

// expect checks r against the ids of WithExpectedIDs, if given: an id ran
// when some report read whole mentions it, whether or not r keeps its
// case. It runs once no goroutine of Build reads the builder any more.
func (b *Builder) expect(r *Run) {
	if !b.cfg.expect {
		return
	}
	r.expectIDs(b.cfg.expected, func(id string) bool {
		i, _ := b.ids.find(id, &b.cases)
		return i >= 0
	})
}

// keepCases keeps at most n outcomes: failing ids first, then flaky ones
// (in id order), then the rest in the order the reports list them. Beside
// them it keeps the stated time of each kept id whose every execution
// stated one (nil when there is none).
//
// The two maps hold the same ids and are filled at once, the durations
// beside the outcomes (see aside): on a large run, filling them is most of
// Build.
func (b *Builder) keepCases(outs []uint8, failing, flaky []int32, n int) (map[string]Outcome, map[string]time.Duration) {
	keep := b.kept(failing, flaky, n)
	var durs map[string]time.Duration
	wait := aside(func() { durs = b.keptDurations(keep) })
	kept := make(map[string]Outcome, len(keep))
	for _, i := range keep {
		kept[b.cases.at(i).id] = outcomeCodes[outs[i]]
	}
	wait()
	return kept, durs
}

// aside starts f on a goroutine of its own, beside the caller's work, and
// returns a function that returns once f has run. That function runs f
// itself when the goroutine has not started it yet: on a busy machine a
// new goroutine may wait long for a core, and the caller, which has one,
// then does the work rather than wait for it.
func aside(f func()) (wait func()) {
	var claimed atomic.Bool
	done := make(chan struct{})
	go func() {
		if claimed.CompareAndSwap(false, true) {
			f()
			close(done)
		}
	}()
	return func() {
		if claimed.CompareAndSwap(false, true) {
			f()
			return
		}
		<-done
	}
}

// kept returns the indexes in cases of the ids keepCases keeps, in the
// order it keeps them, each once.
func (b *Builder) kept(failing, flaky []int32, n int) []int32 {
	if b.cases.len() <= n {
		keep := make([]int32, b.cases.len())
		for i := range keep {
			keep[i] = int32(i)
		}
		return keep
	}
	keep := make([]int32, 0, n)
	taken := make([]bool, b.cases.len())
	add := func(i int32) bool {
		if len(keep) >= n {
			return false
		}
		if !taken[i] {
			taken[i] = true
			keep = append(keep, i)
		}
		return true
	}
	for _, group := range [][]int32{failing, flaky} {
		for _, i := range group {
			if !add(i) {
				return keep
			}
		}
	}
	for i := range b.cases.len() {
		if !add(int32(i)) {
			break
		}
	}
	return keep
}

// keptDurations returns the stated times of the ids at keep that have one,
// or nil when none has.
func (b *Builder) keptDurations(keep []int32) map[string]time.Duration {
	var durs map[string]time.Duration
	for _, i := range keep {
		if c := b.cases.at(i); c.dur >= 0 {
			if durs == nil {
				durs = make(map[string]time.Duration, len(keep))
			}
			durs[c.id] = c.dur
		}
	}
	return durs
}
