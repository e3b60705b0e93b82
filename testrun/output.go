package testrun

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hangar-dev/testresults/internal/lazyre"
)

// Bounds of the output scan.
const (
	// MaxOutputBytes is how much of the end of a check's output is scanned
	// for failing tests (the run wrapper keeps that much).
	MaxOutputBytes = 1 << 20
	// MaxOutputLine is the longest line examined; longer lines are no
	// runner's summary line and are skipped.
	MaxOutputLine = 4096
	// MaxOutputFailures is how many distinct failing tests one output scan
	// returns.
	MaxOutputFailures = 1000
)

// OutputFailure is a failing test named by a line of a check's output.
type OutputFailure struct {
	// ID is the test as the runner printed it.
	ID string `json:"id"`
	// Runner is the runner whose line format matched: pytest, go, jest or
	// cargo.
	Runner string `json:"runner"`
	// Line is the line that named it (clipped to 200 characters).
	Line string `json:"line"`
}

type outputPattern struct {
	runner string
	re     *lazyre.Regexp // compiled the first time a line holds quick
	// quick is a substring every matching line holds, tested before re.
	quick string
}

// outputPatterns are the summary lines runners print for a failing test.
// The first submatch is the test.
var outputPatterns = []outputPattern{
	// pytest's short summary ("FAILED a.py::t - msg", "ERROR a.py::t")
	// and its verbose progress ("a.py::t FAILED   [ 50%]").
	{"pytest", lazyre.New(`^(?:FAILED|ERROR) (\S+?(?:::\S+?|\.py))(?: - .*)?$`), " "},
	{"pytest", lazyre.New(`^(\S+::\S+) (?:FAILED|ERROR)(?: +\[ *\d+%\])?$`), "::"},
	// go test: "--- FAIL: TestX (0.00s)", indented for subtests.
	{"go", lazyre.New(`^\s*--- FAIL: (\S+) \([\d.]+m?s\)$`), "--- FAIL: "},
	// cargo test: "test tests::x ... FAILED".
	{"cargo", lazyre.New(`^test (\S+) \.\.\. FAILED$`), "... FAILED"},
	// jest: "  ● suite › test" heads each failure.
	{"jest", lazyre.New(`^\s*● (.+?)\s*$`), "●"},
}

// jestNotices are ● lines that name no test.
var jestNotices = []string{"Validation Warning", "Validation Error", "Deprecation Warning", "Configuration Error"}

var ansiEscape = lazyre.New(`\x1b\[[0-9;?]*[ -/]*[@-~]`)

// ScanOutput returns the failing tests that out names, in the order first
// named, each once. Only the last MaxOutputBytes are read, lines longer
// than MaxOutputLine are skipped, colour escapes are removed, and at most
// MaxOutputFailures tests are returned.
func ScanOutput(out []byte) []OutputFailure {
	if len(out) > MaxOutputBytes {
		out = out[len(out)-MaxOutputBytes:]
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			out = out[i+1:] // the first line is cut
		}
	}
	found := []OutputFailure{}
	seen := map[string]bool{}
	for len(out) > 0 && len(found) < MaxOutputFailures {
		var line []byte
		if i := bytes.IndexByte(out, '\n'); i >= 0 {
			line, out = out[:i], out[i+1:]
		} else {
			line, out = out, nil
		}
		if len(line) > MaxOutputLine {
			continue
		}
		s := strings.TrimRight(string(line), "\r")
		if strings.IndexByte(s, 0x1b) >= 0 {
			s = ansiEscape.Regexp().ReplaceAllString(s, "")
		}
		for _, p := range outputPatterns {
			if !strings.Contains(s, p.quick) {
				continue
			}
			m := p.re.Regexp().FindStringSubmatch(s)
			if m == nil {
				continue
			}
			id := m[1]
			if p.runner == "jest" && jestNotice(id) {
				break
			}
			key := p.runner + "\x00" + id
			if !seen[key] {
				seen[key] = true
				found = append(found, OutputFailure{ID: id, Runner: p.runner, Line: Clip(strings.TrimSpace(s), 200)})
			}
			break
		}
	}
	return found
}

func jestNotice(s string) bool {
	for _, n := range jestNotices {
		if strings.HasPrefix(s, n) {
			return true
		}
	}
	return false
}

// unexplained returns the tests of named that neither base names (same
// runner, same test) nor after's reports list as failing.
func unexplained(named, base []OutputFailure, after *Run) []OutputFailure {
	inBase := make(map[string]bool, len(base))
	for _, b := range base {
		inBase[b.Runner+"\x00"+b.ID] = true
	}
	var failing []string
	for _, f := range after.Failures {
		failing = append(failing, normalTestID(f.ID))
	}
	for id, o := range after.Cases {
		if o.Failing() {
			failing = append(failing, normalTestID(id))
		}
	}
	out := []OutputFailure{}
	for _, n := range named {
		if inBase[n.Runner+"\x00"+n.ID] {
			continue
		}
		if reportsName(failing, normalTestID(n.ID)) {
			continue
		}
		out = append(out, n)
	}
	return out
}

// normalTestID writes a test id with one separator ("/") between its parts,
// so that pytest's node ids (a/b.py::C::t), JUnit's class names (a.b.C::t),
// go's TestX/sub, cargo's mod::t and jest's "suite › t" compare.
func normalTestID(id string) string {
	id = strings.ReplaceAll(id, ".py::", "/")
	r := strings.NewReplacer("::", "/", " › ", "/", ".", "/", "#", "/", "\\", "/", " ", "_")
	return strings.Trim(r.Replace(id), "/")
}

// reportsName reports whether some failing report id ends with name on a
// part boundary (or is it): the reports then explain the output line.
func reportsName(failing []string, name string) bool {
	if name == "" {
		return false
	}
	for _, f := range failing {
		if f == name || strings.HasSuffix(f, "/"+name) || strings.HasSuffix(name, "/"+f) {
			return true
		}
	}
	return false
}

func describeOutput(fs []OutputFailure) string {
	verb := "a failing test"
	if len(fs) > 1 {
		verb = "failing tests"
	}
	return verb + " that the base's output did not: " + namedList(fs)
}

// distinctNamed counts the tests fs names, each runner's once.
func distinctNamed(fs []OutputFailure) int {
	seen := make(map[string]bool, len(fs))
	for _, f := range fs {
		seen[f.Runner+"\x00"+f.ID] = true
	}
	return len(seen)
}

// namedList lists the first tests of fs with the line that named each.
func namedList(fs []OutputFailure) string {
	const show = 3
	var parts []string
	for i, f := range fs {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(fs)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%q (%s line %q)", f.ID, f.Runner, f.Line))
	}
	return strings.Join(parts, ", ")
}
