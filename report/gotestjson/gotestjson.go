package gotestjson

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// Dialect names the format, as report.ReportInfo.Dialect lists it.
const Dialect = "gotest-json"

// MaxLineBytes is the longest line read (1 MiB, its line ending aside):
// test2json writes one event per line of a test's output, and splits
// longer output lines itself.
const MaxLineBytes = 1 << 20

// The test names of the executions that stand for a package rather than
// one of its tests; the id is "<package>::<name>". They mirror the
// "<suite-level error>" of a JUnit suite that failed outside its test
// cases.
const (
	// BuildFailedName stands for a package whose test binary did not build
	// (a fail event with FailedBuild, or the "[build failed]" line older
	// Go versions write); its message is the build's output.
	BuildFailedName = "<build failed>"
	// PackageFailedName stands for a package that failed with no failing
	// test of its own: a panic in init or TestMain, os.Exit in TestMain
	// after the tests passed, a -timeout panic. Its message is the
	// package's own output (not a test's), without go test's PASS/FAIL
	// summary lines.
	PackageFailedName = "<package failed>"
)

// stillRunning ends the message of a test that got no pass, fail or skip
// before its package ended.
const stillRunning = "(the test was still running when its package ended)"

// Report is what one go test -json stream holds.
type Report struct {
	// Executions are the stream's test executions in the order they ended
	// (a pass, fail or skip event, or the end of their package). Those of
	// one package share a Scope, so that a test run again in it (go test
	// -count=N) is a retry of itself: the last outcome wins, and one that
	// failed and passed is flaky. A package that appears again after it
	// ended (two streams joined) is a scope of its own.
	Executions []testrun.Execution

	n int // executions read; 0 when refused
}

// Len returns how many executions the report holds (also when they were
// handed over in batches and Executions is nil).
func (r *Report) Len() int { return r.n }

// All yields the report's executions in order.
func (r *Report) All() iter.Seq[*testrun.Execution] {
	return func(yield func(*testrun.Execution) bool) {
		for i := range r.Executions {
			if !yield(&r.Executions[i]) {
				return
			}
		}
	}
}

// Detect reports whether the start of a file is a go test -json stream:
// its first non-blank byte opens a JSON object, and its first line is an
// event with an Action (when that line is cut by the end of head, it must
// at least name an Action). It is cheap enough to call on every file.
func Detect(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 || head[0] != '{' {
		return false
	}
	line, _, complete := bytes.Cut(head, []byte{'\n'})
	if !complete {
		return bytes.Contains(line, []byte(`"Action":`))
	}
	var ev event
	return ev.decode(line) == nil
}

// Parse reads one go test -json stream from r. name identifies the stream
// (its path) in errors and in the Scope of its executions. On error the
// returned Report (never nil) holds no execution: a report is read whole
// or not at all.
func Parse(r io.Reader, name string, opts ...Option) (*Report, error) {
	cfg := parseopt.New(opts)
	p := &parser{
		cfg:    cfg,
		name:   name,
		br:     bufio.NewReaderSize(r, 64<<10),
		pkgs:   map[string]*pkgState{},
		builds: map[string]*buildState{},
	}
	rep := &Report{}
	if err := p.run(); err != nil {
		return rep, err
	}
	rep.n = len(p.execs)
	if cfg.Batches != nil {
		execs := p.execs
		cfg.Batches(func(yield func(*testrun.Execution) bool) {
			for i := range execs {
				if !yield(&execs[i]) {
					return
				}
			}
		})
		return rep, nil
	}
	rep.Executions = p.execs
	return rep, nil
}

type parser struct {
	cfg  parseopt.Config
	name string
	br   *bufio.Reader

	read  int64 // bytes read
	line  int   // number of the line being read
	buf   []byte
	cases int64 // executions started or ended

	pkgs map[string]*pkgState // the current scope of each package
	// order lists the package scopes as they were first seen, so that
	// the end of the stream names the first one that did not end.
	order  []*pkgState
	builds map[string]*buildState // by ImportPath
	bOrder []string
	execs  []testrun.Execution
}

type pkgState struct {
	name  string
	scope string
	// instance counts the scopes of the package so far (1 for the first).
	instance int
	ended    bool
	// failedOwn is set once a test of the package failed by its own fail
	// event.
	failedOwn bool
	ran       bool // a test of the package ran (or ended)
	// running holds the tests that started and have not ended, in the
	// order they started.
	running map[string]*testState
	started []*testState
	out     msgBuf // the package's own output (events without Test)
}

