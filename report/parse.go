package report

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/hangar-dev/testresults/report/cobertura"
	"github.com/hangar-dev/testresults/report/gotestjson"
	"github.com/hangar-dev/testresults/report/internal/parseopt"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/report/junit"
	"github.com/hangar-dev/testresults/report/lcov"
	"github.com/hangar-dev/testresults/testrun"
)

// Coverage dialects, as ReportInfo.Dialect names them; JUnit dialects are
// named by package junit.
const (
	DialectCobertura = "cobertura"
	DialectLcov      = "lcov"
)

// Result is one report file read (or refused, or skipped).
type Result struct {
	// Info describes the file; Info.Error says why it was refused or
	// skipped, Info.Skipped tells which.
	Info testrun.ReportInfo
	// Executions are the test cases of a test report (JUnit XML, a go
	// test -json stream); nil for a refused or skipped file: a report is
	// read whole or not at all.
	Executions []testrun.Execution
	// Coverage is what a coverage report states (nil for test reports and
	// for refused or skipped files).
	Coverage *testrun.CoverageReport
}

// foreignRoots names well-formed XML documents that are not reports this
// package reads; they are skipped, not refused.
var foreignRoots = map[string]string{
	"project":          "a Maven POM or an Ant build file",
	"failsafe-summary": "a failsafe summary (the results are in the TEST-*.xml files)",
	"test-results":     "an NUnit 2 result file (not JUnit XML)",
	"test-run":         "an NUnit 3 result file (not JUnit XML)",
	"assemblies":       "an xUnit.net v2 result file (not JUnit XML)",
	"TestRun":          "a Visual Studio TRX result file (not JUnit XML)",
	"testng-results":   "a TestNG result file (not JUnit XML)",
	"Site":             "a CTest dashboard file (use ctest --output-junit)",
	"report":           "a JaCoCo coverage file (not Cobertura)",
	"checkstyle":       "a Checkstyle report",
	"html":             "an HTML document",
}

// Parse reads one report from r, whatever its format: JUnit XML, Cobertura
// XML, an lcov tracefile or a go test -json stream, told apart by content. name is the report's
// path as it should be listed. The Result is never nil; on error its Info
// says why, and errors.Is(err, ErrNotReport) tells a skipped file from a
// refused one.
func Parse(r io.Reader, name string, opts ...Option) (*Result, error) {
	cfg := newConfig(opts)
	return parse(r, name, &cfg, false)
}

// ParseFile reads the report at path. A path with a symbolic link anywhere
// in it, or one that is not a regular file, is refused.
func ParseFile(path string, opts ...Option) (*Result, error) {
	cfg := newConfig(opts)
	return parseFile(path, &cfg)
}

