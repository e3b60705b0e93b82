package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/hangar-dev/testresults/report"
	"github.com/hangar-dev/testresults/serve"
	"github.com/hangar-dev/testresults/testrun"
)

// MaxReportPaths bounds the paths one parse_reports call names: the files
// limit of a run (report.DefaultMaxFiles).
const MaxReportPaths = report.DefaultMaxFiles

// MaxPathBytes bounds a path parse_reports takes (PATH_MAX on Linux): a
// longer one names no file.
const MaxPathBytes = 4096

// ErrOutside is wrapped by the refusal of a path outside the reports
// folder.
var ErrOutside = errors.New("mcpserver: outside the reports folder")

// resolveRoot returns dir absolute, its symbolic links resolved, once it
// is a folder.
func resolveRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("mcpserver: reports folder: %w", err)
	}
	root, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("mcpserver: reports folder: %w", err)
	}
	fi, err := os.Stat(root)
	if err != nil {
		return "", fmt.Errorf("mcpserver: reports folder: %w", err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("mcpserver: reports folder: %s is not a folder", dir)
	}
	return root, nil
}

// confine returns the path under root (resolved, see resolveRoot) that p
// names: relative to root, or absolute and under it. It refuses a path
// longer than MaxPathBytes, one with a ".." element, an absolute path
// elsewhere, and one whose symbolic links, resolved, lead out of root (or
// that cannot be resolved); a refusal repeats at most the first 200 bytes
// of the path. The path it returns is not resolved: report.ReadRun refuses
// a symbolic link in it, as testresults parse does.
func confine(root, p string) (string, error) {
	refuse := func(why string) (string, error) {
		return "", fmt.Errorf("%w: %q %s", ErrOutside, brief(p), why)
	}
	if len(p) > MaxPathBytes {
		return refuse(fmt.Sprintf("is longer than %d bytes", MaxPathBytes))
	}
	if p == "" || strings.ContainsRune(p, 0) {
		return refuse("is not a path")
	}
	for _, el := range strings.FieldsFunc(p, func(r rune) bool { return r == '/' || r == filepath.Separator }) {
		if el == ".." {
			return refuse("has a .. element")
		}
	}
	full := p
	if !filepath.IsAbs(p) {
		full = filepath.Join(root, p)
	}
	full = filepath.Clean(full)
	if !within(root, full) {
		return refuse("is not under it")
	}
	real, err := filepath.EvalSymlinks(full)
	if err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return refuse(fmt.Sprintf("cannot be resolved: %v", err))
	}
	if !within(root, real) {
		return refuse("leads out of it through a symbolic link")
	}
	return full, nil
}

// briefBytes is how much of a path refused its refusal repeats.
const briefBytes = 200

// brief is p, cut to about briefBytes (on a UTF-8 boundary) with "…" when
// longer, so that a refusal is never as long as what was sent.
func brief(p string) string {
	if len(p) <= briefBytes {
		return p
	}
	n := briefBytes
	for n > 0 && !utf8.RuneStart(p[n]) {
		n--
	}
	return p[:n] + "…"
}

// within reports whether p is root or under it (both clean and absolute).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// ParseReportsInput is parse_reports' arguments.
type ParseReportsInput struct {
	Paths  []string `json:"paths" jsonschema:"report files or folders, relative to the reports folder (. for all of it)"`
	Cases  bool     `json:"cases,omitempty" jsonschema:"list the run's cases, 5000 a page, in test id order"`
	Offset int      `json:"offset,omitempty" jsonschema:"with cases: the first case of the page, page.next_offset of the page before"`
}

type parseOutput struct {
	// Run is the run's JSON form without its per-case map.
	Run   json.RawMessage     `json:"run"`
	Cases []serve.CaseOutcome `json:"cases,omitempty"`
	// CasesWhole, with cases, says whether the pages hold every test the
	// run counted: false when the run kept only some of them (failing
	// and flaky ones first, up to testrun.DefaultMaxCasesKept), so that
	// the end of the pages never reads as the end of the run's tests.
	CasesWhole *bool `json:"cases_whole,omitempty"`
	Page       *Page `json:"page,omitempty"`
}

func (s *Server) parseReports(_ context.Context, _ *mcp.CallToolRequest, in ParseReportsInput) (*mcp.CallToolResult, any, error) {
	if s.root == "" {
		return failed(&toolProblem{Status: http.StatusForbidden,
			Detail: "parse_reports reads only the folder the server was started with, and it was started with none (testresults mcp --reports-dir DIR)"})
	}
	if len(in.Paths) == 0 || len(in.Paths) > MaxReportPaths {
		return failed(badRequest("give 1 to %d paths, not %d", MaxReportPaths, len(in.Paths)))
	}
	p, err := newPager(in.Offset)
	if err != nil {
		return failed(err)
	}
	if in.Offset != 0 && !in.Cases {
		return failed(badRequest("offset needs cases"))
	}
	paths := make([]string, len(in.Paths))
	for i, rel := range in.Paths {
		if paths[i], err = confine(s.root, rel); err != nil {
			return failed(&toolProblem{Status: http.StatusForbidden, Detail: err.Error()})
		}
	}
	// A run no report of which could be read is still the answer: it
	// says why (counts null, the reasons listed), as testresults parse
	// prints it.
	run, _ := report.ReadRun(paths, report.WithRunOptions(testrun.WithRedactor(testrun.NewRedactor(s.cfg.environ))))
	// Paths as the client named them, under the folder, not the server's
	// own: in the reports, their errors and the reasons.
	prefix := s.root + string(filepath.Separator)
	for i := range run.Reports {
		if rel, err := filepath.Rel(s.root, run.Reports[i].Path); err == nil && within(s.root, run.Reports[i].Path) {
			run.Reports[i].Path = filepath.ToSlash(rel)
		}
		run.Reports[i].Error = strings.ReplaceAll(run.Reports[i].Error, prefix, "")
	}
	for i, r := range run.IncompleteReasons {
		run.IncompleteReasons[i] = strings.ReplaceAll(r, prefix, "")
	}
	run.ID = testrun.DeriveID(run.Reports)
	rb, err := run.MarshalJSONCasesLeftOut()
	if err != nil {
		return failed(err)
	}
	out := parseOutput{Run: rb}
	if in.Cases {
		ids := slices.Sorted(maps.Keys(run.Cases))
		ids = cut(p, "cases", ids)
		out.Cases = make([]serve.CaseOutcome, len(ids))
		for i, id := range ids {
			out.Cases[i] = serve.CaseOutcome{ID: id, Outcome: run.Cases[id]}
			if d, ok := run.Durations[id]; ok {
				secs := d.Seconds()
				out.Cases[i].Duration = &secs
			}
		}
		pg := p.page()
		out.Page = &pg
		whole := run.Counts != nil && len(run.Cases) >= run.Counts.Total
		out.CasesWhole = &whole
	}
	return nil, out, nil
}