type testState struct {
	name  string
	ended bool
	out   msgBuf
}

type buildState struct {
	out    msgBuf
	failed bool
	named  bool // a package's FailedBuild named it
}

func (p *parser) syntax(err error) error {
	return &SyntaxError{File: p.name, Line: p.line, Err: err}
}

func (p *parser) run() error {
	events, last := 0, 0
	for {
		line, complete, err := p.readLine()
		if err != nil {
			return err
		}
		if line == nil {
			break
		}
		if len(bytes.TrimSpace(line)) == 0 {
			if !complete {
				break
			}
			continue
		}
		if bytes.IndexByte(line, 0) >= 0 || !utf8.Valid(line) {
			return p.syntax(xmlsafe.Reason(xmlsafe.ErrBinary, "binary content: a NUL byte or invalid UTF-8, not a go test -json event"))
		}
		var ev event
		if err := ev.decode(line); err != nil {
			if !complete {
				// The last line, with no line ending, that does not
				// decode: the stream was cut in the middle of an event.
				return p.syntax(xmlsafe.Reason(xmlsafe.ErrTruncated, "stream cut short in the middle of an event"))
			}
			return p.syntax(xmlsafe.Reason(ErrMalformed, "not a go test -json event: %v", err))
		}
		events, last = events+1, p.line
		if err := p.event(&ev); err != nil {
			return err
		}
		if !complete {
			break
		}
	}
	if events == 0 {
		return xmlsafe.ErrEmpty
	}
	// What is missing at the end is told at the last event.
	p.line = last
	for _, ps := range p.order {
		if ps.ended {
			continue
		}
		what := "go test -json stream cut short: package " + strconv.Quote(ps.name) + " never ended"
		if len(ps.started) > 0 {
			for _, ts := range ps.started {
				if !ts.ended {
					what += " (test " + strconv.Quote(ts.name) + " was running)"
					break
				}
			}
		}
		return p.syntax(xmlsafe.Reason(xmlsafe.ErrTruncated, "%s", what))
	}
	for _, path := range p.bOrder {
		if b := p.builds[path]; b.failed && !b.named {
			return p.syntax(xmlsafe.Reason(xmlsafe.ErrTruncated,
				"go test -json stream cut short: the build of %q failed and no package reported it", path))
		}
	}
	return nil
}

// readLine returns the next line, without its line ending; complete is
// false for a last line with no line ending, and line is nil at the end
// of the stream. It enforces the stream's byte limit and MaxLineBytes.
func (p *parser) readLine() (line []byte, complete bool, err error) {
	p.line++
	p.buf = p.buf[:0]
	for {
		frag, err := p.br.ReadSlice('\n')
		p.read += int64(len(frag))
		if over := p.cfg.Limits.CheckBytes(p.read); over != nil {
			return nil, false, over
		}
		if len(p.buf)+len(frag) > MaxLineBytes+2 {
			return nil, false, p.syntax(&LimitError{Limit: LimitLineLength, Max: MaxLineBytes})
		}
		switch {
		case err == bufio.ErrBufferFull:
			p.buf = append(p.buf, frag...)
			continue
		case err == io.EOF:
			p.buf = append(p.buf, frag...)
			if len(p.buf) == 0 {
				return nil, false, nil
			}
			return p.trim(p.buf, false)
		case err != nil:
			return nil, false, fmt.Errorf("gotestjson: %w", err)
		}
		if len(p.buf) > 0 {
			frag = append(p.buf, frag...)
			p.buf = frag
		}
		return p.trim(frag, true)
	}
}

// trim returns line without its line ending, refusing one longer than
// MaxLineBytes.
func (p *parser) trim(line []byte, complete bool) ([]byte, bool, error) {
	line = bytes.TrimSuffix(line, []byte{'\n'})
	line = bytes.TrimSuffix(line, []byte{'\r'})
	if len(line) > MaxLineBytes {
		return nil, false, p.syntax(&LimitError{Limit: LimitLineLength, Max: MaxLineBytes})
	}
	return line, complete, nil
}

func (p *parser) count() error {
	p.cases++
	if p.cases > p.cfg.Limits.MaxCases {
		return &LimitError{Limit: xmlsafe.LimitCases, Max: p.cfg.Limits.MaxCases}
	}
	return nil
}

