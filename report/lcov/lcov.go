package lcov

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/hangar-dev/testresults/report/internal/hits"
	"github.com/hangar-dev/testresults/report/internal/srcpath"
	"github.com/hangar-dev/testresults/report/internal/xmlsafe"
	"github.com/hangar-dev/testresults/testrun"
)

// Limits bound what one file may hold; a zero field means its default
// (MaxBytes and MaxRecords apply to lcov). It is the same type as
// report.Limits.
type Limits = xmlsafe.Limits

// SyntaxError is a malformed line of a tracefile. It is the same type as
// report.SyntaxError.
type SyntaxError = xmlsafe.SyntaxError

// ErrMalformed is wrapped by the SyntaxError of a malformed record.
var ErrMalformed = errors.New("lcov: malformed record")

// MaxLineBytes is the longest line read (a longer one is malformed).
const MaxLineBytes = 64 << 10

// Sniff reports whether the start of a file looks like an lcov tracefile:
// its first non-blank line is a known record.
func Sniff(head []byte) bool {
	head = bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	for len(head) > 0 {
		line := head
		if i := bytes.IndexByte(head, '\n'); i >= 0 {
			line, head = head[:i], head[i+1:]
		} else {
			head = nil
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		if string(line) == "end_of_record" {
			return true
		}
		i := bytes.IndexByte(line, ':')
		if i <= 0 {
			return false
		}
		switch string(line[:i]) {
		case "TN", "SF", "VER", "FN", "FNDA", "FNF", "FNH", "FNL", "FNA", "DA", "LF", "LH", "BRDA", "BRF", "BRH":
			return true
		}
		return false
	}
	return false
}

// Parse reads one tracefile from r; name identifies it in errors. It keeps
// the DA lines of each record, keyed by its SF made relative (see
// WithWorkDir); a record without DA lines keeps its LF/LH totals. DA line
// 0 names no source line (coverage.py writes one for an empty module) and
// is passed over. The returned report is nil on error.
func Parse(r io.Reader, name string, opts ...Option) (*testrun.CoverageReport, error) {
	cfg := newConfig(opts)
	p := parser{name: name, lim: cfg.Limits, workDir: cfg.WorkDir, files: map[string]*testrun.FileCoverage{}}
	if err := p.run(r); err != nil {
		return nil, err
	}
	return &testrun.CoverageReport{Files: p.files}, nil
}

type parser struct {
	name    string
	lim     Limits
	workDir string
	files   map[string]*testrun.FileCoverage
	line    int

	// the open record
	open   bool
	sf     string
	lines  map[int64]bool // nil until a DA record
	lf, lh int64
	hasLF  bool
}

func (p *parser) malformed(format string, args ...any) error {
	return &SyntaxError{File: p.name, Line: p.line, Err: fmt.Errorf("%w: "+format, append([]any{ErrMalformed}, args...)...)}
}

func (p *parser) run(r io.Reader) error {
	lr := &limitReader{r: r, lim: p.lim}
	br := bufio.NewReaderSize(lr, MaxLineBytes)
	for {
		raw, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			p.line++
			return p.malformed("line longer than %d bytes", MaxLineBytes)
		}
		if err != nil && err != io.EOF {
			if errors.Is(err, xmlsafe.ErrLimit) {
				return err
			}
			return fmt.Errorf("lcov: read %s: %w", p.name, err)
		}
		if len(raw) > 0 {
			p.line++
			if int64(p.line) > p.lim.MaxRecords {
				return &xmlsafe.LimitError{Limit: xmlsafe.LimitRecords, Max: p.lim.MaxRecords}
			}
			if e := p.record(bytes.TrimRight(raw, "\r\n")); e != nil {
				return e
			}
		}
		if err == io.EOF {
			break
		}
	}
	if p.open {
		return &SyntaxError{File: p.name, Line: p.line, Err: fmt.Errorf("%w: the record of %s has no end_of_record", xmlsafe.ErrTruncated, p.sf)}
	}
	if p.line == 0 {
		return xmlsafe.ErrEmpty
	}
	return nil
}

