package junit

import (
	"bytes"
	"fmt"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// SuiteErrorName is the name of the test case that stands for a <failure> or
// <error> written directly under a <testsuite>, with no <testcase> (Ant
// writes one when a test class cannot even be loaded). Its id is
// "<suite name>::<suite-level error>", or the name alone when the suite has
// no name.
const SuiteErrorName = "<suite-level error>"

// Report is what one JUnit file holds.
type Report struct {
	// Dialect names the runner that wrote the file, as far as it can be
	// told (see Detect); "junit" when it cannot.
	Dialect string
	// Executions are the test cases in document order, one per <testcase>
	// element (plus one per suite-level failure or error). Executions in the
	// same <testsuite> share a Scope ("name#N", N the suite's position in
	// the document, 0 for cases outside any suite); a case repeated within
	// one scope is a retry.
	Executions []testrun.Execution

	n     int        // executions read; 0 when refused
	execs *execStore // the executions as read; nil when refused or handed over in batches
}

// Len returns how many executions the report holds.
func (r *Report) Len() int { return r.n }

// All yields the report's executions in document order: the same as
// Executions, without a slice of them. The Execution it yields is reused
// for the next one.
func (r *Report) All() iter.Seq[*testrun.Execution] {
	return func(yield func(*testrun.Execution) bool) {
		if r.execs != nil {
			r.execs.each(yield)
		}
	}
}

// result kinds of the children of a <testcase>, in message priority order.
const (
	rFailure = iota
	rError
	rRerunFailure
	rRerunError
	rFlakyFailure
	rFlakyError
	rSkipped
	nResults
)

func resultKind(local string) int {
	switch local {
	case "failure":
		return rFailure
	case "error":
		return rError
	case "skipped":
		return rSkipped
	case "rerunFailure":
		return rRerunFailure
	case "rerunError":
		return rRerunError
	case "flakyFailure":
		return rFlakyFailure
	case "flakyError":
		return rFlakyError
	}
	return -1
}

type suite struct {
	depth int
	scope int32 // index in execs.scopes
	name  string
	cases int // test cases seen directly in this suite
	// stated is the sum of what the suite's failures= and errors=
	// attributes say (-1: neither says a count); shows is whether a test
	// case in it, nested suites included, shows a failing result.
	stated int
	shows  bool
}

type testCase struct {
	depth    int
	id       idRef
	scope    int32 // index in execs.scopes
	seen     [nResults]bool
	msg      [nResults]string
	statusAs testrun.Outcome // failure or error a status/result attribute states, "" when none
	// notRun is set when an attribute says the case did not run (a
	// status or result of disabled, notrun, skipped...; Eclipse's
	// ignored="true" or incomplete="true"): it is skipped, as if it carried
	// <skipped>, whatever else it carries.
	notRun bool
	dur    time.Duration // the time attribute, when timed
	timed  bool
	// file and line are where the file and line attributes say the case
	// is written: file an index in execs.files + 1, line from 1; 0 when
	// unknown.
	file int32
	line int32
}

type parser struct {
	cfg  config
	rd   *xmlsafe.Reader
	name string
	rep  *Report
	det  detector

	execs   execStore
	suites  []suite
	nsuites int
	noSuite int32 // scope of the cases outside any suite, -1 until one is seen
	cur     *testCase
	caseBuf testCase
	cases   int64
	// the current case stands for a failure or error written directly in
	// a suite
	suiteLevel bool

	// the result child being read, -1 when none
	result      int
	resultDepth int
	collect     bool // gathering the body text of the result
	textDepth   int  // depth whose text is gathered
	body        []byte
	idBuf       []byte
}

// Parse reads one JUnit report from r. name identifies the report (its path)
// in errors and in the Scope of its executions. On error the returned Report
// (never nil) holds the dialect detected but no execution: a report is read
// whole or not at all.
func Parse(r io.Reader, name string, opts ...Option) (*Report, error) {
	cfg := newConfig(opts)
	p := &parser{
		cfg:     cfg,
		rd:      xmlsafe.NewReader(r, name, cfg.Limits),
		name:    name,
		rep:     &Report{},
		result:  -1,
		noSuite: -1,
	}
	if cfg.Precheck != nil {
		p.rd.SetPrecheck(cfg.Precheck)
	}
	p.execs.batches = cfg.Batches
	err := p.run()
	p.rep.Dialect = p.det.dialect()
	if err != nil {
		// A report is read whole or not at all: a refused one holds no
		// test case.
		return p.rep, err
	}
	p.rep.n = p.execs.n
	if cfg.Batches != nil {
		// The records were handed over, not kept.
		p.execs.flush()
		return p.rep, nil
	}
	p.rep.execs = &p.execs
	p.rep.Executions = p.execs.all()
	return p.rep, nil
}

// colons joins a case's class and name in its id.
var colons = []byte("::")

func localName(b []byte) []byte {
	// Element names are short: a loop over their bytes costs less than
	// the call of an assembly search.
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == ':' {
			return b[i+1:]
		}
	}
	return b
}