// pkg returns the current scope of the package an event names; an event
// other than output for a package that ended opens a new scope (the
// package tested again in a joined stream).
func (p *parser) pkg(ev *event) *pkgState {
	ps := p.pkgs[ev.Package]
	if ps != nil && (!ps.ended || ev.Action == "output") {
		return ps
	}
	scope, n := p.name+"#"+ev.Package, 1
	if ps != nil {
		n = ps.instance + 1
		scope += "#" + strconv.Itoa(n)
	}
	ps = &pkgState{name: ev.Package, scope: scope, instance: n, running: map[string]*testState{}}
	p.pkgs[ev.Package] = ps
	p.order = append(p.order, ps)
	return ps
}

func (p *parser) build(path string) *buildState {
	b := p.builds[path]
	if b == nil {
		b = &buildState{}
		p.builds[path] = b
		p.bOrder = append(p.bOrder, path)
	}
	return b
}

func (p *parser) event(ev *event) error {
	max := p.cfg.MaxMessage
	switch ev.Action {
	case "build-output":
		p.build(ev.ImportPath).out.write(ev.Output, max, nil)
		return nil
	case "build-fail":
		p.build(ev.ImportPath).failed = true
		return nil
	case "start", "run", "pause", "cont", "output", "pass", "fail", "skip", "bench":
	default:
		// Actions this reader does not know (attr, artifacts, and those
		// later Go versions add) say nothing about outcomes.
		return nil
	}
	ps := p.pkg(ev)
	if ev.Action == "output" && ps.ended {
		return nil
	}
	if ev.Test == "" {
		switch ev.Action {
		case "output":
			ps.out.write(ev.Output, max, isSummary)
		case "pass", "fail", "skip":
			return p.endPackage(ps, ev)
		}
		return nil
	}
	ts := ps.running[ev.Test]
	switch ev.Action {
	case "run":
		ps.ran = true
		if ts != nil {
			return nil
		}
		if err := p.count(); err != nil {
			return err
		}
		ts = &testState{name: ev.Test}
		ps.running[ev.Test] = ts
		ps.started = append(ps.started, ts)
	case "output":
		if ts != nil {
			ts.out.write(ev.Output, max, isFraming)
		}
	case "pass", "fail", "skip", "bench":
		ps.ran = true
		if ts == nil {
			// An end with no run event (a benchmark that logged): it
			// still is an execution.
			if err := p.count(); err != nil {
				return err
			}
			ts = &testState{name: ev.Test}
		}
		delete(ps.running, ev.Test)
		ts.ended = true
		e := testrun.Execution{ID: id(ps.name, ev.Test), Scope: ps.scope}
		switch ev.Action {
		case "fail":
			e.Outcome = testrun.OutcomeFailed
			e.Message = ts.out.text(max, isFraming)
			ps.failedOwn = true
		case "skip":
			e.Outcome = testrun.OutcomeSkipped
		default:
			e.Outcome = testrun.OutcomePassed
		}
		e.Duration, e.Timed = seconds(ev)
		p.execs = append(p.execs, e)
		ts.out = msgBuf{}
	}
	return nil
}

// endPackage ends a package: its tests still running failed (the test
// binary died under them), and a package that failed for no failing test
// of its own is one error.
func (p *parser) endPackage(ps *pkgState, ev *event) error {
	max := p.cfg.MaxMessage
	ps.ended = true
	var running []string
	for _, ts := range ps.started {
		if ts.ended {
			continue
		}
		ts.ended = true
		running = append(running, ts.name)
		msg := clip(stillRunning, max)
		if !ts.out.empty() && max > len(stillRunning)+1 {
			msg = ts.out.text(max-len(stillRunning)-1, isFraming) + "\n" + stillRunning
		}
		p.execs = append(p.execs, testrun.Execution{ID: id(ps.name, ts.name), Scope: ps.scope,
			Outcome: testrun.OutcomeFailed, Message: msg})
	}
	ps.started, ps.running = nil, map[string]*testState{}
	if ev.Action != "fail" {
		return nil
	}
	name, msg := "", ""
	switch {
	case ev.FailedBuild != "":
		b := p.build(ev.FailedBuild)
		b.named = true
		name, msg = BuildFailedName, b.out.text(max, nil)
		if msg == "" {
			msg = ps.out.text(max, isSummary)
		}
	case ps.failedOwn:
		return nil
	case !ps.ran && strings.Contains(ps.out.frame, "[build failed]"):
		// Go before 1.24 writes the build's output on standard error,
		// and only this line in the stream.
		name, msg = BuildFailedName, ps.out.text(max, isSummary)
	case ps.out.empty() && len(running) > 0:
		// The binary died under running tests (a -timeout panic, whose
		// trace test2json gives the last test that ran): say which.
		name, msg = PackageFailedName, clip("the test binary ended while these tests ran: "+strings.Join(running, ", "), max)
	default:
		name, msg = PackageFailedName, ps.out.text(max, isSummary)
	}
	if err := p.count(); err != nil {
		return err
	}
	p.execs = append(p.execs, testrun.Execution{ID: id(ps.name, name), Scope: ps.scope,
		Outcome: testrun.OutcomeError, Message: msg})
	return nil
}