func (p *parser) record(line []byte) error {
	if bytes.IndexByte(line, 0) >= 0 {
		return &SyntaxError{File: p.name, Line: p.line, Err: xmlsafe.Reason(xmlsafe.ErrBinary, "NUL byte: binary content")}
	}
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	if string(line) == "end_of_record" {
		if !p.open {
			return p.malformed("end_of_record outside a record")
		}
		return p.close()
	}
	key, val, ok := bytes.Cut(line, []byte{':'})
	if !ok {
		return p.malformed("%q is not a record", clip(line))
	}
	switch string(key) {
	case "SF":
		if p.open {
			return p.malformed("SF:%s starts before the record of %s ends", clip(val), p.sf)
		}
		if len(val) == 0 {
			return p.malformed("SF with no file name")
		}
		p.open, p.sf = true, string(val)
		p.lines, p.lf, p.lh, p.hasLF = nil, 0, 0, false
	case "DA":
		if !p.open {
			return p.malformed("DA outside a record")
		}
		parts := bytes.SplitN(val, []byte{','}, 3)
		if len(parts) < 2 {
			return p.malformed("DA:%s needs a line and a hit count", clip(val))
		}
		ln, err := strconv.ParseInt(string(parts[0]), 10, 64)
		hit, ok := hits.Count(parts[1])
		if err != nil || ln < 0 || ln > testrun.MaxCoverageLineNumber || !ok {
			return p.malformed("DA:%s is not line,hits", clip(val))
		}
		if p.lines == nil {
			p.lines = map[int64]bool{}
		}
		if ln > 0 {
			p.lines[ln] = p.lines[ln] || hit
		}
	case "LF", "LH":
		if !p.open {
			return p.malformed("%s outside a record", key)
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(val)), 10, 64)
		if err != nil || n < 0 {
			return p.malformed("%s:%s is not a count", key, clip(val))
		}
		if key[1] == 'F' {
			p.lf, p.hasLF = n, true
		} else {
			p.lh = n
		}
	}
	// TN, FN*, BR*, VER and any other record carry nothing line coverage
	// needs.
	return nil
}

// close merges the open record into its source file. A record with DA
// lines is counted from them (its LF/LH are not needed: coverage.py 6
// writes LH:1 beside LF:0 for an empty module); one without is kept by
// its LF/LH totals, which must agree; one with neither states a file
// without lines.
func (p *parser) close() error {
	if p.lines == nil && p.lh > p.lf && p.hasLF {
		return p.malformed("LH:%d is over LF:%d in the record of %s", p.lh, p.lf, p.sf)
	}
	name := srcpath.Rel(p.sf, p.workDir, nil)
	f := p.files[name]
	if f == nil && p.lines != nil {
		p.files[name] = &testrun.FileCoverage{Lines: p.lines}
		p.open, p.lines = false, nil
		return nil
	}
	if f == nil {
		f = &testrun.FileCoverage{}
		p.files[name] = f
	}
	switch {
	case p.lines != nil:
		f.Merge(&testrun.FileCoverage{Lines: p.lines})
	case p.hasLF:
		f.Merge(&testrun.FileCoverage{Found: p.lf, Hit: p.lh})
	default:
		f.Merge(&testrun.FileCoverage{Lines: map[int64]bool{}})
	}
	p.open, p.lines = false, nil
	return nil
}

func clip(b []byte) string {
	if len(b) > 80 {
		return string(b[:80]) + "..."
	}
	return string(b)
}

// limitReader fails with a LimitError once more than lim.MaxBytes were read.
type limitReader struct {
	r   io.Reader
	n   int64
	lim xmlsafe.Limits
}

func (l *limitReader) Read(b []byte) (int, error) {
	n, err := l.r.Read(b)
	l.n += int64(n)
	if err := l.lim.CheckBytes(l.n); err != nil {
		return 0, err
	}
	return n, err
}