func (p *parser) run() error {
	for {
		// Text is only read while a result's message or a Bazel log is
		// gathered.
		p.rd.SkipSpace(!p.collect && !p.det.wantText)
		tok, err := p.rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch tok.Kind {
		case xmlsafe.StartElement:
			if err := p.start(tok); err != nil {
				return err
			}
		case xmlsafe.EndElement:
			if err := p.end(); err != nil {
				return err
			}
		case xmlsafe.Text:
			if p.collect && p.rd.Depth() == p.textDepth && len(p.body) < p.cfg.MaxMessage {
				p.body = p.rd.AppendText(p.body, tok, p.cfg.MaxMessage)
			} else if p.det.wantText && p.rd.Depth() == p.det.textDepth {
				p.det.text(p.rd, tok)
			}
		}
	}
}

func (p *parser) start(tok *xmlsafe.Token) error {
	depth := p.rd.Depth()
	local := localName(tok.Name)
	if depth == 1 {
		if !IsRoot(string(local)) {
			return fmt.Errorf("%w: root element <%s>", ErrNotJUnit, xmlsafe.QuoteName(tok.Name))
		}
		p.det.root(p.rd, tok, string(local))
	}
	if p.cur != nil {
		return p.inCase(tok, local, depth)
	}
	switch string(local) {
	case "testsuite":
		p.nsuites++
		s := suite{depth: depth, scope: p.execs.scope(p.name + "#" + strconv.Itoa(p.nsuites)), stated: -1}
		if a, ok := tok.Attr("name"); ok {
			s.name = p.rd.String(a)
		}
		for _, attr := range [2]string{"failures", "errors"} {
			if a, ok := tok.Attr(attr); ok {
				if n := statedCount(p.rd.Value(a)); n >= 0 {
					s.stated = max(s.stated, 0) + n
				}
			}
		}
		p.suites = append(p.suites, s)
		p.det.suite(p.rd, tok, p.nsuites)
	case "testcase":
		return p.startCase(tok, depth)
	case "property":
		p.det.property(p.rd, tok)
	case "system-out":
		if p.det.bazelCandidate() {
			p.det.wantText, p.det.textDepth = true, depth
		}
	default:
		// A failure or error written directly in a suite, with no
		// testcase: the suite itself failed.
		// So did a root <testsuites> that holds one.
		k := resultKind(string(local))
		if k != rFailure && k != rError {
			return nil
		}
		var scope int32
		id := SuiteErrorName
		switch {
		case len(p.suites) > 0 && p.suites[len(p.suites)-1].depth == depth-1:
			s := p.suites[len(p.suites)-1]
			scope, id = s.scope, suiteErrorID(s.name)
		case len(p.suites) == 0 && depth == 2:
			scope = p.rootScope()
		default:
			return nil
		}
		if err := p.countCase(); err != nil {
			return err
		}
		p.caseBuf = testCase{depth: depth - 1, id: p.execs.ids.add([]byte(id)), scope: scope}
		p.cur = &p.caseBuf
		p.suiteLevel = true
		return p.inCase(tok, local, depth)
	}
	return nil
}

// suiteErrorID is the id of the case that stands for a failure of the
// suite named name itself.
func suiteErrorID(name string) string {
	if name == "" {
		return SuiteErrorName
	}
	return name + "::" + SuiteErrorName
}

// rootScope is the scope of what lies outside any <testsuite>.
func (p *parser) rootScope() int32 {
	if p.noSuite < 0 {
		p.noSuite = p.execs.scope(p.name + "#0")
	}
	return p.noSuite
}

