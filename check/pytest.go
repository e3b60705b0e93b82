package check

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxConfigBytes bounds every configuration file this package reads
// (pytest.ini, pyproject.toml, setup.cfg, tox.ini, package.json, jest
// configs, .hangar/environment.yaml): a larger one is not read.
const maxConfigBytes = 1 << 20

// maxConfigLevels bounds how many folders are searched upwards for pytest's
// configuration.
const maxConfigLevels = 32

var errConfigTooLarge = fmt.Errorf("check: configuration file larger than %d KiB", maxConfigBytes>>10)

// readConfig reads a small configuration file without following a symbolic
// link as its last component. A missing file is (nil, nil).
func readConfig(path string) ([]byte, error) {
	f, err := openRegularNoFollow(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxConfigBytes {
		return nil, errConfigTooLarge
	}
	return b, nil
}

// pytestConfig is the pytest configuration file that applies to a check and
// what its options say about a JUnit report.
type pytestConfig struct {
	// File is the configuration file pytest would use ("" when none).
	File string
	// Args are its addopts, split into arguments.
	Args []string
	// JUnitOptions names the junit_* options it sets (they shape the report
	// but name no file).
	JUnitOptions []string
}

// pytestConfigFiles are the files pytest 9 looks for in each folder, in
// the order it prefers them, and how each is read.
var pytestConfigFiles = []struct {
	name string
	read func(b []byte) (opts map[string][]string, found bool, err error)
}{
	{"pytest.toml", alwaysFound(pytestTOMLFile)},
	{".pytest.toml", alwaysFound(pytestTOMLFile)},
	{"pytest.ini", iniFile("pytest", true)},
	{".pytest.ini", iniFile("pytest", true)},
	{"pyproject.toml", pyprojectPytest},
	{"tox.ini", iniFile("pytest", false)},
	{"setup.cfg", setupCfg},
}

// setupCfg reads setup.cfg's [tool:pytest] section; a [pytest] section
// there instead is refused, as pytest refuses it.
func setupCfg(b []byte) (map[string][]string, bool, error) {
	opts, found, err := iniSection(b, "tool:pytest")
	if err != nil || found {
		return opts, found, err
	}
	if _, legacy, _ := iniSection(b, "pytest"); legacy {
		return nil, false, fmt.Errorf("%w: [pytest] in setup.cfg is no longer read by pytest (it wants [tool:pytest])", errINI)
	}
	return opts, false, nil
}

func alwaysFound(read func([]byte) (map[string][]string, error)) func([]byte) (map[string][]string, bool, error) {
	return func(b []byte) (map[string][]string, bool, error) {
		opts, err := read(b)
		return opts, true, err
	}
}

// iniFile reads section of an INI file; always says the file is pytest's
// even without the section (pytest.ini is).
func iniFile(section string, always bool) func([]byte) (map[string][]string, bool, error) {
	return func(b []byte) (map[string][]string, bool, error) {
		opts, found, err := iniSection(b, section)
		return opts, found || always, err
	}
}

// findPytestConfig finds the configuration file pytest would read when run
// in wd, the way pytest 9 does for a run without -c or --rootdir: in wd and
// then in each folder above it, up to root (the repository) or
// maxConfigLevels folders, the first of pytest.toml, .pytest.toml,
// pytest.ini, .pytest.ini (these four even when empty), pyproject.toml with
// a [tool.pytest] or [tool.pytest.ini_options] table, tox.ini with a
// [pytest] section and setup.cfg with a [tool:pytest] section. A file
// pytest could not read either is an error that names it.
func findPytestConfig(wd, root string) (*pytestConfig, error) {
	dir := wd
	for range maxConfigLevels {
		for _, c := range pytestConfigFiles {
			path := filepath.Join(dir, c.name)
			b, err := readConfig(path)
			if err != nil {
				return nil, fmt.Errorf("check: %s: %w", path, err)
			}
			if b == nil {
				continue
			}
			opts, found, err := c.read(b)
			if err != nil {
				return nil, fmt.Errorf("check: %s: %w", path, err)
			}
			if !found {
				continue
			}
			cfg := &pytestConfig{File: path, Args: opts["addopts"]}
			for k := range opts {
				if strings.HasPrefix(k, "junit_") {
					cfg.JUnitOptions = append(cfg.JUnitOptions, k)
				}
			}
			slices.Sort(cfg.JUnitOptions)
			return cfg, nil
		}
		if dir == root {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return &pytestConfig{}, nil
}

var errINI = errors.New("check: INI configuration")

// iniSection returns the options of one section of an INI file (pytest.ini,
// tox.ini, setup.cfg) as pytest reads them, through iniconfig (see
// parseINI). addopts is split into arguments as shlex.split splits it;
// other values are one element. found reports whether the section exists.
// A file iniconfig refuses is an error, as it is for pytest.
func iniSection(b []byte, section string) (opts map[string][]string, found bool, err error) {
	sections, err := parseINI(b)
	if err != nil {
		return nil, false, err
	}
	i := slices.IndexFunc(sections, func(s iniSectionEntries) bool { return s.name == section })
	if i < 0 {
		return map[string][]string{}, false, nil
	}
	opts = make(map[string][]string, len(sections[i].entries))
	for _, kv := range sections[i].entries {
		if kv.key != "addopts" {
			opts[kv.key] = []string{kv.value}
			continue
		}
		args, err := splitArgs(kv.value)
		if err != nil {
			return nil, true, fmt.Errorf("%w: [%s] addopts: %v", errINI, section, err)
		}
		opts[kv.key] = args
	}
	return opts, true, nil
}

// iniSectionEntries is one section of an INI file and its entries, in the
// order of the file.
type iniSectionEntries struct {
	name    string
	entries []iniEntry
}

type iniEntry struct {
	key, value string
}

// parseINI reads an INI file exactly as iniconfig (the parser pytest uses
// for pytest.ini, tox.ini and setup.cfg) reads it, checked against a table
// iniconfig made (testdata/shlex): the text is UTF-8, its lines split where
// Python's str.splitlines splits them after \r\n and \r became \n; a line
// that is blank or whose first non-space character is # or ; is skipped;
// "[name]" (a comment after it cut off) starts a section, its name kept as
// written between the brackets; "key = value" or "key: value" (= unless the
// key would hold a colon) adds an entry, key and value stripped; an
// indented line continues the last entry's value on a new line. Python's
// notion of white space applies throughout. A line that is none of these,
// a continuation with no entry to continue, an entry before any section, an
// empty section name, a section or a key given twice in a section are
// errors naming their line.
func parseINI(b []byte) ([]iniSectionEntries, error) {
	if !utf8.Valid(b) {
		return nil, fmt.Errorf("%w: not valid UTF-8", errINI)
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	p := &iniParser{named: map[string]int{}}
	for n, line := range pySplitLines(text) {
		if err := p.line(line); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", errINI, n+1, err)
		}
	}
	p.flush()
	return p.sections, nil
}

// iniParser is parseINI's state. Sections and keys are found through maps
// and a value's continuation lines joined once, when the entry ends, so a
// file of many keys or many lines reads in time linear in its size.
type iniParser struct {
	sections []iniSectionEntries
	named    map[string]int  // section name to its index
	keys     map[string]bool // the keys of the current section
	parts    []string        // the last entry's value and continuation lines
	entry    *iniEntry       // the last entry, nil after a header
}

func (p *iniParser) line(line string) error {
	stripped := strings.TrimFunc(line, pySpace)
	if stripped == "" || stripped[0] == '#' || stripped[0] == ';' {
		return nil
	}
	line = strings.TrimRightFunc(line, pySpace)
	switch {
	case line[0] == '[':
		head := line
		for _, c := range "#;" {
			head, _, _ = strings.Cut(head, string(c))
			head = strings.TrimRightFunc(head, pySpace)
		}
		if !strings.HasSuffix(head, "]") || len(head) < 2 {
			// A bracket line that is no header continues the last value.
			return p.continued(stripped)
		}
		name := head[1 : len(head)-1]
		if name == "" {
			return errors.New("empty section name")
		}
		if _, dup := p.named[name]; dup {
			return fmt.Errorf("duplicate section %q", name)
		}
		p.flush()
		p.named[name] = len(p.sections)
		p.sections = append(p.sections, iniSectionEntries{name: name})
		p.keys = map[string]bool{}
		return nil
	case pySpace(firstRune(line)):
		return p.continued(stripped)
	}
	key, value, ok := strings.Cut(line, "=")
	if !ok || strings.Contains(key, ":") {
		if key, value, ok = strings.Cut(line, ":"); !ok {
			return fmt.Errorf("unexpected line %q", line)
		}
	}
	if len(p.sections) == 0 {
		return errors.New("no section header defined")
	}
	key = strings.TrimFunc(key, pySpace)
	if p.keys[key] {
		return fmt.Errorf("duplicate name %q", key)
	}
	p.keys[key] = true
	p.flush()
	s := &p.sections[len(p.sections)-1]
	s.entries = append(s.entries, iniEntry{key: key})
	p.entry = &s.entries[len(s.entries)-1]
	p.parts = append(p.parts[:0], strings.TrimFunc(value, pySpace))
	return nil
}

// continued adds a continuation line to the last entry's value.
func (p *iniParser) continued(data string) error {
	if p.entry == nil {
		return errors.New("unexpected value continuation")
	}
	p.parts = append(p.parts, data)
	return nil
}

// flush ends the last entry: its value and its continuation lines joined
// by \n, an empty value replaced by the first continuation, as iniconfig
// joins them.
func (p *iniParser) flush() {
	if p.entry == nil {
		return
	}
	parts := p.parts
	if len(parts) > 1 && parts[0] == "" {
		parts = parts[1:]
	}
	p.entry.value = strings.Join(parts, "\n")
	p.entry, p.parts = nil, p.parts[:0]
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// pySpace reports whether Python's str.isspace holds for r: Go's white
// space and the four separators U+001C to U+001F.
func pySpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1c && r <= 0x1f)
}

// pySplitLines splits s into lines as Python's str.splitlines does (the
// line ends dropped): at \n, \r, \r\n, \v, \f, \x1c, \x1d, \x1e, U+0085,
// U+2028 and U+2029. A final line end starts no empty line.
func pySplitLines(s string) []string {
	var lines []string
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '\n', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, s[start:i])
			start = i + size
		case '\r':
			lines = append(lines, s[start:i])
			if i+1 < len(s) && s[i+1] == '\n' {
				size++
			}
			start = i + size
		}
		i += size
	}
	if start < len(s) {
		lines = append(lines, s[start:])
	}
	return lines
}

// junitArg returns the report path the last --junitxml (or --junit-xml)
// argument in args names, and whether one is named at all. pytest takes the
// last one given.
func junitArg(args []string) (path string, named bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		for _, opt := range []string{"--junitxml", "--junit-xml"} {
			switch {
			case a == opt:
				named = true
				if i+1 < len(args) {
					path = args[i+1]
					i++
				}
			case strings.HasPrefix(a, opt+"="):
				named = true
				path = a[len(opt)+1:]
			}
		}
	}
	return path, named
}

// commandJUnit reports whether the check's command line names junitxml, and
// the report path it names when that can be read: each argument is also
// split as a shell would split it, for commands such as sh -c "pytest
// --junitxml=r.xml".
func commandJUnit(argv []string) (path string, named bool) {
	for _, a := range argv {
		if !strings.Contains(a, "junitxml") && !strings.Contains(a, "junit-xml") {
			continue
		}
		named = true
		words, err := splitArgs(a)
		if err != nil {
			words = strings.Fields(a)
		}
		if p, ok := junitArg(words); ok && p != "" {
			path = p
		}
	}
	if p, ok := junitArg(argv); ok && p != "" {
		path = p
	}
	return path, named
}
