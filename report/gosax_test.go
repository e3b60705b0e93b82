package report

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/orisano/gosax"

	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// The guarded-gosax model is the benchmarks' second baseline: a JUnit
// reader a careful author would write on a fast third-party SAX tokenizer
// (github.com/orisano/gosax), with the guards this package's reader has —
// the report's size, the element count, nesting depth, attribute count
// and repeats, matching end tags, no DOCTYPE (so no entity can be
// declared), only the predefined and valid character references, the
// byte checks (NUL, invalid UTF-8, characters XML forbids), the case
// count and the bounded message — producing the same case records as
// Parse. It runs on one goroutine and neither hashes nor builds a run:
// it is the tokenizer's share of the work, guarded, which ReadRun is
// compared with (x-gosax metrics in BenchmarkVsUnmarshal).

// errGosaxGuard is what the model refuses a document for.
var errGosaxGuard = errors.New("gosax model: refused")

func gosaxRefuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errGosaxGuard, fmt.Sprintf(format, args...))
}

// gosaxModel reads the JUnit report data into executions as Parse gives
// them (ID, Scope, Outcome, Message, Duration, Timed).
type gosaxModel struct {
	lim     xmlsafe.Limits
	maxMsg  int
	name    string
	execs   []testrun.Execution
	names   []byte // open element names, concatenated
	ends    []int
	suites  []gosaxSuite
	nsuites int
	elems   int64

	inCase    bool
	caseDepth int
	cur       testrun.Execution
	seen      [3]bool // failure, error, skipped
	msg       [3]string
	result    int // the result child being read, -1 when none
	resDepth  int
	body      []byte
	idBuf     []byte
	attrNames [][]byte
}

type gosaxSuite struct {
	depth int
	scope string
}

func gosaxRead(data []byte, name string) ([]testrun.Execution, error) {
	m := &gosaxModel{lim: xmlsafe.Limits{}.WithDefaults(), maxMsg: xmlsafe.DefaultMaxMessageBytes, name: name, result: -1}
	return m.read(data)
}

func (m *gosaxModel) read(data []byte) ([]testrun.Execution, error) {
	if err := m.lim.CheckBytes(int64(len(data))); err != nil {
		return nil, err
	}
	// The byte checks this package's reader makes, in one pass.
	var pre xmlsafe.Precheck
	pre.Write(data)
	if pre.Clean() != int64(len(data)) {
		return nil, gosaxRefuse("a NUL, invalid UTF-8 or a character XML forbids")
	}
	r := gosax.NewReaderBuf(bytes.NewReader(data), make([]byte, 0, 64<<10))
	// A self-closing element's end comes as an EventEnd of its own.
	r.EmitSelfClosingTag = true
	for {
		ev, err := r.Event()
		if err != nil {
			return nil, err
		}
		switch ev.Type() {
		case gosax.EventEOF:
			if len(m.ends) > 0 || m.elems == 0 {
				return nil, gosaxRefuse("truncated")
			}
			return m.execs, nil
		case gosax.EventStart:
			if err := m.start(ev.Bytes); err != nil {
				return nil, err
			}
		case gosax.EventEnd:
			if err := m.end(ev.Bytes); err != nil {
				return nil, err
			}
		case gosax.EventText:
			if m.result >= 0 && len(m.ends) == m.resDepth && len(m.body) < m.maxMsg {
				if bytes.IndexByte(ev.Bytes, '>') >= 0 && bytes.Contains(ev.Bytes, []byte("]]>")) {
					return nil, gosaxRefuse("]]> in text")
				}
				t, err := m.unescape(ev.Bytes)
				if err != nil {
					return nil, err
				}
				m.appendBody(t)
			} else if err := m.checkRefs(ev.Bytes); err != nil {
				return nil, err
			}
		case gosax.EventCData:
			if m.result >= 0 && len(m.ends) == m.resDepth && len(m.body) < m.maxMsg {
				m.appendBody(ev.Bytes[len("<![CDATA[") : len(ev.Bytes)-len("]]>")])
			}
		case gosax.EventDocType:
			return nil, gosaxRefuse("a DOCTYPE (entities are refused)")
		}
	}
}