// statedCount reads a suite's failures= or errors= attribute: a count of
// digits, or -1 when it is anything else.
func statedCount(v []byte) int {
	if len(v) == 0 || len(v) > 9 {
		return -1
	}
	n := 0
	for _, c := range v {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// unshown adds, when the suite that ends states failures or errors and
// none of its test cases shows one (karma writes an error in afterAll, or
// a browser that went away, as errors="1" with no test case), one error
// case for the suite, as a failure written in the suite is one. Only a
// suite that shows none is taken so: runners count their attributes each
// their own way (mocha's xunit reporter counts failures as errors,
// surefire each rerun, some versions more), so a suite that shows fewer
// failing results than it states has already failed by what it shows.
// The counts are never taken from the attributes: they only tell that
// something failed that no test case shows.
func (p *parser) unshown() error {
	s := &p.suites[len(p.suites)-1]
	if s.stated <= 0 || s.shows {
		return nil
	}
	if err := p.countCase(); err != nil {
		return err
	}
	msg := fmt.Sprintf("the suite's failures and errors attributes count %d; none of its test cases shows one", s.stated)
	p.caseBuf = testCase{depth: s.depth, id: p.execs.ids.add([]byte(suiteErrorID(s.name))), scope: s.scope}
	p.caseBuf.seen[rError] = true
	p.caseBuf.msg[rError] = msg
	p.cur = &p.caseBuf
	p.finishCase()
	return nil
}

func (p *parser) countCase() error {
	p.cases++
	if p.cases > p.cfg.Limits.MaxCases {
		return &xmlsafe.LimitError{Limit: xmlsafe.LimitCases, Max: p.cfg.Limits.MaxCases}
	}
	return nil
}

func (p *parser) startCase(tok *xmlsafe.Token, depth int) error {
	if err := p.countCase(); err != nil {
		return err
	}
	var classname, name, class *xmlsafe.Attr
	tc := &p.caseBuf
	*tc = testCase{depth: depth}
	for i := range tok.Attrs {
		a := &tok.Attrs[i]
		switch string(tok.AttrName(a)) {
		case "classname":
			classname = a
		case "name":
			name = a
		case "class":
			class = a
		case "status", "result":
			switch o := statusOutcome(p.rd.Value(a)); {
			case o == testrun.OutcomeSkipped:
				tc.notRun = true
			case o.Severity() > tc.statusAs.Severity():
				// The worst statement wins (testrun's order; an unset
				// outcome is below all).
				tc.statusAs = o
			}
		case "ignored", "incomplete":
			// Eclipse's export: an @Ignore'd or @Disabled test, or one the
			// run had not finished when it was exported.
			if bytes.EqualFold(p.rd.Value(a), []byte("true")) {
				tc.notRun = true
			}
		case "time":
			tc.dur, tc.timed = parseSeconds(p.rd.Value(a))
		case "file":
			if v := p.rd.Value(a); len(v) <= testrun.MaxFileBytes {
				tc.file = p.execs.file(v)
			}
		case "line":
			tc.line = parseLine(p.rd.Value(a), p.det.zeroBasedLines())
		}
	}
	p.det.testcase(tok)
	if classname == nil {
		classname = class
	}
	// The id, classname::name, is written into the slab as it is
	// decoded, within the room the two values may take.
	ids := &p.execs.ids
	room := 2
	if classname != nil {
		room += p.rd.MaxValueLen(classname)
	}
	if name != nil {
		room += p.rd.MaxValueLen(name)
	}
	ids.begin(room)
	if classname != nil {
		ids.write(p.rd.Value(classname))
	}
	if ids.written() > 0 {
		ids.write(colons)
	}
	if name != nil {
		ids.write(p.rd.Value(name))
	}
	position := 0
	if len(p.suites) > 0 {
		s := &p.suites[len(p.suites)-1]
		s.cases++
		position = s.cases
		tc.scope = s.scope
	} else {
		tc.scope = p.rootScope()
	}
	// A test case with neither a class nor a name (a test titled "")
	// still ran: it is told apart by its position in its suite,
	// "<suite name>::#N", rather than lost or merged with another.
	if ids.written() == 0 {
		id := p.idBuf[:0]
		if n := len(p.suites); n > 0 && p.suites[n-1].name != "" {
			id = append(id, p.suites[n-1].name...)
		}
		id = append(id, "::#"...)
		id = strconv.AppendInt(id, int64(position), 10)
		p.idBuf = id
		tc.id = ids.add(id)
	} else {
		tc.id = ids.end()
	}
	p.cur = tc
	return nil
}

// IsRoot reports whether local, the local name of a document's root
// element, is one a JUnit report has: <testsuites>, a bare <testsuite>, or
// the <testrun> of Eclipse's JUnit export (read like <testsuites>).
func IsRoot(local string) bool {
	switch local {
	case "testsuites", "testsuite", "testrun":
		return true
	}
	return false
}

// statusOutcome reads a testcase's status= or result= attribute (CTest,
// Google Test, Bazel, TST and other C++ runners), in any case: a test that
// says it did not run is skipped, one that says it failed is failed. Values
// that say nothing (run, completed, passed) are "".
func statusOutcome(v []byte) testrun.Outcome {
	switch strings.ToLower(string(v)) {
	case "disabled", "notrun", "not_run", "not run", "skip", "skipped", "suppressed", "ignored", "pending":
		return testrun.OutcomeSkipped
	case "fail", "failed", "failure", "failing":
		return testrun.OutcomeFailed
	case "error", "errored", "broken", "crash", "crashed", "aborted", "interrupted",
		"timeout", "timedout", "timed_out", "timed out":
		return testrun.OutcomeError
	}
	return ""
}

// inCase handles an element inside the current test case.
func (p *parser) inCase(tok *xmlsafe.Token, local []byte, depth int) error {
	switch string(local) {
	case "testcase", "testsuite":
		return &xmlsafe.SyntaxError{File: p.name, Line: p.rd.Line(),
			Err: fmt.Errorf("%w: <%s> inside <testcase>", ErrStructure, xmlsafe.QuoteName(tok.Name))}
	}
	if depth == p.cur.depth+1 {
		k := resultKind(string(local))
		if k < 0 {
			return nil
		}
		p.det.resultElement(k)
		p.cur.seen[k] = true
		p.result, p.resultDepth = k, depth
		if p.cur.msg[k] != "" {
			return nil
		}
		// The message attribute comes first; the element's text (the
		// output or stack trace) is added after it, since many runners
		// put only a word in the attribute (gotestsum and
		// go-junit-report write "Failed") and the evidence in the text.
		if a, ok := tok.Attr("message"); ok {
			p.body = p.rd.AppendValue(p.body[:0], a, p.cfg.MaxMessage)
			p.cur.msg[k] = strings.TrimSpace(string(p.body))
		}
		p.collect, p.textDepth = true, depth
		p.body = p.body[:0]
		return nil
	}
	// Surefire and nextest put the stack trace of a rerun or flaky
	// attempt in a <stackTrace> child.
	if p.result >= 0 && depth == p.resultDepth+1 && string(local) == "stackTrace" && p.collect && len(bytes.TrimSpace(p.body)) == 0 {
		p.textDepth = depth
	}
	return nil
}

func (p *parser) end() error {
	depth := p.rd.Depth() + 1 // depth of the element that ended
	if p.det.wantText && depth == p.det.textDepth {
		p.det.wantText = false
	}
	if p.cur == nil {
		if n := len(p.suites); n > 0 && p.suites[n-1].depth == depth {
			if err := p.unshown(); err != nil {
				return err
			}
			p.suites = p.suites[:n-1]
		}
		return nil
	}
	if p.result >= 0 {
		if depth == p.textDepth && depth != p.resultDepth {
			p.textDepth = p.resultDepth // back from <stackTrace>
			if text := bytes.TrimSpace(p.body); len(text) > 0 {
				p.collect = false
				p.cur.msg[p.result] = joinMessage(p.cur.msg[p.result], text, p.cfg.MaxMessage)
			}
		}
		if depth == p.resultDepth {
			if p.collect {
				p.collect = false
				if text := bytes.TrimSpace(p.body); len(text) > 0 {
					p.cur.msg[p.result] = joinMessage(p.cur.msg[p.result], text, p.cfg.MaxMessage)
				}
			}
			p.result = -1
			if p.suiteLevel {
				p.finishCase()
			}
		}
		return nil
	}
	if depth == p.cur.depth {
		p.finishCase()
	}
	return nil
}

// joinMessage puts a result's message attribute and its text together: the
// attribute first, then the text unless one already holds the other; the
// whole stays within max bytes, cut on a rune boundary. text is copied,
// once.
func joinMessage(attr string, text []byte, max int) string {
	switch {
	case len(text) == 0 || len(text) <= len(attr) && strings.Contains(attr, string(text)):
		return attr
	case len(attr) <= len(text) && string(text[:len(attr)]) == attr:
		return string(text)
	}
	n := len(attr) + 1 + len(text)
	if n > max {
		n = max
		m := func(i int) byte {
			switch {
			case i < len(attr):
				return attr[i]
			case i == len(attr):
				return '\n'
			}
			return text[i-len(attr)-1]
		}
		for n > 0 && !utf8.RuneStart(m(n)) {
			n--
		}
	}
	var b strings.Builder
	b.Grow(n)
	if n <= len(attr) {
		b.WriteString(attr[:n])
		return b.String()
	}
	b.WriteString(attr)
	b.WriteByte('\n')
	b.Write(text[:n-len(attr)-1])
	return b.String()
}

// finishCase decides the current case's outcome: skipped when it carries
// <skipped> or an attribute says it did not run (status="disabled", ...),
// else the worst of what its children and status say (error > failed >
// passed); a retry that
// failed and then passed (flakyFailure, flakyError) is passed and flaky,
// and stays failed when a failure is also written (nextest configured to
// fail flaky tests); rerunFailure and rerunError (failed on every retry)
// are failures.
func (p *parser) finishCase() {
	tc := p.cur
	p.cur = nil
	p.suiteLevel = false
	out := oPassed
	if tc.statusAs.Failing() || tc.seen[rFailure] || tc.seen[rError] || tc.seen[rRerunFailure] ||
		tc.seen[rRerunError] || tc.seen[rFlakyFailure] || tc.seen[rFlakyError] {
		for i := range p.suites {
			p.suites[i].shows = true
		}
	}
	switch {
	case tc.notRun || tc.seen[rSkipped] && !tc.seen[rError]:
		// A case that carries <skipped> is skipped whatever failure it
		// carries: node:test writes a failing todo test as <skipped> plus
		// <failure>, an expected failure. An <error> beside <skipped>
		// is not expected (pytest writes a teardown that failed after the
		// test skipped so): it is an error. A case whose status says it
		// did not run is skipped even with a <failure> or <error> (a
		// failing disabled test, written status="disabled" with one).
		out = oSkipped
	case tc.seen[rError] || tc.seen[rRerunError] || tc.statusAs == testrun.OutcomeError:
		out = oError
	case tc.seen[rFailure] || tc.seen[rRerunFailure] || tc.statusAs == testrun.OutcomeFailed:
		out = oFailed
	case tc.seen[rFlakyFailure] || tc.seen[rFlakyError]:
		out = oPassed
	}
	var order []int
	switch out {
	case oError:
		order = []int{rError, rRerunError, rFailure, rRerunFailure}
	case oFailed:
		order = []int{rFailure, rRerunFailure, rFlakyFailure, rFlakyError}
	case oPassed:
		order = []int{rFlakyFailure, rFlakyError}
	case oSkipped:
		order = []int{rSkipped}
	}
	msg := ""
	for _, k := range order {
		if tc.msg[k] != "" {
			msg = tc.msg[k]
			break
		}
	}
	p.execs.add(tc.id, tc.scope, out, msg, tc.seen[rFlakyFailure] || tc.seen[rFlakyError], tc.dur, tc.timed, tc.file, tc.line)
}

// parseLine reads a line attribute: digits only, a line from 1 (from 0
// when zeroBased, as pytest writes them), at most 1<<31-1. Anything else
// (a sign, a space, 0, a number too large) is unknown, 0.
func parseLine(v []byte, zeroBased bool) int32 {
	if len(v) == 0 {
		return 0
	}
	var n int64
	for _, c := range v {
		if c < '0' || c > '9' {
			return 0
		}
		n = n*10 + int64(c-'0')
		if n > math.MaxInt32 {
			return 0
		}
	}
	if zeroBased {
		n++
	}
	if n < 1 || n > math.MaxInt32 {
		return 0
	}
	return int32(n)
}
