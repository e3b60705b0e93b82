package cobertura

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/hangar-dev/testresults/report/internal/hits"
	"github.com/hangar-dev/testresults/report/internal/srcpath"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// Limits bound what one report may hold; a zero field means its default.
// It is the same type as report.Limits.
type Limits = xmlsafe.Limits

// SyntaxError is the same type as report.SyntaxError.
type SyntaxError = xmlsafe.SyntaxError

// ErrNotCobertura is returned for a well-formed document whose root element
// is not <coverage>.
var ErrNotCobertura = errors.New("cobertura: not a Cobertura report")

// ErrValue is returned when a root attribute is not a valid number (or the
// numbers contradict each other: covered lines over valid lines, a rate
// outside 0..1).
var ErrValue = errors.New("cobertura: invalid coverage value")

// MaxSources is the most <source> roots a report may name.
const MaxSources = 64

// maxSourceBytes bounds the text of one <source> element.
const maxSourceBytes = 4096

// Parse reads one Cobertura report from r; name identifies it in errors. The
// whole document is read and checked (well-formed, within limits): a file
// cut short is refused. It keeps the root's stated totals and the
// <line number hits> elements of each <class>, keyed by the class's
// filename made relative (see WithWorkDir); a report without any <line>
// element has nil Files and states only its totals. The returned report
// is nil on error. A <coverage> root without any of line-rate,
// lines-covered or lines-valid (Clover writes one) is ErrNotCobertura.
func Parse(r io.Reader, name string, opts ...Option) (*testrun.CoverageReport, error) {
	cfg := newConfig(opts)
	rd := xmlsafe.NewReader(r, name, cfg.Limits)
	if cfg.Precheck != nil {
		rd.SetPrecheck(cfg.Precheck)
	}
	cov := &testrun.CoverageReport{}
	var (
		roots     []string
		files     = map[string]*testrun.FileCoverage{}
		cur       *testrun.FileCoverage // the open <class>
		classAt   int                   // its depth
		sourceAt  = -1                  // depth of the open <source>, -1 when none
		source    []byte
		seenLines bool
	)
	bad := func(err error) error { return &SyntaxError{File: name, Line: rd.Line(), Err: err} }
	for {
		tok, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		switch tok.Kind {
		case xmlsafe.Text:
			if sourceAt >= 0 && rd.Depth() == sourceAt {
				source = rd.AppendText(source, tok, maxSourceBytes)
			}
			continue
		case xmlsafe.EndElement:
			if rd.Depth() < sourceAt {
				if len(roots) == MaxSources {
					return nil, bad(fmt.Errorf("%w: more than %d <source> elements", ErrValue, MaxSources))
				}
				if s := strings.TrimSpace(string(source)); s != "" {
					roots = append(roots, s)
				}
				sourceAt, source = -1, source[:0]
			}
			if cur != nil && rd.Depth() < classAt {
				cur = nil
			}
			continue
		case xmlsafe.StartElement:
		default:
			continue
		}
		if rd.Depth() == 1 {
			if string(tok.Name) != "coverage" {
				return nil, fmt.Errorf("%w: root element <%s>", ErrNotCobertura, xmlsafe.QuoteName(tok.Name))
			}
			if err := root(rd, tok, cov); err != nil {
				if errors.Is(err, ErrNotCobertura) {
					return nil, err
				}
				return nil, bad(err)
			}
			continue
		}
		switch string(tok.Name) {
		case "source":
			sourceAt = rd.Depth()
		case "class":
			if cur, err = class(rd, tok, files); err != nil {
				return nil, bad(err)
			}
			classAt = rd.Depth()
		case "line":
			// Only the class's own <lines> count: a <method>'s <line>
			// (istanbul writes the function's first line there) is not a
			// statement line of the file.
			if cur == nil || rd.Depth() != classAt+2 {
				continue
			}
			seenLines = true
			if err := line(rd, tok, cur); err != nil {
				return nil, bad(err)
			}
		}
	}
	if seenLines {
		cov.Files = relFiles(files, cfg.WorkDir, roots)
	}
	return cov, nil
}