func id(pkg, test string) string {
	if pkg == "" {
		return test
	}
	return pkg + "::" + test
}

// seconds reads an end event's Elapsed: a time when it is a number of
// seconds between 0 and testrun.MaxCaseDuration.
func seconds(ev *event) (time.Duration, bool) {
	if !ev.hasElapsed {
		return 0, false
	}
	s := ev.Elapsed
	if math.IsNaN(s) || s < 0 || s > testrun.MaxCaseDuration.Seconds() {
		return 0, false
	}
	return time.Duration(math.Round(s * float64(time.Second))), true
}

// isFraming tells the lines go test writes around a test's own output
// (=== RUN, --- FAIL: and their kind), which say nothing the outcome does
// not.
func isFraming(line string) bool {
	t := strings.TrimLeft(line, " \t")
	if rest, ok := strings.CutPrefix(t, "=== "); ok {
		for _, w := range []string{"RUN ", "PAUSE ", "CONT ", "NAME ", "ATTR ", "ARTIFACTS "} {
			if strings.HasPrefix(rest, w) {
				return true
			}
		}
		return false
	}
	if rest, ok := strings.CutPrefix(t, "--- "); ok {
		for _, w := range []string{"PASS: ", "FAIL: ", "SKIP: ", "BENCH: "} {
			if strings.HasPrefix(rest, w) {
				return true
			}
		}
	}
	return false
}

// isSummary tells go test's own lines in a package's output: PASS, FAIL,
// "ok  \tpkg\t0.01s", "FAIL\tpkg [build failed]", "?   \tpkg\t[no test
// files]".
func isSummary(line string) bool {
	t := strings.TrimRight(line, " \t\r\n")
	switch {
	case t == "PASS" || t == "FAIL":
		return true
	case strings.HasPrefix(t, "ok  \t"), strings.HasPrefix(t, "FAIL\t"), strings.HasPrefix(t, "?   \t"):
		return true
	}
	return false
}

// msgBuf gathers an output, line by line: lines that drop says are
// framing are left out (the last one is kept apart, to stand for an
// output that holds nothing else), and what is kept stops at the message
// limit. A line longer than the limit is kept in part.
type msgBuf struct {
	kept    []byte
	partial []byte // the start of a line whose end is still to come
	frame   string // the last line dropped
}

func (m *msgBuf) write(s string, max int, drop func(string) bool) {
	for len(s) > 0 {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			m.partial = append(m.partial, prefix(s, max+64-len(m.partial))...)
			return
		}
		line := s[:i+1]
		s = s[i+1:]
		if len(m.partial) > 0 {
			m.partial = append(m.partial, prefix(line, max+64-len(m.partial))...)
			m.line(string(m.partial), max, drop)
			m.partial = m.partial[:0]
			continue
		}
		m.line(line, max, drop)
	}
}

func (m *msgBuf) line(line string, max int, drop func(string) bool) {
	if drop != nil && drop(line) {
		m.frame = strings.TrimSpace(prefix(line, max))
		return
	}
	m.kept = append(m.kept, prefix(line, max-len(m.kept))...)
}

// empty reports whether nothing but framing lines was written.
func (m *msgBuf) empty() bool {
	return len(bytes.TrimSpace(m.kept)) == 0 && len(bytes.TrimSpace(m.partial)) == 0
}

// text returns what was kept, at most max bytes cut on a rune boundary,
// trimmed of surrounding white space; the last framing line when nothing
// else was written.
func (m *msgBuf) text(max int, drop func(string) bool) string {
	if len(m.partial) > 0 {
		p := string(m.partial)
		m.partial = nil
		m.line(p, max, drop)
	}
	b := bytes.TrimSpace(m.kept)
	if len(b) == 0 {
		b = []byte(m.frame)
	}
	return clip(string(b), max)
}

// prefix is s cut to at most n bytes, on a rune boundary ("" for n <= 0).
func prefix(s string, n int) string { return clip(s, n) }

// clip cuts s to at most max bytes, on a rune boundary.
func clip(s string, max int) string {
	if max < 0 {
		max = 0
	}
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