// appendBody appends t to the body gathered, within maxMsg bytes, never
// cutting a rune.
func (m *gosaxModel) appendBody(t []byte) {
	if room := m.maxMsg - len(m.body); len(t) > room {
		for room > 0 && !utf8.RuneStart(t[room]) {
			room--
		}
		t = t[:room]
	}
	m.body = append(m.body, t...)
}

// checkRefs refuses a reference in text that is not predefined or a valid
// character reference, without decoding it.
func (m *gosaxModel) checkRefs(b []byte) error {
	if bytes.IndexByte(b, '&') < 0 {
		return nil
	}
	_, err := m.unescape(append([]byte(nil), b...))
	return err
}

// unescape decodes b in place (gosax.Unescape refuses all but the
// predefined references and numeric ones) and refuses a character
// reference to a character XML forbids.
func (m *gosaxModel) unescape(b []byte) ([]byte, error) {
	if i := bytes.Index(b, []byte("&#")); i >= 0 {
		for s := b[i:]; ; {
			j := bytes.IndexByte(s, ';')
			if j < 0 {
				return nil, gosaxRefuse("bad reference")
			}
			ref := s[2:j]
			var c uint64
			var err error
			if len(ref) > 0 && ref[0] == 'x' {
				c, err = strconv.ParseUint(string(ref[1:]), 16, 32)
			} else {
				c, err = strconv.ParseUint(string(ref), 10, 32)
			}
			if err != nil || !xmlsafe.IsChar(rune(c)) {
				return nil, gosaxRefuse("bad character reference")
			}
			k := bytes.Index(s[j:], []byte("&#"))
			if k < 0 {
				break
			}
			s = s[j+k:]
		}
	}
	t, err := gosax.Unescape(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errGosaxGuard, err)
	}
	return t, nil
}