func parseFile(path string, cfg *config) (*Result, error) {
	refuse := func(err error) (*Result, error) {
		return &Result{Info: testrun.ReportInfo{Path: path, Error: Describe(err)}}, err
	}
	if err := checkPath(path); err != nil {
		return refuse(err)
	}
	f, err := openNoFollow(path)
	if err != nil {
		return refuse(fmt.Errorf("report: %w", err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return refuse(fmt.Errorf("report: %w", err))
	}
	if !fi.Mode().IsRegular() {
		return refuse(fmt.Errorf("%w: %s", ErrNotRegular, fi.Mode().Type()))
	}
	if over := cfg.limits.CheckBytes(fi.Size()); over != nil {
		res, err := refuse(over)
		res.Info.Bytes = fi.Size()
		return res, err
	}
	res, err := parse(f, path, cfg, true)
	res.Info.Bytes = max(res.Info.Bytes, fi.Size())
	return res, err
}

// sniffFile reads the start of the file at path and returns an error
// wrapping ErrNotReport when its content is not a report (XML of another
// kind), without reading the rest. Any other result (a report, or a file
// too broken to tell) returns another error or nil.
func sniffFile(path string, cfg *config) error {
	if err := checkPath(path); err != nil {
		return err
	}
	f, err := openNoFollow(path)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	defer f.Close()
	br := bufio.NewReaderSize(f, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	if sniffFormat(head) != formatXML {
		return nil
	}
	root, _, err := xmlsafe.Sniff(br, path, cfg.limits)
	if err != nil {
		return err
	}
	return rootKind(root, cfg)
}

// rootKind returns nil for the root element of a report (JUnit, Cobertura)
// and an error saying what the file is for any other: one wrapping
// ErrNotReport (skipped) for a root known not to be a report (foreignRoots)
// and for an unknown root in a file a search found, one wrapping
// ErrUnknownRoot (refused) for an unknown root in a file named directly or
// in the run's own report folder.
func rootKind(root string, cfg *config) error {
	local := root[strings.LastIndexByte(root, ':')+1:]
	switch local {
	case "testsuites", "testsuite", "testrun", "coverage":
		return nil
	}
	return notReport(root, cfg)
}

// notReport is rootKind's error for a root that is not a report's.
func notReport(root string, cfg *config) error {
	local := root[strings.LastIndexByte(root, ':')+1:]
	name := xmlsafe.QuoteName([]byte(root))
	what, ok := foreignRoots[local]
	switch {
	case ok:
	case cfg.lenientRoot:
		what = "XML of another kind"
	default:
		return fmt.Errorf("%w <%s>: not JUnit XML, Cobertura or lcov", ErrUnknownRoot, name)
	}
	return fmt.Errorf("%w: %s (root element <%s>)", ErrNotReport, what, name)
}

// checkPath refuses a path with a symbolic link in any of its components,
// relative paths being taken from the working directory. When the link is
// above the file (a folder of the path: macOS's /tmp and /var are links to
// /private), the refusal names the path the file has without links, for a
// person to give instead; nothing is read through it.
func checkPath(path string) error {
	link, err := linkInPath(path)
	switch {
	case err != nil:
		return fmt.Errorf("report: %w", err)
	case link == "":
		return nil
	}
	if abs, err := filepath.Abs(path); err == nil && link != abs {
		if real, err := filepath.EvalSymlinks(abs); err == nil && real != abs {
			return fmt.Errorf("%w: %s is a symbolic link (no link is followed in a report's path; without links the path is %s)", ErrSymlink, link, real)
		}
	}
	return fmt.Errorf("%w: %s is a symbolic link", ErrSymlink, link)
}

// parse reads the report r holds; regular tells that r is a regular file,
// which may be read ahead on the hashing goroutine (see newHashReader).
func parse(r io.Reader, name string, cfg *config, regular bool) (*Result, error) {
	h := newHashReader(r, regular)
	defer h.stop()
	res := &Result{Info: testrun.ReportInfo{Path: name}}
	opts := []parseopt.Option{parseopt.WithPrecheck(&h.pre)}
	if feed := cfg.feed; feed != nil {
		opts = append(opts, parseopt.WithBatches(func(execs iter.Seq[*testrun.Execution]) {
			h.do(func() { feed.Add(execs) })
		}))
	}
	err := parseInto(h, name, cfg, res, opts...)
	sum := h.stop()
	res.Info.Bytes = h.n
	if err != nil {
		res.Info.Error = Describe(err)
		res.Info.Skipped = errors.Is(err, ErrNotReport)
		res.Info.Tests = nil
		res.Executions = nil
		res.Coverage = nil
		return res, err
	}
	res.Info.SHA256 = sum
	return res, nil
}

const sniffBytes = 4096

// parseInto reads the report r holds into res; popts are passed to the
// parser (the check its XML reader may rely on, see xmlsafe.Precheck, and
// where a JUnit report's executions go as they are read).
func parseInto(r io.Reader, name string, cfg *config, res *Result, popts ...parseopt.Option) error {
	br := bufio.NewReaderSize(r, sniffBytes)
	head, _ := br.Peek(sniffBytes)
	switch sniffFormat(head) {
	case formatEmpty:
		return ErrEmpty
	case formatLcov:
		res.Info.Dialect = DialectLcov
		cov, err := lcov.Parse(br, name, lcov.WithLimits(cfg.limits), lcov.WithWorkDir(cfg.workDir))
		res.Coverage = cov
		return err
	case formatGoTestJSON:
		res.Info.Dialect = gotestjson.Dialect
		opts := append([]gotestjson.Option{gotestjson.WithLimits(cfg.limits), gotestjson.WithMaxMessage(cfg.maxMessage)}, popts...)
		rep, err := gotestjson.Parse(br, name, opts...)
		n := rep.Len()
		res.Info.Tests = &n
		res.Executions = rep.Executions
		return err
	case formatXML:
	default:
		if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head[:xmlsafe.CompleteRunes(head)]) {
			return &SyntaxError{File: name, Line: 1, Err: xmlsafe.Reason(ErrBinary, "binary content, not a text report")}
		}
		return &SyntaxError{File: name, Line: 1, Err: xmlsafe.Reason(ErrNotXML, "neither XML, an lcov tracefile nor a go test -json stream")}
	}
	root, replay, err := xmlsafe.Sniff(br, name, cfg.limits)
	if err != nil {
		return err
	}
	local := root[strings.LastIndexByte(root, ':')+1:]
	switch local {
	case "testsuites", "testsuite", "testrun": // junit.IsRoot; <testrun> is Eclipse's export
		opts := append([]junit.Option{junit.WithLimits(cfg.limits), junit.WithMaxMessage(cfg.maxMessage)}, popts...)
		rep, err := junit.Parse(replay, name, opts...)
		res.Info.Dialect = rep.Dialect
		res.Executions = rep.Executions
		n := rep.Len()
		res.Info.Tests = &n
		return err
	case "coverage":
		res.Info.Dialect = DialectCobertura
		opts := append([]cobertura.Option{cobertura.WithLimits(cfg.limits), cobertura.WithWorkDir(cfg.workDir)}, popts...)
		cov, err := cobertura.Parse(replay, name, opts...)
		if errors.Is(err, cobertura.ErrNotCobertura) {
			res.Info.Dialect = ""
			return fmt.Errorf("%w: %v", ErrNotReport, err)
		}
		res.Coverage = cov
		return err
	}
	return rootKind(root, cfg)
}

type format int

const (
	formatOther format = iota
	formatEmpty
	formatXML
	formatLcov
	formatGoTestJSON
)

func sniffFormat(head []byte) format {
	if bytes.HasPrefix(head, []byte{0xFE, 0xFF}) || bytes.HasPrefix(head, []byte{0xFF, 0xFE}) {
		return formatXML // UTF-16: the XML reader refuses it by name
	}
	s := bytes.TrimLeft(bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF}), " \t\r\n")
	switch {
	case len(s) == 0 && len(head) < sniffBytes:
		return formatEmpty
	case len(s) == 0:
		return formatXML // a long run of white space: let the reader decide
	case s[0] == '<':
		return formatXML
	case lcov.Sniff(s):
		return formatLcov
	case gotestjson.Detect(s):
		return formatGoTestJSON
	}
	return formatOther
}

// Describe renders an error of this package for ReportInfo.Error and the
// run's incomplete reasons: the reason without the "report:" prefix or the
// file name (the report's path is listed beside it).
func Describe(err error) string {
	var se *SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("line %d: %s", se.Line, strings.TrimPrefix(se.Err.Error(), "report: "))
	}
	var le *LimitError
	if errors.As(err, &le) {
		return fmt.Sprintf("%s limit of %d exceeded", le.Limit, le.Max)
	}
	return strings.TrimPrefix(err.Error(), "report: ")
}