// class returns the coverage of the file a <class> names, from files or
// added to it: classes that name the same file (a Java file's inner
// classes) share one.
func class(rd *xmlsafe.Reader, tok *xmlsafe.Token, files map[string]*testrun.FileCoverage) (*testrun.FileCoverage, error) {
	a, ok := tok.Attr("filename")
	if !ok || len(rd.Value(a)) == 0 {
		return nil, fmt.Errorf("%w: <class> without a filename", ErrValue)
	}
	fn := rd.String(a)
	f := files[fn]
	if f == nil {
		f = &testrun.FileCoverage{Lines: map[int64]bool{}}
		files[fn] = f
	}
	return f, nil
}

// relFiles keys the coverage of files by their paths made relative to
// workDir or one of the report's source roots (see srcpath.Rel); files
// that name the same path that way are merged.
func relFiles(files map[string]*testrun.FileCoverage, workDir string, roots []string) map[string]*testrun.FileCoverage {
	out := make(map[string]*testrun.FileCoverage, len(files))
	for fn, f := range files {
		rel := srcpath.Rel(fn, workDir, roots)
		if dst := out[rel]; dst != nil {
			dst.Merge(f)
		} else {
			out[rel] = f
		}
	}
	return out
}

// line reads <line number hits> into f: a line is covered when any of its
// elements has hits other than 0. Line 0 names no source line and is
// passed over.
func line(rd *xmlsafe.Reader, tok *xmlsafe.Token, f *testrun.FileCoverage) error {
	na, ok := tok.Attr("number")
	if !ok {
		return fmt.Errorf("%w: <line> without a number", ErrValue)
	}
	n, ok := digits(rd.Value(na))
	if !ok || n > testrun.MaxCoverageLineNumber {
		return fmt.Errorf("%w: <line number=%q> is not a line number", ErrValue, xmlsafe.QuoteName(rd.Value(na)))
	}
	ha, ok := tok.Attr("hits")
	if !ok {
		return fmt.Errorf("%w: <line number=\"%d\"> without hits", ErrValue, n)
	}
	hit, ok := hits.Count(bytes.TrimSpace(rd.Value(ha)))
	if !ok {
		return fmt.Errorf("%w: <line number=\"%d\" hits=%q>: hits is not a count", ErrValue, n, xmlsafe.QuoteName(rd.Value(ha)))
	}
	if n == 0 {
		return nil
	}
	f.Lines[n] = f.Lines[n] || hit
	return nil
}

// digits reads a non-negative decimal integer that fits in an int64.
func digits(b []byte) (int64, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var v int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	return v, true
}

func root(rd *xmlsafe.Reader, tok *xmlsafe.Token, cov *testrun.CoverageReport) error {
	_, rate := tok.Attr("line-rate")
	_, covered := tok.Attr("lines-covered")
	_, valid := tok.Attr("lines-valid")
	if !rate && !covered && !valid {
		// Clover and other tools also name their root <coverage>.
		return fmt.Errorf("%w: <coverage> has no line-rate, lines-covered or lines-valid", ErrNotCobertura)
	}
	if a, ok := tok.Attr("line-rate"); ok {
		v, err := parseRate(rd.String(a))
		if err != nil {
			return err
		}
		cov.LineRate = &v
	}
	for _, f := range []struct {
		attr string
		dst  **int64
	}{{"lines-covered", &cov.LinesCovered}, {"lines-valid", &cov.LinesValid}} {
		a, ok := tok.Attr(f.attr)
		if !ok {
			continue
		}
		s := strings.TrimSpace(rd.String(a))
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil || v < 0 {
			return fmt.Errorf("%w: %s=%q is not a count", ErrValue, f.attr, s)
		}
		*f.dst = &v
	}
	if cov.LinesCovered != nil && cov.LinesValid != nil && *cov.LinesCovered > *cov.LinesValid {
		return fmt.Errorf("%w: lines-covered %d is over lines-valid %d", ErrValue, *cov.LinesCovered, *cov.LinesValid)
	}
	return nil
}

// parseRate reads a rate between 0 and 1, with '.' or ',' as the decimal
// separator.
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	t := s
	if !strings.Contains(t, ".") {
		t = strings.Replace(t, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || v < 0 || v > 1 {
		return 0, fmt.Errorf("%w: line-rate=%q is not a rate between 0 and 1", ErrValue, s)
	}
	return v, nil
}