func (m *gosaxModel) start(tag []byte) error {
	m.elems++
	if m.elems > m.lim.MaxElements {
		return &xmlsafe.LimitError{Limit: xmlsafe.LimitElements, Max: m.lim.MaxElements}
	}
	if int64(len(m.ends)) >= m.lim.MaxDepth {
		return &xmlsafe.LimitError{Limit: xmlsafe.LimitDepth, Max: m.lim.MaxDepth}
	}
	if len(m.ends) == 0 && m.elems > 1 {
		return gosaxRefuse("a second root element")
	}
	name, rest := gosax.Name(tag)
	if len(name) == 0 || !isNameStartASCII(name[0]) && name[0] < utf8.RuneSelf {
		return gosaxRefuse("malformed start tag")
	}
	m.names = append(m.names, name...)
	m.ends = append(m.ends, len(m.names))
	depth := len(m.ends)
	// The attributes, checked whatever the element: a count, no repeat,
	// no '<' in a value, references valid.
	m.attrNames = m.attrNames[:0]
	var classname, caseName, timeAttr, message []byte
	for len(rest) > 0 {
		a, next, err := gosax.NextAttribute(rest)
		if err != nil {
			return fmt.Errorf("%w: %v", errGosaxGuard, err)
		}
		rest = next
		if len(a.Key) == 0 || len(a.Key) == 1 && a.Key[0] == '/' {
			continue
		}
		if len(a.Value) < 2 {
			return gosaxRefuse("attribute without a value")
		}
		if len(m.attrNames) >= xmlsafe.MaxAttributes {
			return &xmlsafe.LimitError{Limit: xmlsafe.LimitAttributes, Max: xmlsafe.MaxAttributes}
		}
		for _, k := range m.attrNames {
			if bytes.Equal(k, a.Key) {
				return gosaxRefuse("attribute repeated")
			}
		}
		m.attrNames = append(m.attrNames, a.Key)
		v := a.Value[1 : len(a.Value)-1]
		if bytes.IndexByte(v, '<') >= 0 {
			return gosaxRefuse("'<' in an attribute value")
		}
		if bytes.IndexByte(v, '&') >= 0 || bytes.IndexByte(v, '\r') >= 0 {
			d, err := m.unescape(append([]byte(nil), v...))
			if err != nil {
				return err
			}
			v = d
		}
		switch string(a.Key) {
		case "classname":
			classname = v
		case "name":
			caseName = v
		case "time":
			timeAttr = v
		case "message":
			message = v
		}
	}
	local := name[bytes.LastIndexByte(name, ':')+1:]
	switch {
	case m.inCase:
		if depth != m.caseDepth+1 {
			return nil
		}
		k := -1
		switch string(local) {
		case "failure":
			k = 0
		case "error":
			k = 1
		case "skipped":
			k = 2
		case "testcase", "testsuite":
			return gosaxRefuse("<%s> inside <testcase>", local)
		}
		if k < 0 {
			return nil
		}
		m.seen[k] = true
		m.result, m.resDepth = k, depth
		if m.msg[k] == "" && message != nil {
			m.body = m.body[:0]
			m.appendBody(message)
			m.msg[k] = strings.TrimSpace(string(m.body))
		}
		m.body = m.body[:0]
	case string(local) == "testsuite":
		m.nsuites++
		m.suites = append(m.suites, gosaxSuite{depth: depth, scope: m.name + "#" + strconv.Itoa(m.nsuites)})
	case string(local) == "testcase":
		if int64(len(m.execs)) >= m.lim.MaxCases {
			return &xmlsafe.LimitError{Limit: xmlsafe.LimitCases, Max: m.lim.MaxCases}
		}
		m.idBuf = append(m.idBuf[:0], classname...)
		if len(m.idBuf) > 0 {
			m.idBuf = append(m.idBuf, "::"...)
		}
		m.idBuf = append(m.idBuf, caseName...)
		id := m.idBuf
		m.inCase, m.caseDepth = true, depth
		m.cur = testrun.Execution{ID: string(id)}
		if n := len(m.suites); n > 0 {
			m.cur.Scope = m.suites[n-1].scope
		}
		if timeAttr != nil {
			if f, err := strconv.ParseFloat(string(timeAttr), 64); err == nil && f >= 0 {
				m.cur.Duration, m.cur.Timed = time.Duration(f*float64(time.Second)), true
			}
		}
		m.seen, m.msg = [3]bool{}, [3]string{}
	}
	return nil
}

func isNameStartASCII(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':'
}

func (m *gosaxModel) end(tag []byte) error {
	n := len(m.ends)
	if n == 0 {
		return gosaxRefuse("end tag outside the root element")
	}
	start := 0
	if n > 1 {
		start = m.ends[n-2]
	}
	top := m.names[start:m.ends[n-1]]
	if tag[1] == '/' {
		// gosax does not match end tags with start tags: the model does.
		if name, _ := gosax.Name(tag); !bytes.Equal(name, top) {
			return gosaxRefuse("end tag does not match")
		}
	}
	depth := n
	m.ends, m.names = m.ends[:n-1], m.names[:start]
	switch {
	case m.inCase && m.result >= 0 && depth == m.resDepth:
		if text := bytes.TrimSpace(m.body); len(text) > 0 {
			m.msg[m.result] = joinGosax(m.msg[m.result], text, m.maxMsg)
		}
		m.result = -1
	case m.inCase && depth == m.caseDepth:
		m.inCase = false
		c := &m.cur
		switch {
		case m.seen[2]:
			c.Outcome, c.Message = testrun.OutcomeSkipped, m.msg[2]
		case m.seen[1]:
			c.Outcome, c.Message = testrun.OutcomeError, m.msg[1]
			if c.Message == "" {
				c.Message = m.msg[0]
			}
		case m.seen[0]:
			c.Outcome, c.Message = testrun.OutcomeFailed, m.msg[0]
		default:
			c.Outcome = testrun.OutcomePassed
		}
		m.execs = append(m.execs, *c)
	case !m.inCase:
		if k := len(m.suites); k > 0 && m.suites[k-1].depth == depth {
			m.suites = m.suites[:k-1]
		}
	}
	return nil
}

