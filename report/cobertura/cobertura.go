package cobertura

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

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

// Parse reads one Cobertura report from r; name identifies it in errors. The
// whole document is read and checked (well-formed, within limits) even
// though only the root's attributes are kept: a file cut short is refused.
// The returned report is nil on error. A <coverage> root without any of
// the three attributes (Clover writes one) is ErrNotCobertura.
func Parse(r io.Reader, name string, opts ...Option) (*testrun.CoverageReport, error) {
	cfg := newConfig(opts)
	rd := xmlsafe.NewReader(r, name, cfg.limits)
	cov := &testrun.CoverageReport{}
	for {
		tok, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if tok.Kind != xmlsafe.StartElement || rd.Depth() != 1 {
			continue
		}
		if string(tok.Name) != "coverage" {
			return nil, fmt.Errorf("%w: root element <%s>", ErrNotCobertura, xmlsafe.QuoteName(tok.Name))
		}
		if err := root(rd, tok, cov); err != nil {
			if errors.Is(err, ErrNotCobertura) {
				return nil, err
			}
			return nil, &SyntaxError{File: name, Line: rd.Line(), Err: err}
		}
	}
	return cov, nil
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