// joinGosax puts a result's message attribute and its text together, as
// the JUnit parser does.
func joinGosax(attr string, text []byte, max int) string {
	switch {
	case len(text) <= len(attr) && strings.Contains(attr, string(text)):
		return attr
	case len(attr) <= len(text) && string(text[:len(attr)]) == attr:
		return string(text)
	}
	s := attr + "\n" + string(text)
	if len(s) > max {
		n := max
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return s
}

// TestGosaxModelSameRecords checks the model reads the benchmark's report
// into the records Parse gives, so that the two do the same work.
func TestGosaxModelSameRecords(t *testing.T) {
	data := benchData()
	got, err := gosaxRead(data, "bench.xml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := Parse(bytes.NewReader(data), "bench.xml")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(res.Executions) {
		t.Fatalf("model read %d cases, Parse %d", len(got), len(res.Executions))
	}
	for i := range got {
		g, w := got[i], res.Executions[i]
		// Parse keeps times at the resolution it reads; both are from
		// the same decimal.
		if g.ID != w.ID || g.Scope != w.Scope || g.Outcome != w.Outcome || g.Message != w.Message || g.Timed != w.Timed || (g.Duration-w.Duration).Abs() > time.Microsecond {
			t.Fatalf("case %d: model %+v, Parse %+v", i, g, w)
		}
	}
}

// TestGosaxModelGuards checks the model refuses what Parse refuses, so
// that it pays for the same guards.
func TestGosaxModelGuards(t *testing.T) {
	deep := strings.Repeat("<testsuite>", 70) + strings.Repeat("</testsuite>", 70)
	for name, doc := range map[string]string{
		"doctype":      `<!DOCTYPE x [<!ENTITY a "b">]><testsuites/>`,
		"entity":       `<testsuites><testcase name="&a;"/></testsuites>`,
		"bad char ref": `<testsuites><testcase name="&#0;"/></testsuites>`,
		"NUL":          "<testsuites><testcase name=\"a\x00\"/></testsuites>",
		"bad UTF-8":    "<testsuites><testcase name=\"a\xff\"/></testsuites>",
		"control":      "<testsuites><testcase name=\"a\x01\"/></testsuites>",
		"depth":        deep,
		"mismatch":     `<testsuites><testsuite></testcase></testsuites>`,
		"truncated":    `<testsuites><testsuite>`,
		"repeated":     `<testsuites><testcase name="a" name="b"/></testsuites>`,
		"lt in value":  `<testsuites><testcase name="a<b"/></testsuites>`,
		"two roots":    `<testsuites/><testsuites/>`,
		"nested case":  `<testsuites><testcase name="a"><testcase name="b"/></testcase></testsuites>`,
	} {
		if _, err := gosaxRead([]byte(doc), "x.xml"); err == nil {
			t.Errorf("%s: the model read %q", name, doc)
		}
		if _, err := Parse(strings.NewReader(doc), "x.xml"); err == nil {
			t.Errorf("%s: Parse read %q", name, doc)
		}
	}
	if _, err := gosaxRead([]byte(`<testsuites><testcase classname="a" name="b &amp; &#x41;"/></testsuites>`), "x.xml"); err != nil {
		t.Errorf("the model refused a plain report: %v", err)
	}
}

func BenchmarkGuardedGosax(b *testing.B) {
	data := benchData()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		execs, err := gosaxRead(data, "bench.xml")
		if err != nil || len(execs) == 0 {
			b.Fatal(err)
		}
	}
}
